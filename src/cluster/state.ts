// Over 300 lines: the file's whole life (read, checked against the snapshot, the guard, settled)
// shares one state and its problems; split, each part would pass them all around.
/**
 * What a whole-cluster step recorded, kept between runs in `state-file`, so that the deployments
 * a later snapshot lacks can be decommissioned: the service has no list of a cluster's records.
 *
 * The file holds what the service holds as deployed for one cluster and environment, as far as
 * this step knows (see settle-state.ts for how a run rewrites it). What a snapshot lacks is
 * decommissioned, except what this step cannot see: an idle workload `kubernetes-file` still
 * lists, and a namespace the current `namespaces` / `exclude-namespaces` leaves out.
 */
import { homedir } from 'node:os'
import { isAbsolute, resolve } from 'node:path'
import type { Collector } from '../inputs/problems.js'
import { namedAndMore } from '../runner/markdown.js'
import { messageOf } from '../shared/result.js'
import { workloadKey, type ClusterItem, type NamespaceFilter, type Workload } from './items.js'
import {
  MAX_STATE_ENTRIES,
  MAX_STATE_FILE_BYTES,
  parseState,
  type ClusterState,
  type StateEntry
} from './state-format.js'

/** How many problems of a hand-edited file are named before the rest are counted. */
const LISTED_PROBLEMS = 5

/** Where the records of a step live: the state file must be of the same place. */
export interface StateScope {
  cluster: string
  logicalEnvironment: string
  physicalEnvironment?: string
}

/** What `state-file` gives a run, worked out before any request. */
export interface StatePlan {
  /** the path as the user gave it, for messages */
  given: string
  /** absolute */
  path: string
  /** undefined on the first run: no file yet */
  previous?: ClusterState
  /** what the state lists and the snapshot lacks, as items with `status: decommissioned` */
  decommissions: ClusterItem[]
  /** what the snapshot lacks but whose workload `kubernetes-file` still lists: kept as it is */
  kept: StateEntry[]
  /** what the snapshot lacks as the namespace filter leaves its namespace out: kept as it is */
  filtered: StateEntry[]
  /** the input of that filter, for the log */
  filterInput?: NamespaceFilter['input']
  /**
   * what the snapshot lacks but names another repository than this run records for: kept as it
   * is, never decommissioned (the file is restored from a cache others may write)
   */
  foreign?: StateEntry[]
  /** said before anything is sent: the foreign entries kept */
  warnings?: string[]
}

/** A cluster step as the state sees it; `ClusterInputs` is one. */
export interface StatefulCluster extends StateScope {
  items: ClusterItem[]
  state?: StatePlan
  /** `kubernetes-file`: deployment name to its object, and `workloadKey` of the objects listed */
  workloads?: ReadonlyMap<string, Workload>
  listedWorkloads?: ReadonlySet<string>
  namespaceFilter?: NamespaceFilter
  /**
   * The repositories this run records for besides those its items name (`repository`'s name,
   * `kubernetes-repository`): a state entry naming any other is never decommissioned.
   */
  repositories?: readonly string[]
}

export interface StateFiles {
  size(path: string): number
  /** throws past `maxBytes`, counted while reading */
  read(path: string, maxBytes: number): string
  /** Why a file at `path` could not be written (a directory on the way is not writable), if so. */
  writable?(path: string): string | undefined
}

/** Said with every refused file: in the cache flow, deleting the workspace's copy is not enough. */
const IF_CACHED =
  'If actions/cache restored it, delete the cache entries under the key prefix the restore step ' +
  'names (Actions > Caches, or `gh cache delete <key>` for each): else the next run restores ' +
  'the same file, and the save step saves it again'

/**
 * Reads `state-file` and works out the decommissions of this snapshot; every problem (unreadable
 * or hand-edited file, another cluster's file, an unwritable directory, more entries than a
 * state file holds, a mass decommission not allowed) goes to `c` before any request. Undefined
 * when `state-file` is not given or something is wrong.
 */
