import type { ServiceClient } from '../client/client.js'
import type { Clock } from '../client/clock.js'
import type { Log } from '../client/log.js'
import { failureOf, type RunResult } from '../shared/result.js'
import { shortDigest } from '../shared/text.js'
import type { ClusterInputs } from './inputs.js'
import { ClusterJobError, previewCluster, recordCluster } from './record-cluster.js'
import {
  announceState,
  mayHaveApplied,
  previewDecommissions,
  settleClusterState
} from './settle-state.js'

/** The cluster in the user's words, for the log, the summary and the failure report. */
export function describeCluster(c: ClusterInputs): string {
  const where = [c.logicalEnvironment, c.physicalEnvironment, c.cluster].filter(Boolean).join('/')
  const gone = c.state?.decommissions.length ?? 0
  return `${c.items.length} deployments${gone > 0 ? ` (${gone} decommissioned)` : ''} of cluster ${c.cluster} in ${where} (${c.mode === 'job' ? 'background job' : 'one request'})`
}

/** Records the whole cluster; a job that was queued keeps its id in the result, whatever follows. */
export async function writeCluster(
  client: ServiceClient,
  org: string,
  cluster: ClusterInputs,
  result: RunResult,
  clock: Clock,
  log: Log
): Promise<void> {
  const what = describeCluster(cluster)
  announceState(cluster, log)
  try {
    const outcome = await recordCluster(client, org, cluster, clock, log)
    result.deploymentRecords.push(...outcome.records)
    result.deploymentErrors.push(...outcome.rejected)
    result.jobId = outcome.jobId
    result.jobStatus = outcome.jobStatus
    if (outcome.failure) result.failures.push({ what, message: outcome.failure })
    else result.done.push(what)
    // Taken by the service: a set request answered, or a job that completed. A job not followed
    // to its end (a timeout, no job id) or failed may have applied some of the deployments.
    const confirmed = cluster.mode === 'sync' || outcome.jobStatus === 'completed'
    await settleClusterState(
      cluster,
      confirmed ? 'confirmed' : 'unconfirmed',
      outcome.rejected,
      result,
      log
    )
  } catch (error) {
    // A job that was created, or a request the service may have applied without answering.
    const applied = error instanceof ClusterJobError || mayHaveApplied(error)
    const rejected = error instanceof ClusterJobError ? error.rejected : []
    await settleClusterState(cluster, applied ? 'unconfirmed' : 'refused', rejected, result, log)
    if (error instanceof ClusterJobError) {
      result.jobId = error.jobId
      result.jobStatus = error.lastStatus
      result.deploymentErrors.push(...error.rejected)
      result.failures.push(failureOf(what, error.cause, error.message))
      return
    }
    result.failures.push(failureOf(what, error))
  }
}

/** The dry run: the request it would send, and per deployment whether it creates or updates. */
export async function previewClusterWrite(
  client: ServiceClient,
  org: string,
  cluster: ClusterInputs,
  result: RunResult,
  log: Log
): Promise<void> {
  announceState(cluster, log)
  try {
    const preview = await previewCluster(client, org, cluster, log)
    result.preview.push(preview)
    const creates = preview.records.filter(r => r.effect === 'create').length
    const updates = preview.records.filter(r => r.effect === 'update').length
    const unknown = preview.records.length - creates - updates
    log.info(
      `Dry run: would POST ${preview.path} with ${preview.records.length} deployments: ${creates} create, ${updates} update` +
        (unknown > 0 ? `, ${unknown} unknown` : '')
    )
    for (const r of preview.records)
      log.info(`  ${r.deployment_name} (${shortDigest(r.digest)}): ${r.effect}`)
    previewDecommissions(cluster, result, log)
  } catch (error) {
    result.failures.push(
      failureOf(`reading the current records for ${describeCluster(cluster)}`, error)
    )
  }
}
