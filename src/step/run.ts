import type { Dispatcher } from 'undici'
import { ServiceClient } from '../client/client.js'
import { cancellableClock, type Cancellation } from '../client/cancel.js'
import { systemClock, type Clock } from '../client/clock.js'
import { silentLog, type Log } from '../client/log.js'
import { describeCluster, previewClusterWrite, writeCluster } from '../cluster/write.js'
import type { Inputs } from './parse-inputs.js'
import { applyLabels } from '../labels/apply.js'
import { leadTimeOf } from '../labels/lead-time.js'
import { recordRequests } from '../records/requests.js'
import { previewRecords, writeRecords } from '../records/write.js'
import { emptyResult, RunStopped, stoppedByFatal, type RunResult } from '../shared/result.js'
import { forkOf, readRunEventFor, type RunEvent } from './run-event.js'
import { ACTION_VERSION } from '../shared/version.js'

export const USER_AGENT = `record-deployment/${ACTION_VERSION}`

export type { RunEvent }

export interface RunOptions {
  event?: RunEvent
  log?: Log
  clock?: Clock
  dispatcher?: Dispatcher
  random?: () => number
  requestTimeoutMs?: number
  /** the runner's cancel (SIGINT, then SIGTERM): the run stops at the next safe point */
  cancellation?: Cancellation
  /** where the token came from, for the hint of a 401: the `token` input unless given */
  tokenSource?: string
  /** how the API URL was given, for the hints that name it: the `api-url` input unless given */
  apiUrlSource?: string
  /** where the proxy variables are read (HTTPS_PROXY, HTTP_PROXY, NO_PROXY); `process.env` unless given */
  env?: Record<string, string | undefined>
}

/** One job of the step, named as the failure report names what was not attempted. */
interface Job {
  what: string
  work: () => Promise<void>
}

/**
 * Does what the inputs ask, in the contract's order: the records of one artifact (storage, then
 * deployment), a whole cluster, then labels. A job that fails is listed and the next still runs,
 * unless the failure would repeat for every call (bad credentials, a rate limit that outlasts
 * the step): then what is left is listed as not attempted.
 */
export async function run(inputs: Inputs, options: RunOptions = {}): Promise<RunResult> {
  const log = options.log ?? silentLog
  const { connection, dryRun } = inputs
  const { cancellation } = options
  // Every wait of the run (write spacing, retries, job polls) ends at once on a cancel.
  const clock = cancellation
    ? cancellableClock(options.clock ?? systemClock, cancellation)
    : (options.clock ?? systemClock)
  // The deployment's time for `lead-time`: the step's clock as it starts, before any request.
  const deployedAt = clock.now()
  const event = options.event ?? (await readRunEventFor(inputs.labels)).event
  const client = new ServiceClient({
    baseUrl: connection.apiUrl,
    token: connection.token,
    apiVersion: connection.apiVersion,
    maxRetries: inputs.maxRetries,
    userAgent: USER_AGENT,
    dispatcher: options.dispatcher,
    clock,
    cancellation,
    random: options.random,
    requestTimeoutMs: options.requestTimeoutMs,
    env: options.env,
    // A pull request from a fork runs with a read-only token: a refused write says so.
    fork: forkOf(event),
    tokenSource: options.tokenSource,
    apiUrlSource: options.apiUrlSource,
    log
  })
  if (client.proxy)
    log.info(
      `Requests go through the proxy ${client.proxy} (HTTPS_PROXY / HTTP_PROXY), except to loopback and hosts NO_PROXY names`
    )
  const result = emptyResult(dryRun, client.counts)
  if (!inputs.artifact && !inputs.cluster) result.labelsOnly = true
  const org = connection.org

  const jobs: Job[] = []
  const { artifact, storage, deployment, cluster, labels } = inputs
  if (artifact) {
    const requests = recordRequests(connection, { artifact, storage, deployment })
    jobs.push({
      what: 'records',
      work: () =>
        dryRun
          ? previewRecords(client, org, requests, result, log)
          : writeRecords(client, org, requests, result, log)
    })
  }
  if (cluster) for (const warning of cluster.warnings ?? []) log.warning(warning)
  if (cluster && cluster.items.length === 0) {
    // Only with `allow-empty-cluster: true`: the service never deletes, so there is nothing to send.
    log.info(`Cluster ${cluster.cluster} has no deployments to record; nothing was sent`)
  } else if (cluster) {
    jobs.push({
      what: describeCluster(cluster),
      work: () =>
        dryRun
          ? previewClusterWrite(client, org, cluster, result, log)
          : writeCluster(client, org, cluster, result, clock, log)
    })
  }
  if (labels) {
    const { owner, name: repo } = connection.repository
    jobs.push({
      what: 'labels',
      work: async () => {
        const outcome = await applyLabels(client, {
          owner,
          repo,
          inputs: labels,
          discovery: { ...event, owner, repo },
          dryRun,
          log
        })
        result.labeled.push(...outcome.labeled)
        result.preview.push(...outcome.preview)
        result.failures.push(...outcome.failures)
        result.done.push(...outcome.done)
        result.leadTime = leadTimeOf(outcome.merged, deployedAt)
        if (outcome.backports?.length) result.backports = outcome.backports
      }
    })
  }

  try {
    for (const [index, job] of jobs.entries()) {
      if (stoppedByFatal(result) || cancellation?.requested) {
        result.notAttempted.push(...jobs.slice(index).map(j => j.what))
        break
      }
      try {
        await job.work()
      } catch (error) {
        // Each job reports its own failures: what escapes is a bug of ours. The outputs still
        // hold what was done before it.
        throw new RunStopped(error, result)
      }
    }
  } finally {
    if (cancellation?.requested) result.cancelled = cancellation.reason ?? 'cancelled'
    await client.close()
  }
  return result
}
