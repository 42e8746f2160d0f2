// Over 300 lines on purpose: the three ways a request can end (confirmed, unconfirmed, refused)
// settle one file in one place, beside the log lines that say which it was.
/**
 * After the cluster request: the `decommissioned` output, and `state-file` rewritten with what the
 * service holds as deployed, as far as the step can tell:
 * - the service answered (a set request, a job completed): each deployment it accepted as sent (a
 *   decommissioned one leaves), each it rejected as the file had it; a decommission rejected on
 *   MAX_DECOMMISSION_REJECTIONS runs in a row is given up, with a warning naming it;
 * - it may have applied the request, but no answer says what (a lost answer, a timeout, a job that
 *   failed or was not followed to its end): every entry the file listed stays as it was, and each
 *   deployment sent as deployed that it did not list is added, so the next run decommissions what
 *   then vanishes (a decommission of a record never created is harmless) and sends the
 *   unconfirmed decommissions again;
 * - it answered that it applied nothing (a 4xx): the file is left as it was.
 * The file is replaced whole (a temporary file renamed over it), never half written.
 */
import { dirname } from 'node:path'
import { CancelledError } from '../client/cancel.js'
import { ServiceError } from '../client/errors.js'
import type { Log } from '../client/log.js'
import { messageOf, type DecommissionedDeployment, type RunResult } from '../shared/result.js'
import type { SkippedDeployment } from '../service/artifacts.js'
import { shortDigest } from '../shared/text.js'
import type { ClusterItem, Workload } from './items.js'
import {
  MAX_DECOMMISSION_REJECTIONS,
  STATE_FORMAT,
  STATE_VERSION,
  stateText,
  type ClusterState,
  type StateEntry
} from './state-format.js'
import { describeScope, type StatefulCluster } from './state.js'

/** What the request came to, as far as the state goes. */
export type RequestOutcome = 'confirmed' | 'unconfirmed' | 'refused'

/**
 * Whether the service may have applied a request that ended in `error`: anything but a refusal
 * of every attempt (each answered with a 4xx) or a service never reached. A retry refused after
 * an attempt that got no answer or a 5xx (a rate limit that outlasts the step) does not undo it.
 */
export function mayHaveApplied(error: unknown): boolean {
  if (!(error instanceof ServiceError) || error instanceof CancelledError) return true
  if (error.unanswered > 0 || error.serverErrors > 0) return true
  return error.status >= 500
}

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

/** The deployment names `rejected` names; `unnamed` when a rejection names none. */
function rejectedNamesOf(
  cluster: StatefulCluster,
  rejected: SkippedDeployment[]
): { names: Set<string>; unnamed: boolean } {
  const names = new Set<string>()
  let unnamed = false
  for (const entry of rejected) {
    const deployment = entry.deployment ?? {}
    if (typeof deployment.deployment_name === 'string') {
      names.add(deployment.deployment_name)
      continue
    }
    const artifact = deployment.name ?? (entry as { name?: unknown }).name
    if (typeof artifact !== 'string') {
      unnamed = true
      continue
    }
    for (const item of cluster.items) {
      if (item.name === artifact && (!deployment.digest || deployment.digest === item.digest))
        names.add(item.deployment_name)
    }
  }
  return { names, unnamed }
}

/** A decommission the service rejected on `runs` runs in a row, no longer sent. */
export interface GivenUp {
  deployment: DecommissionedDeployment
  runs: number
}

/**
 * The state after the request. `confirmed`: the service answered, so each deployment it accepted
 * is as sent (a decommissioned one leaves the list) and each it rejected as the previous state had
 * it. A rejection names its deployment, or only the artifact (the flat `{name, cause}` of GitHub's
 * tracker): then every deployment of that artifact counts as rejected, as the causes (no
 * attestation for the digest, a repository out of reach) are the artifact's. Undefined when a
 * rejection names neither: which deployment it was cannot be told (the caller then settles it as
 * unconfirmed). Not `confirmed`: every previous entry stays as it was (an unconfirmed
 * decommission is owed to the next run), and each deployment sent as deployed, not rejected and
 * not listed before is added.
 */
export function settledState(
  cluster: StatefulCluster,
  rejected: SkippedDeployment[],
  confirmed = true
):
  | {
      state: ClusterState
      decommissioned: DecommissionedDeployment[]
      /** rejected decommissions: given up, and those still owed to the next run */
      givenUp: GivenUp[]
      owed: GivenUp[]
    }
  | undefined {
  const { names: rejectedNames, unnamed } = rejectedNamesOf(cluster, rejected)
  if (unnamed && confirmed) return undefined
  const before = new Map(
    (cluster.state?.previous?.deployments ?? []).map(e => [e.deployment_name, e] as const)
  )
  const now = new Map<string, StateEntry>()
  const decommissioned: DecommissionedDeployment[] = []
  const givenUp: GivenUp[] = []
  const owed: GivenUp[] = []
  for (const item of cluster.items) {
    const name = item.deployment_name
    const previous = before.get(name)
    if (item.status !== 'decommissioned') {
      // Unconfirmed, an entry the file had stays: the service held it, and a decommission sent
      // as it says resolves the artifact the way the service took it (not perhaps as sent now).
      if (!rejectedNames.has(name) && !(previous && !confirmed))
        now.set(name, entryOf(item, cluster.workloads?.get(name)))
      else if (previous) now.set(name, withoutRejections(previous))
    } else if (!confirmed) {
      if (previous) now.set(name, previous)
    } else if (!rejectedNames.has(name)) {
      decommissioned.push(entryOf(item))
    } else {
      const runs = (previous?.decommission_rejections ?? 0) + 1
      if (runs >= MAX_DECOMMISSION_REJECTIONS) givenUp.push({ deployment: entryOf(item), runs })
      else if (previous) {
        now.set(name, { ...previous, decommission_rejections: runs })
        owed.push({ deployment: entryOf(item), runs })
      }
    }
  }
  // Not in the snapshot, but its workload is still listed (not gone after all: a rejected
  // decommission's count goes) or the namespace filter leaves it out (not seen: kept as the file
  // had it, count included), so that a later run decommissions it once it is seen gone.
  for (const entry of cluster.state?.kept ?? [])
    now.set(entry.deployment_name, withoutRejections(entry))
  for (const entry of cluster.state?.filtered ?? []) now.set(entry.deployment_name, entry)
  // Of another repository than this run records for: never this run's to decommission, kept as
  // the file had it (its warning was said before the request).
  for (const entry of cluster.state?.foreign ?? []) now.set(entry.deployment_name, entry)
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
  return { state, decommissioned, givenUp, owed }
}

