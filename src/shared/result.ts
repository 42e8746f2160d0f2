/**
 * What one run did, in the terms every job reports in: the leaf that records, cluster and
 * labels write into and that report.ts reads. It imports nothing above the service layer.
 */
import { ServiceError } from '../client/errors.js'
import type { DeploymentRecord, SkippedDeployment, StorageRecord } from '../service/artifacts.js'

/** What a record write does under the upsert rule; `unknown` when it was not read. */
export type RecordEffect = 'create' | 'update' | 'unknown'

/** A write the dry run would send (the `planned` output). */
export interface PreviewRequest {
  method: string
  path: string
  body: unknown
  /** Whether the record would be created or would update an existing one. */
  effect?: Exclude<RecordEffect, 'unknown'>
  /** A whole cluster: the effect per deployment. */
  records?: Array<{ deployment_name: string; digest: string; effect: RecordEffect }>
}

/** A deployment of a cluster recorded as `decommissioned` (the `decommissioned` output). */
export interface DecommissionedDeployment {
  deployment_name: string
  name: string
  digest: string
  version?: string
  github_repository?: string
}

/** The service call that failed, when one did (the `failed` output names it). */
export interface FailedRequest {
  method: string
  path: string
  /** HTTP status; absent when no answer came (network error, timeout). */
  status?: number
  requestId?: string
}

/** One thing the step could not do. */
export interface StepFailure {
  /** What was being done, e.g. "deployment record web in production". */
  what: string
  message: string
  /** The same failure would repeat for every later call (bad credentials, a long rate limit). */
  fatal?: boolean
  request?: FailedRequest
}

/** One issue or pull request that carries the labels now. */
export interface LabelResultItem {
  number: number
  /** labels of `labels` the target did not carry before (as the user spelled them) */
  added: string[]
  /** labels of `remove-labels` this run took off (as the target spelled them) */
  removed: string[]
  /**
   * labels of `remove-labels` the target carried when read but were gone when this run's DELETE
   * came (404, or a re-read after a rate-limit wait): someone else took them off. Only when any.
   */
  gone?: string[]
}

/** A merged pull request this run labeled (or, in a dry run, would label): the `lead-time` output's item. */
export interface ShippedPull {
  number: number
  merged_at: string
  /** whole seconds from `merged_at` to the deployment (the step's clock when it started) */
  seconds: number
}

/**
 * Lead time for changes over the merged pull requests the run labeled (the `lead-time` output).
 * The statistics are nearest-rank percentiles of `seconds`, `null` when there are none.
 */
export interface LeadTime {
  count: number
  median_seconds: number | null
  p90_seconds: number | null
  max_seconds: number | null
  pull_requests: ShippedPull[]
}

export interface RunResult {
  dryRun: boolean
  deploymentRecords: DeploymentRecord[]
  storageRecords: StorageRecord[]
  /** Deployments of a cluster that the service skipped or rejected. */
  deploymentErrors: SkippedDeployment[]
  jobId?: number
  jobStatus?: string
  /** Cluster deployments recorded as decommissioned; in a dry run, those it would decommission. */
  decommissioned: DecommissionedDeployment[]
  /** Dry run: the writes it would send. */
  preview: PreviewRequest[]
  /** Issues and pull requests that carry the labels now. */
  labeled: LabelResultItem[]
  /** The labels job ran: how long its merged pull requests waited for this deployment. */
  leadTime?: LeadTime
  /** Backports found by discovery, each with the original labeled with it. */
  backports?: Array<{ number: number; of: number }>
  /** What succeeded, in the user's words. */
  done: string[]
  failures: StepFailure[]
  /** What was not attempted because an earlier failure would have repeated for it. */
  notAttempted: string[]
  /**
   * Record writes the service accepted (2xx) but answered without the record, although
   * `return_records` was sent: `storage-record`, `deployment-record`.
   */
  noRecordReturned: Array<'storage-record' | 'deployment-record'>
  /** The run was cancelled (the signal that asked, e.g. SIGINT) and stopped at a safe point. */
  cancelled?: string
  requests: { reads: number; writes: number }
  /** The step had only labels to apply (no record, no cluster): its summary is titled so. */
  labelsOnly?: boolean
}

/** A result before anything was done; `requests` is the client's live count. */
export function emptyResult(dryRun: boolean, requests = { reads: 0, writes: 0 }): RunResult {
  return {
    dryRun,
    deploymentRecords: [],
    storageRecords: [],
    deploymentErrors: [],
    decommissioned: [],
    preview: [],
    labeled: [],
    done: [],
    failures: [],
    notAttempted: [],
    noRecordReturned: [],
    requests
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** The first line of the message: for a sentence that quotes the error. */
export function firstLineOf(error: unknown): string {
  return messageOf(error).split('\n')[0] ?? ''
}

/** A failure that would repeat for every later call: bad credentials, a long rate limit. */
export function isFatal(error: unknown): boolean {
  return error instanceof ServiceError && error.fatal
}

/** A failure from the error that caused it: a service call's method, path, status and request id. */
export function failureOf(what: string, error: unknown, message = messageOf(error)): StepFailure {
  const request = requestOf(error)
  return { what, message, fatal: isFatal(error), ...(request ? { request } : {}) }
}

/** The service call behind an error, or behind the error it wraps (`cause`, a cluster job's). */
function requestOf(error: unknown): FailedRequest | undefined {
  const service =
    error instanceof ServiceError
      ? error
      : error instanceof Error && error.cause instanceof ServiceError
        ? error.cause
        : undefined
  if (!service) return undefined
  return {
    method: service.method,
    path: service.path,
    ...(service.status > 0 ? { status: service.status } : {}),
    ...(service.requestId ? { requestId: service.requestId } : {})
  }
}

/** What the failure says of a bug of ours: the `failed` output names it. */
export const UNEXPECTED = 'unexpected internal error'

/**
 * A bug of ours stopped the run: the error, and what the run had done before it, so that the
 * outputs still hold what was recorded (as on every other path) and `failed` names the bug.
 */
export class RunStopped extends Error {
  constructor(
    readonly error: unknown,
    readonly result: RunResult
  ) {
    super(messageOf(error), { cause: error })
    this.name = 'RunStopped'
  }
}

/**
 * The result to report after an unexpected error: what was done before it (empty when it came
 * before the run), with the error as its last failure.
 */
export function resultAfterBug(error: unknown): { result: RunResult; bug: unknown } {
  const stopped = error instanceof RunStopped ? error : undefined
  const bug = stopped ? stopped.error : error
  return { result: withBug(stopped?.result ?? emptyResult(false), bug), bug }
}

/** `result` (left as it is) with the bug of ours as its last failure. */
export function withBug(result: RunResult, bug: unknown): RunResult {
  return {
    ...result,
    failures: [...result.failures, { what: UNEXPECTED, message: messageOf(bug) }]
  }
}

/** Whether a fatal failure has stopped the run: nothing after it is attempted. */
export function stoppedByFatal(result: RunResult): boolean {
  return result.failures.some(f => f.fatal)
}

/** The ids of the records that carry one: the description does not require `id`. */
export function recordIds(records: Array<{ id?: number | null }>): number[] {
  return records.flatMap(r => (typeof r.id === 'number' ? [r.id] : []))
}
