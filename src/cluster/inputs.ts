import { lstatSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import * as z from 'zod/mini'
import { readText, nameText, booleanSchema, clusterSchema, oneOf } from '../inputs/fields.js'
import { INPUT_DEFAULTS, type RawInputs } from '../inputs/names.js'
import { Collector, type Parsed } from '../inputs/problems.js'
import { FileRefused, readRegularFile, regularFileSize } from '../shared/files.js'
import { notJsonReason, withoutByteOrderMark } from '../shared/text.js'
import {
  JOB_LIMIT,
  SYNC_LIMIT,
  validateClusterItems,
  type ClusterItem,
  type Workload
} from './items.js'
import { readKubernetesItems } from './kubernetes/inputs.js'
import { planState, type StatePlan } from './state.js'

export const CLUSTER_MODES = ['auto', 'sync', 'job'] as const
export const DEFAULT_JOB_TIMEOUT_SECONDS = Number(INPUT_DEFAULTS['job-timeout'])
/** A service job runs for at most six hours; waiting longer than that cannot help. */
export const MAX_JOB_TIMEOUT_SECONDS = 6 * 60 * 60
/** Far above 5000 deployments of JSON; a larger file is a mistake, not a cluster. */
export const MAX_DEPLOYMENTS_FILE_BYTES = 64 * 1024 * 1024

/** A whole cluster: many deployments in one set request or one background job. */
export interface ClusterInputs {
  cluster: string
  logicalEnvironment: string
  physicalEnvironment?: string
  items: ClusterItem[]
  /** `auto` already resolved by the item count. */
  mode: 'sync' | 'job'
  partialSuccess: boolean
  jobTimeoutSeconds: number
  /** What deriving the items from `kubernetes-file` skipped, said before anything is sent. */
  warnings?: string[]
  /** `state-file`: its decommissions are already in `items` (status `decommissioned`). */
  state?: StatePlan
  /** `kubernetes-file`: each deployment's object, and the objects listed (see `Workload`). */
  workloads?: ReadonlyMap<string, Workload>
  listedWorkloads?: ReadonlySet<string>
}

/** How the inputs read files (tests give their own). */
export interface FileReader {
  /** throws for anything but a regular file */
  size(path: string): number
  /** throws past `maxBytes`, counted while reading */
  read(path: string, maxBytes: number): string
  /** Why a file at `path` could not be written, if so (unchecked when absent). */
  writable?(path: string): string | undefined
}

const diskReader: FileReader = {
  size: regularFileSize,
  read: (path, maxBytes) => readRegularFile(path, maxBytes).toString('utf8'),
  writable: directoryProblem
}

/**
 * Why a file at `path` could not be created: the nearest directory on its way that exists must
 * be a directory the step can write in (the rest is created when the file is written). Tried
 * with an empty file, removed at once, not read from the mode: root writes anywhere but on a
 * read-only mount or in /proc.
 */
export function directoryProblem(path: string): string | undefined {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    let directory: boolean
    try {
      directory = statSync(dir).isDirectory()
    } catch (error) {
      const code = (error as { code?: string }).code
      if (code === 'ENOENT' && lstatSync(dir, { throwIfNoEntry: false }))
        return `\`${dir}\` is a symbolic link to nothing`
      if ((code === 'ENOENT' || code === 'ENOTDIR') && dirname(dir) !== dir) continue
      return `\`${dir}\` cannot be read (${code ?? String(error)})`
    }
    if (!directory) return `\`${dir}\` is not a directory`
    // Named as the writer's temporary file (`<name>.<pid>-<n>.tmp`, settle-state.ts), or longer:
    // a name the file system refuses for it is found now, not after the request.
    const probe = join(dir, `${basename(path)}.${process.pid}-probe.tmp`)
    try {
      writeFileSync(probe, '', { flag: 'wx' })
      rmSync(probe, { force: true })
      return undefined
    } catch (error) {
      const code = (error as { code?: string }).code
      if (code === 'ENAMETOOLONG')
        return `the name \`${basename(path)}\` is too long (ENAMETOOLONG) for the temporary file the step writes beside it: shorten it`
      return `the directory \`${dir}\` is not writable (${code ?? String(error)})`
    }
  }
}

