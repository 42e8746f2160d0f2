/**
 * After the cluster request: the `decommissioned` output, and `state-file` rewritten with what the
 * service now holds, only once the service took the request (a set request answered, a job
 * completed). Otherwise the file is left as it was, so that the next run sends the same
 * decommissions. The file is replaced whole (a temporary file renamed over it), never half written.
 */
import { dirname } from 'node:path'
import type { Log } from '../client/log.js'
import { messageOf, type DecommissionedDeployment, type RunResult } from '../result.js'
import type { SkippedDeployment } from '../service/artifacts.js'
import type { ClusterItem, Workload } from './items.js'
import {
  describeScope,
  STATE_FORMAT,
  STATE_VERSION,
  type ClusterState,
  type StatefulCluster,
  type StateEntry
} from './state.js'

function entryOf(item: ClusterItem, workload?: Workload): StateEntry {
  const entry: StateEntry = {
    deployment_name: item.deployment_name,
    name: item.name,
    digest: item.digest
  }
  if (item.version !== undefined) entry.version = item.version
  if (item.github_repository !== undefined) entry.github_repository = item.github_repository
  if (workload !== undefined) entry.workload = { ...workload }
  return entry
}

/**
 * What the service holds after it took the request: each deployment it accepted as sent (a
 * decommissioned one leaves the list), each it rejected as the previous state had it. A rejection
 * names its deployment, or only the artifact (the flat `{name, cause}` of GitHub's tracker): then
 * every deployment of that artifact counts as rejected, as the causes (no attestation for the
 * digest, a repository out of reach) are the artifact's. Undefined when a rejection names
 * neither: which deployment it was cannot be told.
 */
export function settledState(
  cluster: StatefulCluster,
  rejected: SkippedDeployment[]
): { state: ClusterState; decommissioned: DecommissionedDeployment[] } | undefined {
  const rejectedNames = new Set<string>()
  for (const entry of rejected) {
    const deployment = entry.deployment ?? {}
    if (typeof deployment.deployment_name === 'string') {
      rejectedNames.add(deployment.deployment_name)
      continue
    }
    const artifact = deployment.name ?? (entry as { name?: unknown }).name
    if (typeof artifact !== 'string') return undefined
    for (const item of cluster.items) {
      if (item.name === artifact && (!deployment.digest || deployment.digest === item.digest))
        rejectedNames.add(item.deployment_name)
    }
  }
  const before = new Map(
    (cluster.state?.previous?.deployments ?? []).map(e => [e.deployment_name, e] as const)
  )
  const now = new Map<string, StateEntry>()
  const decommissioned: DecommissionedDeployment[] = []
  for (const item of cluster.items) {
    if (rejectedNames.has(item.deployment_name)) {
      const kept = before.get(item.deployment_name)
      if (kept) now.set(item.deployment_name, kept)
    } else if (item.status === 'decommissioned') decommissioned.push(entryOf(item))
    else now.set(item.deployment_name, entryOf(item, cluster.workloads?.get(item.deployment_name)))
  }
  // Not in the snapshot, but its workload is still listed: as the file had it, so that a later
  // run decommissions it once the workload is gone.
  for (const entry of cluster.state?.kept ?? []) now.set(entry.deployment_name, entry)
  const deployments = [...now.values()].sort((a, b) =>
    a.deployment_name < b.deployment_name ? -1 : a.deployment_name > b.deployment_name ? 1 : 0
  )
  const state: ClusterState = {
    format: STATE_FORMAT,
    version: STATE_VERSION,
    cluster: cluster.cluster,
    logical_environment: cluster.logicalEnvironment,
    ...(cluster.physicalEnvironment ? { physical_environment: cluster.physicalEnvironment } : {}),
    deployments
  }
  return { state, decommissioned }
}

let temporaryFiles = 0

