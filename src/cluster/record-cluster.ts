// Over 300 lines on purpose: the set request and the background job share the body, the
// accounting of rejected deployments and the wait for a busy cluster; the preview reads the same.
import { CancelledError } from '../client/cancel.js'
import type { Clock } from '../client/clock.js'
import { NoLongerNeeded, ServiceError } from '../client/errors.js'
import type { Log } from '../client/log.js'
import type { RecordEffect } from '../shared/result.js'
import type { ClusterInputs } from './inputs.js'
import { notAlreadySaid, reportSkipped } from './rejections.js'
import {
  clusterJobsPath,
  clusterPath,
  createClusterJob,
  deploymentRecordKey,
  getClusterJob,
  listDeploymentRecords,
  setClusterRecords,
  type ClusterBody,
  type ClusterJob,
  type DeploymentRecord,
  type SkippedDeployment
} from '../service/artifacts.js'
import type { ServiceClient } from '../client/client.js'

export const FIRST_POLL_MS = 2000
export const MAX_POLL_MS = 30_000
/** The shortest wait between polls, whatever `x-poll-interval` says: below it polls only cost quota. */
export const MIN_POLL_MS = 1000
/**
 * A job just created may not be visible to its status endpoint yet (the service's read side
 * lags): a 404 is read as "not yet" this many times before the job has been seen once.
 */
export const UNSEEN_JOB_POLLS = 5
export const POLL_GROWTH = 1.5
/**
 * A busy cluster (409) is tried again sooner than the poll schedule, with jitter, so that the runs
 * of a matrix queued on one cluster take it soon after it frees: the wait grows from 2 s by half
 * per try to at most 10 s, each a random point between half and all of that (every try is a write,
 * so not sooner still: ten runs trying every 5-10 s stay under a minute's shared write limit).
 */
export const BUSY_RETRY_FIRST_MS = 2000
export const BUSY_RETRY_MAX_MS = 10_000
/**
 * A job is created only while this much of `job-timeout` is left, so the step polls what it
 * creates at least once; at the deadline it gives up without creating one it would not wait for.
 */
export const MIN_JOB_WAIT_MS = FIRST_POLL_MS
/** The dry run reads the records of at most this many digests: a read each. */
export const MAX_DIGESTS_READ = 50

export interface ClusterOutcome {
  records: DeploymentRecord[]
  /** Deployments the service skipped (207) or rejected (job creation, job status). */
  rejected: SkippedDeployment[]
  jobId?: number
  jobStatus?: string
  /** Set when the step must fail: a failed job, a timeout, rejected items without partial-success. */
  failure?: string
}

/** Following a queued job failed; the job's id, its last status and the deployments rejected at creation stay known. */
export class ClusterJobError extends Error {
  constructor(
    readonly jobId: number,
    readonly rejected: SkippedDeployment[],
    override readonly cause: unknown,
    readonly lastStatus = 'unknown',
    message?: string
  ) {
    super(message ?? (cause instanceof Error ? cause.message : String(cause)))
    this.name = 'ClusterJobError'
  }
}

/** Wait before trying a busy cluster again: between half and all of a ceiling growing 2 s to 10 s. */
export function busyRetryDelay(tries: number, random: () => number): number {
  const ceiling = Math.min(BUSY_RETRY_MAX_MS, BUSY_RETRY_FIRST_MS * POLL_GROWTH ** tries)
  return Math.round(ceiling / 2 + random() * (ceiling / 2))
}

/**
 * Wait before the next poll: the service's `x-poll-interval` when it sends one (at least 1 s, at
 * most 30 s), else 2 s growing to 30 s.
 */
export function nextPollDelay(
  previousMs: number | undefined,
  pollIntervalSeconds?: number
): number {
  if (pollIntervalSeconds !== undefined)
    return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, pollIntervalSeconds * 1000))
  if (previousMs === undefined) return FIRST_POLL_MS
  return Math.min(MAX_POLL_MS, Math.round(previousMs * POLL_GROWTH))
}

export function clusterBody(inputs: ClusterInputs): ClusterBody {
  const body: ClusterBody = {
    logical_environment: inputs.logicalEnvironment,
    deployments: inputs.items
  }
  if (inputs.physicalEnvironment) body.physical_environment = inputs.physicalEnvironment
  if (inputs.mode === 'sync') {
    if (inputs.partialSuccess) body.partial_success = true
    body.return_records = true
  }
  return body
}