type Env = Record<string, string | undefined>

/** Whether the inputs ask for a whole cluster. */
export function wantsWholeCluster(raw: RawInputs): boolean {
  return [raw['deployments'], raw['deployments-file'], raw['kubernetes-file']].some(
    v => (v ?? '').trim() !== ''
  )
}

/**
 * A whole cluster from `deployments` or `deployments-file`, with `cluster` and `environment`.
 * Without either, only its own inputs are checked: given, they belong to a whole cluster.
 */
export function parseClusterInputs(
  raw: RawInputs,
  env: Env,
  files: FileReader = diskReader,
  { serviceRepository, org }: { serviceRepository?: string; org?: string } = {}
): Parsed<ClusterInputs> {
  const c = new Collector(raw)
  const mode = c.take('cluster-mode', z.enum(CLUSTER_MODES, { error: oneOf(CLUSTER_MODES) }))
  const partialSuccess = c.take('partial-success', booleanSchema)
  const jobTimeout = c.take('job-timeout', jobTimeoutSchema)
  const kubernetes = readKubernetesItems(c, env, { org })
  const allowMass = c.take('allow-mass-decommission', booleanSchema)
  if (allowMass !== undefined && !c.given('state-file'))
    c.problem('allow-mass-decommission', 'belongs to `state-file`')
  if (!wantsWholeCluster(raw)) {
    c.refuseGiven(
      ['cluster-mode', 'partial-success', 'job-timeout', 'state-file'],
      'belongs to a whole cluster, which needs `deployments`, `deployments-file` or `kubernetes-file`'
    )
    return { problems: c.problems }
  }

  let items = c.given('kubernetes-file')
    ? kubernetes?.items
    : readItems(c, env, files, serviceRepository)
  const input = c.given('kubernetes-file')
    ? 'kubernetes-file'
    : c.given('deployments')
      ? 'deployments'
      : 'deployments-file'
  const environment = c.take('environment', nameText(1, 128))
  const physicalEnvironment = c.take('physical-environment', nameText(1, 128))
  const cluster = c.take('cluster', clusterSchema)
  if (environment === undefined && !c.failed('environment'))
    c.problem('environment', 'is required for a whole cluster')
  if (cluster === undefined && !c.failed('cluster'))
    c.problem('cluster', 'is required for a whole cluster')
  let state: StatePlan | undefined
  if (items && environment && cluster && c.given('state-file')) {
    // The repositories this run records for besides its items': no other's entry is decommissioned.
    const named = c.failed('kubernetes-repository') ? '' : c.text('kubernetes-repository')
    const where = {
      cluster,
      logicalEnvironment: environment,
      physicalEnvironment,
      items,
      repositories: [serviceRepository ?? '', named.split('/').pop() ?? ''].filter(Boolean),
      ...(kubernetes
        ? {
            workloads: kubernetes.workloads,
            listedWorkloads: kubernetes.listedWorkloads,
            namespaceFilter: kubernetes.namespaceFilter
          }
        : {})
    }
    state = planState(c, env, files, where, { snapshotInput: input, allowMass: allowMass ?? false })
    // The deployments the state lists and the snapshot lacks go in the same request.
    if (state) items = [...items, ...state.decommissions]
  }
  if (items !== undefined && items.length === 0 && input !== 'kubernetes-file') {
    if (!c.failed('state-file') && !c.failed(input))
      c.problem(input, 'is an empty array: there is nothing to record')
  } else if (items !== undefined) {
    const count = items.length
    // The decommissions from `state-file` count: the message says so, or the numbers look wrong.
    const gone = state?.decommissions.length ?? 0
    const counted = gone > 0 ? ` (with the ${gone} decommissions from \`state-file\`)` : ''
    if (count > JOB_LIMIT && input === 'kubernetes-file') {
      c.problem(input, tooManyFromKubernetes(count, counted))
    } else if (count > JOB_LIMIT) {
      c.problem(
        input,
        `has ${count} deployments${counted}; one step records at most ${JOB_LIMIT} (split the cluster)`
      )
    } else if (mode === 'sync' && count > SYNC_LIMIT) {
      c.problem(
        input,
        `has ${count} deployments${counted}; \`cluster-mode: sync\` sends at most ${SYNC_LIMIT} (use job or auto)`
      )
    }
  }
  if (c.problems.length > 0 || !items || !environment || !cluster) return { problems: c.problems }
  return {
    value: {
      cluster,
      logicalEnvironment: environment,
      physicalEnvironment,
      items,
      mode: mode === 'sync' || mode === 'job' ? mode : items.length > SYNC_LIMIT ? 'job' : 'sync',
      partialSuccess: partialSuccess ?? false,
      jobTimeoutSeconds: jobTimeout ?? DEFAULT_JOB_TIMEOUT_SECONDS,
      ...(state?.warnings?.length ? { warnings: state.warnings } : {}),
      ...(kubernetes
        ? {
            warnings: [...kubernetes.warnings, ...(state?.warnings ?? [])],
            workloads: kubernetes.workloads,
            listedWorkloads: kubernetes.listedWorkloads
          }
        : {}),
      ...(state ? { state } : {})
    },
    problems: c.problems
  }
}