function withoutRejections(entry: StateEntry): StateEntry {
  const { decommission_rejections: _runs, ...rest } = entry
  return rest
}

let temporaryFiles = 0

/** Writes the state whole or not at all: a temporary file beside it, renamed over it. */
export async function writeState(path: string, state: ClusterState): Promise<void> {
  // Loaded here, when a state file is written: fs/promises brings readline along at start-up.
  const { mkdir, rename, rm, writeFile } = await import('node:fs/promises')
  await mkdir(dirname(path), { recursive: true })
  const temporary = `${path}.${process.pid}-${++temporaryFiles}.tmp`
  try {
    await writeFile(temporary, stateText(state), { flag: 'wx' })
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}

/**
 * After the cluster request: the `decommissioned` output, and the state file as the outcome
 * allows (see the top of this file).
 */
export async function settleClusterState(
  cluster: StatefulCluster,
  outcome: RequestOutcome,
  rejected: SkippedDeployment[],
  result: RunResult,
  log: Log
): Promise<void> {
  const plan = cluster.state
  const settled = outcome === 'confirmed' ? settledState(cluster, rejected) : undefined
  if (settled) {
    result.decommissioned.push(...settled.decommissioned)
    if (settled.decommissioned.length > 0)
      log.info(
        `Decommissioned ${settled.decommissioned.length} deployments: ${settled.decommissioned.map(d => d.deployment_name).join(', ')}`
      )
  }
  if (!plan) return
  if (outcome === 'refused') {
    log.warning(
      `The state file \`${plan.given}\` was left as it was: the service refused the request, so ` +
        'nothing was applied and the next run sends the same decommissions again'
    )
    return
  }
  const state = settled?.state ?? settledState(cluster, rejected, false)?.state
  if (!state) return
  for (const { deployment, runs } of settled?.givenUp ?? [])
    log.warning(
      `Gave up decommissioning ${deployment.deployment_name} (${deployment.name}@${shortDigest(deployment.digest)}): ` +
        `the service rejected its decommission on ${runs} runs in a row, so it is no longer listed in ` +
        `\`${plan.given}\` and no later run sends it; its record, if the service has one, stays as it is`
    )
  for (const { deployment, runs } of settled?.owed ?? [])
    log.info(
      `The decommission of ${deployment.deployment_name} was rejected (${runs} of at most ` +
        `${MAX_DECOMMISSION_REJECTIONS} runs in a row): it stays in the state file, and the next run sends it again`
    )
  try {
    await writeState(plan.path, state)
    log.info(
      `State file \`${plan.given}\` written: ${state.deployments.length} deployments of ${describeScope(cluster)}` +
        (settled
          ? ''
          : ` (${outcome === 'confirmed' ? 'a deployment the service rejected is not named in its answer' : 'the service did not confirm the request'}: ` +
            'every entry it listed is kept and each new deployment sent as deployed is added, so the next ' +
            'run sends the same decommissions again and decommissions what vanishes by then)')
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
  const filtered = plan.filtered
  const foreign = plan.foreign ?? []
  log.info(
    `State file \`${plan.given}\` lists ${plan.previous.deployments.length} deployments; ` +
      (gone.length === 0 && kept.length === 0 && filtered.length === 0 && foreign.length === 0
        ? 'the snapshot has every one'
        : [
            ...(filtered.length > 0 ? [leftOutByFilter(filtered, plan.filterInput)] : []),
            ...(foreign.length > 0
              ? [`${foreign.length} of other repositories kept (see the warning above)`]
              : []),
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

/** What the namespace filter left out, by namespace: kept, as this run cannot see them. */
function leftOutByFilter(entries: StateEntry[], input = 'the namespace filter'): string {
  const counts = new Map<string, number>()
  for (const e of entries) {
    const ns = e.workload?.namespace ?? ''
    counts.set(ns, (counts.get(ns) ?? 0) + 1)
  }
  const namespaces = [...counts].map(([ns, n]) => `${ns} (${n})`).join(', ')
  return (
    `${entries.length} not in the snapshot ${entries.length === 1 ? 'is' : 'are'} kept, not decommissioned, ` +
    `as \`${input}\` leaves ${counts.size === 1 ? 'namespace' : 'namespaces'} ${namespaces} out of this run: ` +
    entries.map(d => d.deployment_name).join(', ')
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
