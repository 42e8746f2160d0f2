/**
 * What a whole-cluster step recorded, kept between runs in `state-file`, so that the deployments
 * a later snapshot lacks can be decommissioned: the service has no list of a cluster's records.
 *
 * The file holds what the service holds as deployed for one cluster and environment, as far as
 * this step knows: it is written only once the service has taken the request (a set request
 * answered, a job completed), and a deployment the service rejected keeps what the file said
 * before (a rejected decommission stays listed, so the next run sends it again).
 */
import { homedir } from 'node:os'
import { isAbsolute, resolve } from 'node:path'
import * as z from 'zod/mini'
import type { Collector } from '../inputs/problems.js'
import { messageOf } from '../result.js'
import { withoutByteOrderMark } from '../text.js'
import { JOB_LIMIT, workloadKey, type ClusterItem, type Workload } from './items.js'

export const STATE_FORMAT = 'record-deployment/cluster-state'
/** Version 2 adds `workload` to an entry; a version-1 file is read as entries without it. */
export const STATE_VERSION = 2
const READ_VERSIONS: readonly number[] = [1, 2]
/** 5000 entries are well under 2 MB; a larger file is not one this action wrote. */
export const MAX_STATE_FILE_BYTES = 16 * 1024 * 1024
/** How many problems of a hand-edited file are named before the rest are counted. */
const LISTED_PROBLEMS = 5

/** One deployment the service holds as deployed: its key in the cluster, and its artifact. */
export interface StateEntry {
  deployment_name: string
  name: string
  digest: string
  version?: string
  /** as sent, so that a decommission resolves the artifact the same way */
  github_repository?: string
  /** `kubernetes-file` (version 2): while the file lists this object, the entry is kept */
  workload?: Workload
}

/** The file's content (format version 2, or 1 as read). */
export interface ClusterState {
  format: typeof STATE_FORMAT
  version: 1 | 2
  cluster: string
  logical_environment: string
  physical_environment?: string
  deployments: StateEntry[]
}

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
}

/** A cluster step as the state sees it; `ClusterInputs` is one. */
export interface StatefulCluster extends StateScope {
  items: ClusterItem[]
  state?: StatePlan
  /** `kubernetes-file`: deployment name to its object, and `workloadKey` of the objects listed */
  workloads?: ReadonlyMap<string, Workload>
  listedWorkloads?: ReadonlySet<string>
}

const text = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .check(
      z.minLength(1, { error: 'must not be empty' }),
      z.maxLength(max, { error: `must be at most ${max} characters` })
    )

const workloadSchema = () =>
  z.strictObject(
    {
      namespace: z.string({ error: 'must be a string' }).check(z.maxLength(253)),
      kind: z.enum(['Deployment', 'DaemonSet', 'StatefulSet', 'CronJob', 'Job', 'ReplicaSet'], {
        error: 'must be a workload kind'
      }),
      name: text(253)
    },
    { error: 'must be an object' }
  )

const entryFields = () => ({
  deployment_name: text(256),
  name: text(256),
  digest: z
    .string({ error: 'must be a string' })
    .check(z.regex(/^sha256:[0-9a-f]{64}$/, { error: 'must be sha256:<64 lower-case hex>' })),
  version: z.optional(text(100)),
  github_repository: z.optional(
    z
      .string({ error: 'must be a string' })
      .check(z.regex(/^[A-Za-z0-9.\-_]{1,100}$/, { error: 'must be a bare repository name' }))
  )
})

const stateSchema = (version: 1 | 2) =>
  z.strictObject(
    {
      format: z.literal(STATE_FORMAT),
      version: z.literal(version),
      cluster: text(128),
      logical_environment: text(128),
      physical_environment: z.optional(text(128)),
      deployments: z
        .array(
          z.strictObject(
            version === 1
              ? entryFields()
              : { ...entryFields(), workload: z.optional(workloadSchema()) },
            { error: 'must be an object' }
          ),
          { error: 'must be an array' }
        )
        .check(z.maxLength(JOB_LIMIT, { error: `must have at most ${JOB_LIMIT} entries` }))
    },
    { error: 'must be a JSON object' }
  )

