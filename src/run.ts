import type { Dispatcher } from 'undici'
import { ServiceClient } from './client/client.js'
import { systemClock, type Clock } from './client/clock.js'
import { ServiceError } from './client/errors.js'
import { silentLog, type Log } from './client/log.js'
import type { Inputs } from './inputs/index.js'
import { ClusterJobError, planCluster, recordCluster } from './cluster/record-cluster.js'
import { applyLabels, type LabelResultItem } from './labels/apply.js'
import { planWrites, type PlannedWrite } from './plan.js'
import {
  createDeploymentRecord,
  createStorageRecord,
  deploymentRecordKey,
  listDeploymentRecords,
  listStorageRecords,
  type DeploymentRecord,
  type SkippedDeployment,
  type StorageRecord
} from './service/artifacts.js'
import { readRunEvent, type RunEvent } from './run-event.js'
import { ACTION_VERSION } from './version.js'

export const USER_AGENT = `record-deployment/${ACTION_VERSION}`

export type { RunEvent }

export interface RunOptions {
  event?: RunEvent
  log?: Log
  clock?: Clock
  dispatcher?: Dispatcher
  random?: () => number
  requestTimeoutMs?: number
}

export interface PlannedRequest {
  method: string
  path: string
  body: unknown
  /** Whether the record would be created or would update an existing one (the upsert rule). */
  effect?: 'create' | 'update'
  /** A whole cluster: the effect per deployment. */
  records?: Array<{
    deployment_name: string
    digest: string
    effect: 'create' | 'update' | 'unknown'
  }>
}

export interface Failure {
  /** What was being done, e.g. "deployment record web in production". */
  what: string
  message: string
  /** The same failure would repeat for every later call (bad credentials, a long rate limit). */
  fatal?: boolean
}

export interface RunResult {
  dryRun: boolean
  deploymentRecords: DeploymentRecord[]
  storageRecords: StorageRecord[]
  /** Deployments of a cluster that the service skipped or rejected. */
  deploymentErrors: SkippedDeployment[]
  jobId?: number
  jobStatus?: string
  planned: PlannedRequest[]
  /** Issues and pull requests that carry the labels now. */
  labeled: LabelResultItem[]
  /** Steps that succeeded, in the user's words. */
  done: string[]
  failures: Failure[]
  /** Steps not attempted because an earlier failure made them pointless. */
  skipped: string[]
  requests: { reads: number; writes: number }
}

/** A result before anything was done; `requests` is the client's live count. */
export function emptyResult(dryRun: boolean, requests = { reads: 0, writes: 0 }): RunResult {
  return {
    dryRun,
    deploymentRecords: [],
    storageRecords: [],
    deploymentErrors: [],
    planned: [],
    labeled: [],
    done: [],
    failures: [],
    skipped: [],
    requests
  }
}

/**
 * Records what the inputs describe: storage record, then deployment record. A failing step is
 * listed and the others still run, unless the failure would repeat for every call (bad
 * credentials, a rate limit that outlasts the step).
 */
export async function run(inputs: Inputs, options: RunOptions = {}): Promise<RunResult> {
  const log = options.log ?? silentLog
  const client = new ServiceClient({
    baseUrl: inputs.connection.apiUrl,
    token: inputs.connection.token,
    apiVersion: inputs.connection.apiVersion,
    maxRetries: inputs.maxRetries,
    userAgent: USER_AGENT,
    dispatcher: options.dispatcher,
    clock: options.clock,
    random: options.random,
    requestTimeoutMs: options.requestTimeoutMs,
    log
  })
  const result = emptyResult(inputs.dryRun, client.counts)
  try {
    const writes = planWrites(inputs)
    if (inputs.dryRun) {
      await planOnly(client, inputs, writes, result, log)
      await planWholeCluster(client, inputs, result, log)
    } else {
      await sendWrites(client, inputs, writes, result, log)
      if (!stoppedByFatal(result))
        await recordWholeCluster(client, inputs, result, options.clock ?? systemClock, log)
    }
    // A fatal failure has already listed the labels as not attempted.
    if (inputs.labels && !stoppedByFatal(result)) await label(client, inputs, result, options, log)
  } finally {
    await client.close()
  }
  return result
}

/** A failure that would repeat for every later call: bad credentials, a long rate limit. */
function stoppedByFatal(result: RunResult): boolean {
  return result.failures.some(f => f.fatal)
}

async function sendWrites(
  client: ServiceClient,
  inputs: Inputs,
  writes: PlannedWrite[],
  result: RunResult,
  log: Log
): Promise<void> {
  const org = inputs.connection.org
  for (const [index, write] of writes.entries()) {
    const what = describeWrite(write)
    log.info(`Recording ${what} in ${org}`)
    try {
      if (write.kind === 'storage-record') {
        const answer = await createStorageRecord(client, org, write.body)
        result.storageRecords.push(...answer.value)
        log.info(`Recorded ${what}${ids(answer.value)}`)
        if (answer.warning) log.warning(`${what}: ${answer.warning}`)
      } else {
        const answer = await createDeploymentRecord(client, org, write.body)
        result.deploymentRecords.push(...answer.value)
        log.info(`Recorded ${what}${ids(answer.value)}`)
        if (answer.warning) log.warning(`${what}: ${answer.warning}`)
      }
      result.done.push(what)
    } catch (error) {
      const fatal = error instanceof ServiceError && error.fatal
      result.failures.push({ what, message: messageOf(error), fatal })
      if (fatal) {
        result.skipped.push(...writes.slice(index + 1).map(describeWrite))
        if (inputs.cluster) result.skipped.push(describeCluster(inputs))
        if (inputs.labels) result.skipped.push('labels')
        return
      }
    }
  }
}