/** Writes the state whole or not at all: a temporary file beside it, renamed over it. */
export async function writeState(path: string, state: ClusterState): Promise<void> {
  // Loaded here, when a state file is written: fs/promises brings readline along at start-up.
  const { mkdir, rename, rm, writeFile } = await import('node:fs/promises')
  await mkdir(dirname(path), { recursive: true })
  const temporary = `${path}.${process.pid}-${++temporaryFiles}.tmp`
  try {
    await writeFile(temporary, JSON.stringify(state, null, 2) + '\n', { flag: 'wx' })
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}

/**
 * After the cluster request: the `decommissioned` output, and the state file when the service
 * took the request (`accepted`: a set request answered, a job completed). Otherwise the file
 * is left as it was, so that the next run sends the same decommissions.
 */
export async function settleClusterState(
  cluster: StatefulCluster,
  accepted: boolean,
  rejected: SkippedDeployment[],
  result: RunResult,
  log: Log
): Promise<void> {
  const plan = cluster.state
  const settled = accepted ? settledState(cluster, rejected) : undefined
  if (settled) {
    result.decommissioned.push(...settled.decommissioned)
    if (settled.decommissioned.length > 0)
      log.info(
        `Decommissioned ${settled.decommissioned.length} deployments: ${settled.decommissioned.map(d => d.deployment_name).join(', ')}`
      )
  }
  if (!plan) return
  if (!settled) {
    log.warning(
      `The state file \`${plan.given}\` was left as it was: ${accepted ? 'a deployment the service rejected is not named in its answer' : 'the service did not confirm the request'}, ` +
        'so the next run sends the same decommissions again'
    )
    return
  }
  try {
    await writeState(plan.path, settled.state)
    log.info(
      `State file \`${plan.given}\` written: ${settled.state.deployments.length} deployments of ${describeScope(cluster)}`
    )
  } catch (error) {
    result.failures.push({
      what: `writing the state file \`${plan.given}\``,
      message:
        `${messageOf(error)}. The records were written; without the file the next run cannot ` +
        'decommission what this one recorded, and sends the previous decommissions again'
    })
  }
}

/** Before the request: what the state file gave this run. */
export function announceState(cluster: StatefulCluster, log: Log): void {
  const plan = cluster.state
  if (!plan) return
  if (!plan.previous) {
    log.info(
      `State file \`${plan.given}\` not found: the first run for ${describeScope(cluster)}, nothing to decommission`
    )
    return
  }
  const gone = plan.decommissions
  const kept = plan.kept
  log.info(
    `State file \`${plan.given}\` lists ${plan.previous.deployments.length} deployments; ` +
      (gone.length === 0 && kept.length === 0
        ? 'the snapshot has every one'
        : [
            ...(kept.length > 0
              ? [
                  `${kept.length} not in the snapshot ${kept.length === 1 ? 'is' : 'are'} kept, as \`kubernetes-file\` still lists ${kept.length === 1 ? 'its workload' : 'their workloads'} (no running pod): ${kept.map(d => d.deployment_name).join(', ')}`
                ]
              : []),
            ...(gone.length > 0
              ? [
                  `${gone.length} not in the snapshot ${gone.length === 1 ? 'is' : 'are'} sent as decommissioned: ${gone.map(d => d.deployment_name).join(', ')}`
                ]
              : [])
          ].join('; '))
  )
}

/** The dry run: the decommissions it would send; the state file is not touched. */
export function previewDecommissions(cluster: StatefulCluster, result: RunResult, log: Log): void {
  const planned = cluster.items
    .filter(item => item.status === 'decommissioned')
    .map(item => entryOf(item))
  result.decommissioned.push(...planned)
  if (planned.length > 0)
    log.info(
      `Dry run: would decommission ${planned.length} deployments: ${planned.map(d => d.deployment_name).join(', ')}`
    )
  if (cluster.state) log.info(`Dry run: the state file \`${cluster.state.given}\` is not written`)
}