/** Reads the file's content: the state, or what is wrong with it in the user's words. */
export function parseState(textContent: string): { state?: ClusterState; problems: string[] } {
  let value: unknown
  try {
    value = JSON.parse(withoutByteOrderMark(textContent))
  } catch (error) {
    return { problems: [`not valid JSON (${messageOf(error)})`] }
  }
  const head = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
  if (head['format'] !== STATE_FORMAT) return { problems: [`no \`format: ${STATE_FORMAT}\` field`] }
  const version = head['version']
  if (typeof version !== 'number' || !READ_VERSIONS.includes(version))
    return {
      problems: [
        `format version ${JSON.stringify(version)}, and this version of the action reads versions ${READ_VERSIONS.join(' and ')}`
      ]
    }
  const result = stateSchema(version as 1 | 2).safeParse(value)
  if (!result.success) {
    const problems = result.error.issues.map(issue => {
      const where = issue.path
        .map((key, i) =>
          typeof key === 'number' ? `[${key}]` : `${i > 0 ? '.' : ''}${String(key)}`
        )
        .join('')
      const message =
        issue.code === 'unrecognized_keys'
          ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map(k => `\`${k}\``).join(', ')}`
          : issue.code === 'invalid_type' && issue.input === undefined
            ? 'is required'
            : issue.message
      return where ? `${where}: ${message}` : message
    })
    return { problems }
  }
  const state = result.data as ClusterState
  const seen = new Set<string>()
  const problems: string[] = []
  state.deployments.forEach((entry, index) => {
    if (seen.has(entry.deployment_name))
      problems.push(
        `deployments[${index}].deployment_name: \`${entry.deployment_name}\` is listed twice`
      )
    seen.add(entry.deployment_name)
  })
  return problems.length > 0 ? { problems } : { state, problems }
}

export interface StateFiles {
  size(path: string): number
  read(path: string): string
}

/**
 * Reads `state-file` and works out the decommissions of this snapshot; every problem (unreadable
 * or hand-edited file, another cluster's file, a mass decommission not allowed) goes to `c`
 * before any request. Undefined when `state-file` is not given or something is wrong.
 */
export function planState(
  c: Collector,
  env: Record<string, string | undefined>,
  files: StateFiles,
  cluster: StatefulCluster,
  { snapshotInput, allowMass }: { snapshotInput: string; allowMass: boolean }
): StatePlan | undefined {
  const given = c.text('state-file')
  // `~/` is the home directory, as in actions/cache's `path`, which the README pairs it with.
  const home = /^~(?=$|\/)/.test(given) ? env['HOME'] || homedir() : undefined
  const path = home
    ? resolve(home, `.${given.slice(1)}`)
    : isAbsolute(given)
      ? given
      : resolve(env['GITHUB_WORKSPACE'] ?? process.cwd(), given)
  let content: string
  try {
    const size = files.size(path)
    if (size > MAX_STATE_FILE_BYTES) {
      c.problem(
        'state-file',
        `\`${given}\` is ${size} bytes; a state file is at most ${MAX_STATE_FILE_BYTES}`
      )
      return undefined
    }
    content = files.read(path)
  } catch (error) {
    const code = (error as { code?: string }).code
    // The first run, or a cache that had nothing to restore: nothing to decommission yet.
    if (code === 'ENOENT') return { given, path, decommissions: [], kept: [] }
    c.problem(
      'state-file',
      `cannot read \`${given}\`${code ? ` (${code})` : `: ${messageOf(error)}`}`
    )
    return undefined
  }
  const { state, problems } = parseState(content)
  if (!state) {
    const listed = problems.slice(0, LISTED_PROBLEMS)
    const more = problems.length - listed.length
    c.problem(
      'state-file',
      `\`${given}\` is not a state file this action can read: ${listed.join('; ')}${more > 0 ? `; ... and ${more} more` : ''}. ` +
        'It is written by this action: restore it as it was written, or delete it to start over ' +
        '(the deployments it listed are then never decommissioned by this step)'
    )
    return undefined
  }
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
  const lacking = state.deployments.filter(entry => !inSnapshot.has(entry.deployment_name))
  const kept = lacking.filter(stillListed)
  const decommissions = lacking
    .filter(entry => !stillListed(entry))
    .map(({ workload: _workload, ...entry }) => ({ ...entry, status: 'decommissioned' as const }))
  const listed = state.deployments.length
  if (!allowMass && decommissions.length * 2 > listed) {
    c.problem(
      snapshotInput,
      `lacks ${decommissions.length} of the ${listed} deployments that \`${given}\` lists, so ` +
        `${decommissions.length} would be decommissioned (${namesOf(decommissions)}): more than half. An empty or cut-short ` +
        'kubectl output, or the wrong cluster or filter, looks like this; if those workloads are ' +
        'really gone, set `allow-mass-decommission: true` for this run'
    )
    return undefined
  }
  return { given, path, previous: state, decommissions, kept }
}

/** The first few deployment names, and how many more. */
function namesOf(items: Array<{ deployment_name: string }>, shown = 5): string {
  const names = items.slice(0, shown).map(i => i.deployment_name)
  return names.join(', ') + (items.length > shown ? `, ... and ${items.length - shown} more` : '')
}

/** `cluster prod-eu-1 in production/eu-west-1`: how messages name a place. */
export function describeScope(s: StateScope): string {
  return `cluster ${s.cluster} in ${[s.logicalEnvironment, s.physicalEnvironment].filter(Boolean).join('/')}`
}