export function planState(
  c: Collector,
  env: Record<string, string | undefined>,
  files: StateFiles,
  cluster: StatefulCluster,
  { snapshotInput, allowMass }: { snapshotInput: string; allowMass: boolean }
): StatePlan | undefined {
  const given = c.text('state-file')
  // `~/` is the home directory, as in actions/cache's `path`, which docs/state-file.md pairs it with.
  const home = /^~(?=$|\/)/.test(given) ? env['HOME'] || homedir() : undefined
  const path = home
    ? resolve(home, `.${given.slice(1)}`)
    : isAbsolute(given)
      ? given
      : resolve(env['GITHUB_WORKSPACE'] ?? process.cwd(), given)
  const read = readStateFile(c, files, given, path)
  if (read === undefined) return undefined
  // Found now, not once the records are written: the step would record and then lose the state.
  const unwritable = files.writable?.(path)
  if (unwritable !== undefined) {
    c.problem(
      'state-file',
      `\`${given}\` cannot be written: ${unwritable}. The step writes the state file after the ` +
        'request; give a path in a writable directory'
    )
    return undefined
  }
  if (read === 'none') return checkedSize(c, given, cluster, { given, path, ...NOTHING })
  const state = read
  const theirs: StateScope = {
    cluster: state.cluster,
    logicalEnvironment: state.logical_environment,
    physicalEnvironment: state.physical_environment
  }
  if (
    theirs.cluster !== cluster.cluster ||
    theirs.logicalEnvironment !== cluster.logicalEnvironment ||
    (theirs.physicalEnvironment ?? '') !== (cluster.physicalEnvironment ?? '')
  ) {
    c.problem(
      'state-file',
      `\`${given}\` holds the deployments of ${describeScope(theirs)}, not of ${describeScope(cluster)}: each cluster and environment ` +
        'needs its own state file (e.g. a cache key with the cluster and environment in it)'
    )
    return undefined
  }
  const inSnapshot = new Set(cluster.items.map(item => item.deployment_name))
  // A workload `kubernetes-file` still lists, with no running pod in it, is not gone (scaled to
  // zero, pending, a CronJob between runs): as GitHub's tracker, which decommissions on deletion.
  // One whose pods run gives this snapshot's names: a name it no longer gives (a renamed
  // container, a new template) is gone.
  const running = new Set(
    cluster.items.flatMap(item => {
      const w = cluster.workloads?.get(item.deployment_name)
      return w ? [workloadKey(w)] : []
    })
  )
  const stillListed = (entry: StateEntry) =>
    entry.workload !== undefined &&
    (cluster.listedWorkloads?.has(workloadKey(entry.workload)) ?? false) &&
    !running.has(workloadKey(entry.workload))
  // A namespace the filter leaves out is not read, so its workloads are not seen: not gone. An
  // entry without its workload (a version-1 file, a deployments array) names no namespace.
  const filter = cluster.namespaceFilter
  const leftOut = (entry: StateEntry) =>
    filter !== undefined && entry.workload !== undefined && !filter.wanted(entry.workload.namespace)
  // An entry of another repository than this run records for was not written by this run's
  // workflow (the file comes from a cache that other runs can write, docs/state-file.md): its
  // records are not this run's to decommission. Kept, warned, and left out of the guard's count,
  // so that such entries cannot pad the file until a mass decommission looks like half of it.
  const own = new Set(
    [...(cluster.repositories ?? []), ...cluster.items.flatMap(i => i.github_repository ?? [])].map(
      r => r.toLowerCase()
    )
  )
  // An entry naming no repository counts as this run's: the tracker without
  // `kubernetes-repository` writes such entries, and a later run may record the same cluster
  // from `deployments-file` (docs/state-file.md says so, and what it leaves open).
  const ofOthers = (entry: StateEntry) =>
    entry.github_repository !== undefined && !own.has(entry.github_repository.toLowerCase())
  const lackingAll = state.deployments.filter(entry => !inSnapshot.has(entry.deployment_name))
  const foreign = lackingAll.filter(ofOthers)
  const lacking = lackingAll.filter(entry => !ofOthers(entry))
  const filtered = lacking.filter(leftOut)
  const seen = lacking.filter(entry => !leftOut(entry))
  const kept = seen.filter(stillListed)
  const decommissions = seen
    .filter(entry => !stillListed(entry))
    .map(({ workload: _w, decommission_rejections: _r, ...entry }) => ({
      ...entry,
      status: 'decommissioned' as const
    }))
  const listed = state.deployments.length - filtered.length - foreign.length
  if (!allowMass && decommissions.length * 2 > listed) {
    c.problem(
      snapshotInput,
      `lacks ${decommissions.length} of the ${listed} deployments that \`${given}\` lists` +
        (filtered.length > 0 ? ` in the namespaces \`${filter?.input}\` keeps` : '') +
        `, so ${decommissions.length} would be decommissioned (${namesOf(decommissions)}): more than half. An empty or cut-short ` +
        'kubectl output, or the wrong cluster or filter, looks like this; if those workloads are ' +
        'really gone, set `allow-mass-decommission: true` for this run'
    )
    return undefined
  }
  return checkedSize(c, given, cluster, {
    given,
    path,
    previous: state,
    decommissions,
    kept,
    filtered,
    ...(filtered.length > 0 && filter ? { filterInput: filter.input } : {}),
    foreign,
    warnings: foreign.length > 0 ? [foreignWarning(given, foreign)] : []
  })
}