/** Records a whole cluster: one set request, or a background job polled to its end. */
export async function recordCluster(
  client: ServiceClient,
  org: string,
  inputs: ClusterInputs,
  clock: Clock,
  log: Log
): Promise<ClusterOutcome> {
  const count = inputs.items.length
  const body = clusterBody(inputs)
  if (inputs.mode === 'sync') {
    log.info(
      `Recording ${count} deployments in cluster ${inputs.cluster} (${inputs.logicalEnvironment}) in one request`
    )
    const { status, records, errors, warning } = await setClusterRecords(
      client,
      org,
      inputs.cluster,
      body
    )
    if (warning) log.warning(`Cluster ${inputs.cluster}: ${warning}`)
    reportSkipped(errors, log, inputs.items)
    log.info(
      `Cluster ${inputs.cluster}: ${records.length} recorded${errors.length ? `, ${errors.length} skipped` : ''} (${status})`
    )
    return { records, rejected: errors }
  }

  const deadline = clock.now() + inputs.jobTimeoutSeconds * 1000
  log.info(
    `Recording ${count} deployments in cluster ${inputs.cluster} (${inputs.logicalEnvironment}) as a background job`
  )
  const {
    jobId,
    errors: rejected,
    warning
  } = await createJobWhenFree(client, org, inputs, body, clock, log, deadline)
  if (warning) log.warning(`Cluster ${inputs.cluster}: ${warning}`)
  reportSkipped(rejected, log, inputs.items)
  if (jobId === undefined) {
    // Off the description (a 202 names its job): there is no job to follow, so nothing is known
    // to be recorded.
    return {
      records: [],
      rejected,
      failure:
        `the service answered the job for cluster ${inputs.cluster} with 202 but named no \`job_id\`, ` +
        `an answer off its description: the job cannot be followed, so whether the ${count} deployments ` +
        `were recorded is unknown${rejected.length > 0 ? ` (${rejected.length} were rejected, listed in \`errors\`)` : ''}. ` +
        'Run the step again (records are upserted by their key, so nothing is duplicated).'
    }
  }
  log.info(
    `Job ${jobId} created for cluster ${inputs.cluster}${rejected.length ? `; ${rejected.length} deployments rejected` : ''}`
  )

  const job = await pollJob(client, org, inputs.cluster, jobId, clock, log, deadline).catch(
    (error: unknown) => {
      // The job is queued: its id and last status stay in the outputs even when following it failed.
      const { lastStatus, cause } = error as PollFailure
      throw new ClusterJobError(
        jobId,
        rejected,
        cause,
        lastStatus ?? 'unknown',
        pollFailureMessage(org, inputs.cluster, jobId, lastStatus, cause)
      )
    }
  )
  // The job's status may repeat the deployments rejected at creation: those were said already.
  const later = notAlreadySaid(rejected, job.final?.errors ?? [])
  reportSkipped(later, log, inputs.items)
  const skipped = [...rejected, ...later]
  if (!job.final) {
    return {
      records: [],
      rejected: skipped,
      jobId,
      jobStatus: job.lastStatus,
      failure:
        `job ${jobId} for cluster ${inputs.cluster} did not finish within job-timeout (${inputs.jobTimeoutSeconds} s); ` +
        `its last status was ${job.lastStatus ?? 'unknown'}. It may still finish: check GET ${clusterJobsPath(org, inputs.cluster)}/${jobId}, ` +
        'or raise `job-timeout`.'
    }
  }
  const status = job.final.status
  log.info(
    `Job ${jobId}: ${status}${job.final.total_count != null ? `, ${job.final.total_count} deployments` : ''}`
  )
  let failure: string | undefined
  if (status === 'failed') failure = `job ${jobId} for cluster ${inputs.cluster} failed`
  else if (skipped.length > 0 && !inputs.partialSuccess) {
    failure = `${skipped.length} of ${count} deployments were rejected (set \`partial-success: true\` to accept that)`
  }
  return { records: [], rejected: skipped, jobId, jobStatus: status, failure }
}

/**
 * Creates the job; while another job holds the cluster (409) it waits and tries again until the
 * deadline.
 *
 * A 409 on a retried create is most likely our own job: the first attempt reached the service,
 * which created the job, and its answer was lost. The service cannot tell us that job's id (there
 * is no list of a cluster's jobs), so the step waits for the cluster to be free and submits the
 * same deployments again. That is safe: the service upserts every record by its key (logical and
 * physical environment, cluster, deployment name), so the second job rewrites exactly the records
 * the first one wrote, and the second job's id is one the step can follow and report.
 */
async function createJobWhenFree(
  client: ServiceClient,
  org: string,
  inputs: ClusterInputs,
  body: ClusterBody,
  clock: Clock,
  log: Log,
  deadline: number
): Promise<{ jobId?: number; errors: SkippedDeployment[]; warning?: string }> {
  let tries = 0
  let ownJobLikely = false
  const busyTooLong = () =>
    new Error(
      ownJobLikely
        ? `the answer to creating the job for cluster ${inputs.cluster} was lost, and a job (most likely ` +
            `that one) kept the cluster busy for the whole job-timeout (${inputs.jobTimeoutSeconds} s): its ` +
            'id is unknown, so the records it writes cannot be confirmed; run the step again when it has ' +
            'finished (the records are upserted, nothing is duplicated), or raise `job-timeout`'
        : `another job kept cluster ${inputs.cluster} busy for the whole job-timeout (${inputs.jobTimeoutSeconds} s), ` +
            'so no job was created; run the step again when it has finished, or raise `job-timeout` ' +
            '(docs/service.md: Many jobs at once)'
    )
  // After a rate-limit wait, a job is created only if the step will still wait for it.
  const stillNeeded = () => Promise.resolve(deadline - clock.now() >= MIN_JOB_WAIT_MS)
  for (;;) {
    try {
      const created = await createClusterJob(client, org, inputs.cluster, body, stillNeeded)
      if (ownJobLikely && created.jobId !== undefined)
        log.info(
          `Job ${created.jobId} created for cluster ${inputs.cluster}: the deployments were submitted again ` +
            'after the first answer was lost; the records are upserted by their key, so none is duplicated'
        )
      return created
    } catch (error) {
      if (error instanceof NoLongerNeeded)
        throw new Error(
          `rate-limit waits left less than ${MIN_JOB_WAIT_MS / 1000} s of job-timeout (${inputs.jobTimeoutSeconds} s) ` +
            `for the job of cluster ${inputs.cluster}, so no job was created; run the step again, or raise \`job-timeout\``
        )
      if (!(error instanceof ServiceError) || error.status !== 409) throw error
      // Only an attempt sent without an answer may have created a job of ours; a 409 after a
      // refusal (a rate limit, a 5xx) is another job's.
      if (error.unanswered > 0 && !ownJobLikely) {
        ownJobLikely = true
        log.warning(
          `Cluster ${inputs.cluster}: the answer to creating the job was lost, and the retry found a job in ` +
            'progress (409): most likely the one this step just created, whose id the service did not get to ' +
            'send. The step waits for it to finish and submits the same deployments again (safe: records ' +
            'are upserted by their key, so the second job rewrites the same records).'
        )
      }
      const delay = busyRetryDelay(tries++, client.random)
      // The next try must leave time to follow the job it may create: none at the deadline.
      const left = deadline - clock.now() - MIN_JOB_WAIT_MS
      if (left <= 0) throw busyTooLong()
      log.info(
        `A job is already in progress for cluster ${inputs.cluster}; trying again in ${(Math.min(delay, left) / 1000).toFixed(1)} s ` +
          `(up to ${Math.round(left / 1000)} s more)`
      )
      await clock.sleep(Math.min(delay, left))
    }
  }
}

/** Polling failed for good; what was known of the job when it did. */
interface PollFailure {
  lastStatus?: string
  cause: unknown
}

/**
 * The job exists (the service gave its id to this token), so a failing poll is not a missing
 * permission: the message names what the service answered and where to look, without the
 * permission hint a 403/404 would otherwise carry.
 */
function pollFailureMessage(
  org: string,
  cluster: string,
  jobId: number,
  lastStatus: string | undefined,
  cause: unknown
): string {
  const where = `GET ${clusterJobsPath(org, cluster)}/${jobId}`
  if (cause instanceof CancelledError)
    return (
      `job ${jobId} for cluster ${cluster} was created and keeps running in the service; following it ` +
      `stopped because the run was cancelled (${cause.reason}). Its last status seen was ${lastStatus ?? 'none yet'}: check ${where}.`
    )
  let what: string
  if (cause instanceof ServiceError) {
    const answered =
      cause.status === 0
        ? 'failed'
        : `answered ${cause.status}${cause.status === 404 ? ' (the job is not visible)' : ''}`
    what = `${cause.method} ${cause.path} ${answered}${cause.serviceMessage ? `: ${cause.serviceMessage}` : ''}`
    if (cause.requestId) what += ` (request id ${cause.requestId})`
  } else what = cause instanceof Error ? cause.message : String(cause)
  return (
    `job ${jobId} for cluster ${cluster} was created, but following it failed: ${what}. ` +
    `Its last status seen was ${lastStatus ?? 'none yet'}; it may still finish: check ${where}.`
  )
}

async function pollJob(
  client: ServiceClient,
  org: string,
  cluster: string,
  jobId: number,
  clock: Clock,
  log: Log,
  deadline: number
): Promise<{ final?: ClusterJob; lastStatus?: string }> {
  let etag: string | undefined
  let lastStatus: string | undefined
  let delay: number | undefined
  let hint: number | undefined
  let notYetVisible = 0
  for (let polls = 0; ; polls++) {
    delay = nextPollDelay(delay, hint)
    const left = deadline - clock.now()
    // A job the step created is polled at least once, even when its creation ended late.
    if (left <= 0 && polls > 0) return { lastStatus }
    await clock.sleep(Math.max(0, Math.min(delay, left)))
    let poll: Awaited<ReturnType<typeof getClusterJob>>
    try {
      poll = await getClusterJob(client, org, cluster, jobId, etag)
    } catch (error) {
      const unseen = lastStatus === undefined && etag === undefined
      if (unseen && error instanceof ServiceError && error.status === 404) {
        if (++notYetVisible <= UNSEEN_JOB_POLLS) {
          log.info(`Job ${jobId} is not visible yet (404); polling again`)
          continue
        }
      }
      throw { lastStatus, cause: error } satisfies PollFailure
    }
    etag = poll.etag
    hint = poll.pollIntervalSeconds
    if (poll.job) {
      if (poll.job.status !== lastStatus) log.info(`Job ${jobId}: ${poll.job.status}`)
      lastStatus = poll.job.status
      if (poll.job.status === 'completed' || poll.job.status === 'failed')
        return { final: poll.job, lastStatus }
    }
  }
}

export interface ClusterPreview {
  method: 'POST'
  path: string
  body: ClusterBody
  records: Array<{ deployment_name: string; digest: string; effect: RecordEffect }>
}

/** The dry run: the request that would be sent, and per deployment whether it creates or updates a record. */
export async function previewCluster(
  client: ServiceClient,
  org: string,
  inputs: ClusterInputs,
  log: Log
): Promise<ClusterPreview> {
  const digests = [...new Set(inputs.items.map(i => i.digest))]
  const read = digests.slice(0, MAX_DIGESTS_READ)
  if (digests.length > read.length) {
    log.info(
      `Dry run: reading the records of the first ${read.length} of ${digests.length} digests; the others show as unknown`
    )
  }
  const keys = new Set<string>()
  for (const digest of read) {
    for (const record of await listDeploymentRecords(client, org, digest))
      keys.add(`${record.digest}\u0000${deploymentRecordKey(record)}`)
  }
  const readSet = new Set(read)
  const records = inputs.items.map(item => {
    const wanted = deploymentRecordKey({
      logical_environment: inputs.logicalEnvironment,
      physical_environment: inputs.physicalEnvironment,
      cluster: inputs.cluster,
      deployment_name: item.deployment_name
    })
    const effect: RecordEffect = !readSet.has(item.digest)
      ? 'unknown'
      : keys.has(`${item.digest}\u0000${wanted}`)
        ? 'update'
        : 'create'
    return { deployment_name: item.deployment_name, digest: item.digest, effect }
  })
  const path =
    inputs.mode === 'sync' ? clusterPath(org, inputs.cluster) : clusterJobsPath(org, inputs.cluster)
  return { method: 'POST', path, body: clusterBody(inputs), records }
}