/** The cluster's deployments from `deployments` or `deployments-file`, read as data only. */
function readItems(
  c: Collector,
  env: Env,
  files: FileReader,
  serviceRepository: string | undefined
): ClusterItem[] | undefined {
  if (c.given('deployments') && c.given('deployments-file')) {
    c.problem('deployments-file', 'give either `deployments` or `deployments-file`, not both')
    return undefined
  }
  const input = c.given('deployments') ? 'deployments' : 'deployments-file'
  let text: string
  if (input === 'deployments') {
    text = c.text('deployments')
  } else {
    const given = c.text('deployments-file')
    const path = isAbsolute(given)
      ? given
      : resolve(env['GITHUB_WORKSPACE'] ?? process.cwd(), given)
    try {
      const size = files.size(path)
      if (size > MAX_DEPLOYMENTS_FILE_BYTES) {
        c.problem(
          input,
          `\`${given}\` is ${size} bytes; at most ${MAX_DEPLOYMENTS_FILE_BYTES} are read`
        )
        return undefined
      }
      // Editors on Windows often start a UTF-8 file with a byte-order mark; JSON.parse refuses it.
      text = withoutByteOrderMark(files.read(path, MAX_DEPLOYMENTS_FILE_BYTES))
    } catch (error) {
      if (error instanceof FileRefused) {
        c.problem(input, `\`${given}\` ${error.message}`)
        return undefined
      }
      const code = (error as { code?: string }).code
      c.problem(
        input,
        `cannot read \`${given}\`${code === 'ENOENT' ? ': no such file' : code ? ` (${code})` : ''}`
      )
      return undefined
    }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    c.problem(input, notJsonReason(text, error))
    return undefined
  }
  // With `state-file`, an empty snapshot may still decommission what the file lists: whether
  // anything is left to send is known once the state is read.
  const { items, problems } = validateClusterItems(
    parsed,
    input,
    { github_repository: serviceRepository },
    { allowEmpty: c.given('state-file') }
  )
  for (const p of problems) c.problem(p.input, p.message)
  return problems.length === 0 ? items : undefined
}

/**
 * One job takes at most JOB_LIMIT deployments. Splitting a bigger cluster into consecutive jobs
 * would leave it half recorded when a later job fails or times out, under one `job-id`; the
 * namespace filters split it into steps the user can see and rerun.
 */
function tooManyFromKubernetes(count: number, counted = ''): string {
  return (
    `gives ${count} deployments (one per container)${counted}; one step records at most ${JOB_LIMIT}: ` +
    'split the cluster over several steps with `namespaces` / `exclude-namespaces`'
  )
}

const jobTimeoutSchema = readText((value, problem) => {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_JOB_TIMEOUT_SECONDS) {
    problem(`\`${value}\` is not a whole number of seconds from 1 to ${MAX_JOB_TIMEOUT_SECONDS}`)
    return z.NEVER
  }
  return n
})