const NOTHING = { decommissions: [], kept: [], filtered: [] }

/** The entries of other repositories kept: what they are, and what to do about them. */
function foreignWarning(given: string, foreign: StateEntry[]): string {
  const repositories = [...new Set(foreign.map(e => `\`${e.github_repository}\``))].sort()
  return (
    `\`${given}\` lists deployments of ${repositories.join(', ')}, a repository this run does not ` +
    `record for, that the snapshot lacks: ${namesOf(foreign)}. Kept, not decommissioned; if this ` +
    `workflow never recorded them, someone else wrote the file (docs/state-file.md). ${IF_CACHED}`
  )
}

/** The file's state, `none` when there is no file yet, undefined when it is refused. */
function readStateFile(
  c: Collector,
  files: StateFiles,
  given: string,
  path: string
): ClusterState | 'none' | undefined {
  let content: string
  try {
    const size = files.size(path)
    if (size > MAX_STATE_FILE_BYTES) {
      c.problem(
        'state-file',
        `\`${given}\` is ${size} bytes; a state file is at most ${MAX_STATE_FILE_BYTES}, so this ` +
          `one was not written by this action. ${IF_CACHED}`
      )
      return undefined
    }
    content = files.read(path, MAX_STATE_FILE_BYTES)
  } catch (error) {
    const code = (error as { code?: string }).code
    // The first run, or a cache that had nothing to restore: nothing to decommission yet.
    if (code === 'ENOENT') return 'none'
    c.problem(
      'state-file',
      `cannot read \`${given}\`${code ? ` (${code})` : `: ${messageOf(error)}`}`
    )
    return undefined
  }
  const { state, problems } = parseState(content)
  if (state) return state
  c.problem(
    'state-file',
    `\`${given}\` is not a state file this action can read: ${namedAndMore(problems, LISTED_PROBLEMS, '; ')}. ` +
      'It is written by this action: restore it as it was written, or delete it to start over ' +
      `(the deployments it listed are then never decommissioned by this step). ${IF_CACHED}`
  )
  return undefined
}

/**
 * The most this run can write is the previous entries and every deployment it sends (a request
 * the service may have applied unconfirmed keeps both): past MAX_STATE_ENTRIES, the run is
 * refused now, so that no file is written that the next run could not read.
 */
function checkedSize(
  c: Collector,
  given: string,
  cluster: StatefulCluster,
  plan: StatePlan
): StatePlan | undefined {
  const names = new Set(cluster.items.map(item => item.deployment_name))
  for (const entry of plan.previous?.deployments ?? []) names.add(entry.deployment_name)
  if (names.size <= MAX_STATE_ENTRIES) return plan
  const kept = plan.kept.length + plan.filtered.length + (plan.foreign?.length ?? 0)
  c.problem(
    'state-file',
    `\`${given}\` would list up to ${names.size} deployments (${cluster.items.length} in the snapshot, ` +
      `${plan.previous?.deployments.length ?? 0} listed before${kept > 0 ? `, ${kept} of them kept though the snapshot lacks them` : ''}); ` +
      `a state file lists at most ${MAX_STATE_ENTRIES}: split the cluster over steps with ` +
      '`namespaces` / `exclude-namespaces`, each with its own state file'
  )
  return undefined
}

/** The first few deployment names, and how many more. */
function namesOf(items: Array<{ deployment_name: string }>, shown = 5): string {
  return namedAndMore(
    items.map(i => i.deployment_name),
    shown
  )
}

/** `cluster prod-eu-1 in production/eu-west-1`: how messages name a place. */
export function describeScope(s: StateScope): string {
  return `cluster ${s.cluster} in ${[s.logicalEnvironment, s.physicalEnvironment].filter(Boolean).join('/')}`
}