async function recordWholeCluster(
  client: ServiceClient,
  inputs: Inputs,
  result: RunResult,
  clock: Clock,
  log: Log
): Promise<void> {
  if (!inputs.cluster) return
  const what = describeCluster(inputs)
  try {
    const outcome = await recordCluster(client, inputs.connection.org, inputs.cluster, clock, log)
    result.deploymentRecords.push(...outcome.records)
    result.deploymentErrors.push(...outcome.skipped)
    result.jobId = outcome.jobId
    result.jobStatus = outcome.jobStatus
    if (outcome.failure) result.failures.push({ what, message: outcome.failure })
    else result.done.push(what)
  } catch (error) {
    const cause = error instanceof ClusterJobError ? error.cause : error
    if (error instanceof ClusterJobError) {
      result.jobId = error.jobId
      result.deploymentErrors.push(...error.rejected)
    }
    result.failures.push({
      what,
      message: messageOf(cause),
      fatal: cause instanceof ServiceError && cause.fatal
    })
  }
}

async function planWholeCluster(
  client: ServiceClient,
  inputs: Inputs,
  result: RunResult,
  log: Log
): Promise<void> {
  if (!inputs.cluster) return
  try {
    const plan = await planCluster(client, inputs.connection.org, inputs.cluster, log)
    result.planned.push(plan)
    const creates = plan.records.filter(r => r.effect === 'create').length
    const updates = plan.records.filter(r => r.effect === 'update').length
    log.info(
      `Dry run: would POST ${plan.path} with ${plan.records.length} deployments: ${creates} create, ${updates} update` +
        (plan.records.length - creates - updates > 0
          ? `, ${plan.records.length - creates - updates} unknown`
          : '')
    )
    for (const r of plan.records)
      log.info(`  ${r.deployment_name} (${r.digest.slice(0, 19)}…): ${r.effect}`)
  } catch (error) {
    result.failures.push({
      what: `reading the current records for ${describeCluster(inputs)}`,
      message: messageOf(error)
    })
  }
}

async function label(
  client: ServiceClient,
  inputs: Inputs,
  result: RunResult,
  options: RunOptions,
  log: Log
): Promise<void> {
  if (!inputs.labels) return
  const { owner, name: repo } = inputs.connection.repository
  const event = options.event ?? readRunEvent().event
  const outcome = await applyLabels(client, {
    owner,
    repo,
    inputs: inputs.labels,
    discovery: { ...event, owner, repo },
    dryRun: inputs.dryRun,
    log
  })
  result.labeled.push(...outcome.labeled)
  result.planned.push(...outcome.planned)
  result.failures.push(...outcome.failures)
  result.done.push(...outcome.done)
}

export function describeCluster(inputs: Inputs): string {
  const c = inputs.cluster
  if (!c) return ''
  const where = [c.logicalEnvironment, c.physicalEnvironment, c.cluster].filter(Boolean).join('/')
  return `${c.items.length} deployments of cluster ${c.cluster} in ${where} (${c.mode === 'job' ? 'background job' : 'one request'})`
}

async function planOnly(
  client: ServiceClient,
  inputs: Inputs,
  writes: PlannedWrite[],
  result: RunResult,
  log: Log
): Promise<void> {
  const { org } = inputs.connection
  for (const write of writes) {
    const what = describeWrite(write)
    let effect: 'create' | 'update' | undefined
    try {
      effect = await predictEffect(client, org, write)
    } catch (error) {
      result.failures.push({
        what: `reading the current records for ${what}`,
        message: messageOf(error)
      })
    }
    result.planned.push({ method: write.method, path: write.path, body: write.body, effect })
    log.info(
      `Dry run: would ${write.method} ${write.path} (${what})${effect ? `: ${effect}s a record` : ''}\n` +
        JSON.stringify(write.body, null, 2)
    )
  }
}

/** The upsert rule, applied to the records the service holds for the digest now. */
async function predictEffect(
  client: ServiceClient,
  org: string,
  write: PlannedWrite
): Promise<'create' | 'update'> {
  if (write.kind === 'deployment-record') {
    const existing = await listDeploymentRecords(client, org, write.body.digest)
    const wanted = deploymentRecordKey(write.body)
    return existing.some(record => deploymentRecordKey(record) === wanted) ? 'update' : 'create'
  }
  const existing = await listStorageRecords(client, org, write.body.digest)
  const same = existing.some(
    record =>
      record.registry_url === write.body.registry_url &&
      (record.repository ?? '') === (write.body.repository ?? '')
  )
  return same ? 'update' : 'create'
}

export function describeWrite(write: PlannedWrite): string {
  if (write.kind === 'storage-record') {
    return `storage record for ${write.body.name} at ${write.body.registry_url}`
  }
  const b = write.body
  const where = [b.logical_environment, b.physical_environment, b.cluster].filter(Boolean).join('/')
  return `deployment record ${b.deployment_name} (${b.status}) in ${where}`
}

/** The ids the service returned; a record without one (the description does not promise it) is left out. */
function ids(records: Array<{ id?: number | null }>): string {
  const known = recordIds(records)
  return known.length > 0 ? `: id ${known.join(', ')}` : ''
}

/** The ids of the records that carry one: the description does not require `id`. */
export function recordIds(records: Array<{ id?: number | null }>): number[] {
  return records.flatMap(r => (typeof r.id === 'number' ? [r.id] : []))
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
