import { readFileSync, statSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { z } from 'zod'
import { DEFAULT_API_VERSION } from './client/client.js'
import { JOB_LIMIT, SYNC_LIMIT, validateClusterItems, type ClusterItem } from './cluster/items.js'
import { LABEL_INPUT_NAMES, parseLabelInputs, type LabelInputs } from './labels/inputs.js'
import { hasControlCharacters, splitList } from './text.js'
import {
  DEPLOYMENT_STATUSES,
  MAX_TAGS,
  RUNTIME_RISKS,
  STORAGE_STATUSES,
  type InputProblem,
  type RuntimeRisk
} from './limits.js'

/** Every input the action reads, as action.yml declares them. */
export const INPUT_NAMES = [
  'token',
  'api-url',
  'api-version',
  'org',
  'repository',
  'digest',
  'name',
  'version',
  'status',
  'environment',
  'physical-environment',
  'cluster',
  'deployment-name',
  'tags',
  'runtime-risks',
  'registry-url',
  'artifact-url',
  'registry-repository',
  'storage-path',
  'storage-status',
  'deployments',
  'deployments-file',
  'cluster-mode',
  'partial-success',
  'job-timeout',
  ...LABEL_INPUT_NAMES,
  'dry-run',
  'max-retries'
] as const

export type InputName = (typeof INPUT_NAMES)[number]
export type RawInputs = Partial<Record<InputName, string>>

/**
 * The literal defaults action.yml declares. The runner fills them in whenever a workflow gives
 * none, so such a value says nothing about what the user wants: it is read as an empty input,
 * and no "belongs to" rule fires on it. (The `${{ github.* }}` defaults of `token`, `api-url` and
 * `repository` evaluate to the run's own values, which are the fallbacks anyway.)
 */
export const INPUT_DEFAULTS = {
  'api-version': DEFAULT_API_VERSION,
  status: 'deployed',
  'storage-status': 'active',
  'cluster-mode': 'auto',
  'partial-success': 'false',
  'job-timeout': '300',
  'pull-requests': 'auto',
  'label-linked-issues': 'false',
  'dry-run': 'false',
  'max-retries': '3'
} as const satisfies RawInputs

/** `raw` with every value that equals its documented default (case aside) made empty. */
export function withoutDefaults(raw: RawInputs): RawInputs {
  const chosen: RawInputs = { ...raw }
  for (const [name, value] of Object.entries(INPUT_DEFAULTS) as Array<[InputName, string]>) {
    if ((raw[name] ?? '').trim().toLowerCase() === value) chosen[name] = ''
  }
  return chosen
}

export { DEPLOYMENT_STATUSES, MAX_TAGS, RUNTIME_RISKS, STORAGE_STATUSES }
export type { InputProblem, RuntimeRisk }
export { splitList }
export const MAX_RETRIES_LIMIT = 10
export const DEFAULT_MAX_RETRIES = Number(INPUT_DEFAULTS['max-retries'])
export const DEFAULT_API_URL = 'https://api.github.com'
export const CLUSTER_MODES = ['auto', 'sync', 'job'] as const
export const DEFAULT_JOB_TIMEOUT_SECONDS = Number(INPUT_DEFAULTS['job-timeout'])
/** A service job runs for at most six hours; waiting longer than that cannot help. */
export const MAX_JOB_TIMEOUT_SECONDS = 6 * 60 * 60
/** Far above 5000 deployments of JSON; a larger file is a mistake, not a cluster. */
export const MAX_DEPLOYMENTS_FILE_BYTES = 64 * 1024 * 1024

export interface Connection {
  token: string
  /** Without a trailing slash. */
  apiUrl: string
  apiVersion: string
  org: string
  repository: { owner: string; name: string }
  /** The repository's name when its owner is `org`: sent as `github_repository`. */
  serviceRepository?: string
}

export interface Artifact {
  name: string
  /** `sha256:` and 64 lower-case hex digits. */
  digest: string
  version?: string
}

export interface DeploymentRecordInput {
  status: (typeof DEPLOYMENT_STATUSES)[number]
  logicalEnvironment: string
  physicalEnvironment?: string
  cluster?: string
  deploymentName: string
  tags?: Record<string, string>
  runtimeRisks?: RuntimeRisk[]
}

export interface StorageRecordInput {
  registryUrl: string
  artifactUrl?: string
  repository?: string
  path?: string
  status: (typeof STORAGE_STATUSES)[number]
}

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
}

export interface Inputs {
  connection: Connection
  artifact?: Artifact
  deployment?: DeploymentRecordInput
  storage?: StorageRecordInput
  cluster?: ClusterInputs
  labels?: LabelInputs
  dryRun: boolean
  maxRetries: number
}

/** Bad input: every problem at once, each naming its input. */
export class InputError extends Error {
  constructor(readonly problems: InputProblem[]) {
    super(
      `The inputs have ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}; ` +
        'nothing was sent:\n' +
        problems.map(p => `  - ${p.input}: ${p.message}`).join('\n')
    )
    this.name = 'InputError'
  }
}

/** Reads the raw inputs through the runner's accessor (`core.getInput`). */
export function readRawInputs(getInput: (name: string) => string): RawInputs {
  const raw: RawInputs = {}
  for (const name of INPUT_NAMES) raw[name] = getInput(name)
  return raw
}

type Env = Record<string, string | undefined>

export interface FileReader {
  size(path: string): number
  read(path: string): string
}

const diskReader: FileReader = {
  size: path => statSync(path).size,
  read: path => readFileSync(path, 'utf8')
}

/** Turns raw inputs into the typed object `run()` takes, or throws an `InputError` naming each bad one. */
export function parseInputs(
  raw: RawInputs,
  env: Env = process.env,
  files: FileReader = diskReader
): Inputs {
  raw = withoutDefaults(raw)
  const c = new Collector(raw)

  const token = c.take('token', nonEmptyText('a token'), env['GITHUB_TOKEN'])
  if (token === undefined && !c.failed('token')) {
    c.problem('token', 'is empty: pass `token`, or run in a workflow where GITHUB_TOKEN is set')
  }
  const apiUrl = c.take('api-url', serviceUrl, env['GITHUB_API_URL']) ?? DEFAULT_API_URL
  const apiVersion = c.take('api-version', apiVersionSchema) ?? DEFAULT_API_VERSION
  const repository = c.take('repository', repositorySchema, env['GITHUB_REPOSITORY'])
  const org = c.take('org', orgSchema) ?? repository?.owner
  if (org === undefined && !c.failed('org') && !c.failed('repository')) {
    c.problem('org', 'is empty and no `repository` (GITHUB_REPOSITORY) to take its owner from')
  }

  const parsedDigest = c.take('digest', digestSchema)
  const name = c.take('name', boundedText(1, 256)) ?? parsedDigest?.image
  const version = c.take('version', boundedText(1, 100))
  const status = c.take(
    'status',
    z.enum(DEPLOYMENT_STATUSES, { error: oneOf(DEPLOYMENT_STATUSES) })
  )
  const environment = c.take('environment', boundedText(1, 128))
  const physicalEnvironment = c.take('physical-environment', boundedText(1, 128))
  const cluster = c.take('cluster', clusterSchema)
  const deploymentName = c.take('deployment-name', boundedText(1, 256))
  const tags = c.take('tags', tagsSchema)
  const runtimeRisks = c.take('runtime-risks', runtimeRisksSchema)

  const registryUrl = c.take('registry-url', httpsUrl(256))
  const artifactUrl = c.take('artifact-url', httpsUrl(152))
  const registryRepository = c.take('registry-repository', boundedText(1, 128))
  const storagePath = c.take('storage-path', boundedText(1, 512))
  const storageStatus = c.take(
    'storage-status',
    z.enum(STORAGE_STATUSES, { error: oneOf(STORAGE_STATUSES) })
  )

  const dryRun = c.take('dry-run', booleanSchema) ?? false
  const maxRetries = c.take('max-retries', maxRetriesSchema) ?? DEFAULT_MAX_RETRIES

  const clusterMode = c.take('cluster-mode', z.enum(CLUSTER_MODES, { error: oneOf(CLUSTER_MODES) }))
  const partialSuccess = c.take('partial-success', booleanSchema)
  const jobTimeout = c.take('job-timeout', jobTimeoutSchema)
  const wantsCluster = c.given('deployments') || c.given('deployments-file')
  let clusterItems: ClusterItem[] | undefined
  if (wantsCluster) {
    const serviceRepository = serviceRepositoryOf(repository, org)
    clusterItems = readClusterItems(c, raw, env, files, serviceRepository)
    if (parsedDigest !== undefined || c.failed('digest')) {
      c.problem(
        'digest',
        'give either `digest` (one deployment) or `deployments` / `deployments-file` (a whole cluster)'
      )
    }
    for (const input of [
      'name',
      'version',
      'status',
      'deployment-name',
      'tags',
      'runtime-risks'
    ] as const) {
      if (c.given(input))
        c.problem(
          input,
          'belongs to a single deployment record; in a whole cluster each item carries its own'
        )
    }
    if (environment === undefined && !c.failed('environment'))
      c.problem('environment', 'is required for a whole cluster')
    if (cluster === undefined && !c.failed('cluster'))
      c.problem('cluster', 'is required for a whole cluster')
    if (clusterItems !== undefined) {
      const count = clusterItems.length
      const input = c.given('deployments') ? 'deployments' : 'deployments-file'
      if (count > JOB_LIMIT) {
        c.problem(
          input,
          `has ${count} deployments; one step records at most ${JOB_LIMIT} (split the cluster)`
        )
      } else if (clusterMode === 'sync' && count > SYNC_LIMIT) {
        c.problem(
          input,
          `has ${count} deployments; \`cluster-mode: sync\` sends at most ${SYNC_LIMIT} (use job or auto)`
        )
      }
    }
  } else {
    for (const input of ['cluster-mode', 'partial-success', 'job-timeout'] as const) {
      if (c.given(input))
        c.problem(
          input,
          'belongs to a whole cluster, which needs `deployments` or `deployments-file`'
        )
    }
  }

  const labelInputs = parseLabelInputs(
    Object.fromEntries(LABEL_INPUT_NAMES.map(name => [name, raw[name]]))
  )
  for (const p of labelInputs.problems) c.problem(p.input, p.message)
  const wantsLabels = labelInputs.value !== undefined
  if (wantsLabels && repository === undefined && !c.failed('repository')) {
    c.problem(
      'repository',
      'is required for labels: the repository whose issues and pull requests get them'
    )
  }

  const wantsDeployment = environment !== undefined && !wantsCluster
  const wantsStorage = registryUrl !== undefined
  if (wantsDeployment || wantsStorage) {
    const forWhat = wantsDeployment
      ? 'a deployment record (`environment` is set)'
      : 'a storage record'
    if (parsedDigest === undefined && !c.failed('digest'))
      c.problem('digest', `is required for ${forWhat}`)
    if (name === undefined && !c.failed('name')) {
      c.problem(
        'name',
        `is required for ${forWhat}; give it, or a digest of the form <image>@sha256:<hex>`
      )
    }
  }
  if (!c.given('environment') && !wantsCluster) {
    for (const input of [
      'physical-environment',
      'cluster',
      'deployment-name',
      'tags',
      'runtime-risks',
      'status'
    ] as const) {
      if (c.given(input))
        c.problem(input, 'belongs to a deployment record, which needs `environment`')
    }
  }
  if (!c.given('registry-url')) {
    for (const input of [
      'artifact-url',
      'registry-repository',
      'storage-path',
      'storage-status'
    ] as const) {
      if (c.given(input))
        c.problem(input, 'belongs to a storage record, which needs `registry-url`')
    }
  }
  if (
    !wantsDeployment &&
    !wantsStorage &&
    !wantsCluster &&
    !wantsLabels &&
    !LABEL_INPUT_NAMES.some(name => c.failed(name)) &&
    !c.failed('environment') &&
    !c.failed('registry-url')
  ) {
    c.problem(
      'environment',
      'nothing to do: set `environment` for a deployment record, `registry-url` for a storage record, `deployments` for a whole cluster, or `labels` / `remove-labels`'
    )
  }

  const deploymentNameDefault = name !== undefined ? defaultDeploymentName(name) : undefined
  if (
    wantsDeployment &&
    deploymentName === undefined &&
    name !== undefined &&
    deploymentNameDefault === undefined
  ) {
    c.problem('deployment-name', `cannot be taken from name \`${name}\`; set it`)
  }

  c.throwIfAny()
  // Past throwIfAny every value the rules above require is present.
  const repo = repository as { owner: string; name: string } | undefined
  const connection: Connection = {
    token: token as string,
    apiUrl,
    apiVersion,
    org: org as string,
    repository: repo ?? { owner: org as string, name: '' },
    serviceRepository: serviceRepositoryOf(repo, org)
  }
  const artifact =
    parsedDigest && name
      ? { name, digest: parsedDigest.digest, ...(version ? { version } : {}) }
      : undefined
  return {
    connection,
    artifact,
    deployment: wantsDeployment
      ? {
          status: status ?? 'deployed',
          logicalEnvironment: environment,
          physicalEnvironment,
          cluster,
          deploymentName: (deploymentName ?? deploymentNameDefault) as string,
          tags,
          runtimeRisks
        }
      : undefined,
    storage: wantsStorage
      ? {
          registryUrl,
          artifactUrl,
          repository: registryRepository,
          path: storagePath,
          status: storageStatus ?? 'active'
        }
      : undefined,
    cluster:
      wantsCluster && clusterItems
        ? {
            cluster: cluster as string,
            logicalEnvironment: environment as string,
            physicalEnvironment,
            items: clusterItems,
            mode:
              clusterMode === 'sync' || clusterMode === 'job'
                ? clusterMode
                : clusterItems.length > SYNC_LIMIT
                  ? 'job'
                  : 'sync',
            partialSuccess: partialSuccess ?? false,
            jobTimeoutSeconds: jobTimeout ?? DEFAULT_JOB_TIMEOUT_SECONDS
          }
        : undefined,
    labels: labelInputs.value,
    dryRun,
    maxRetries
  }
}

function serviceRepositoryOf(
  repository: { owner: string; name: string } | undefined,
  org: string | undefined
): string | undefined {
  if (!repository || !org || !repository.name) return undefined
  return repository.owner.toLowerCase() === org.toLowerCase() ? repository.name : undefined
}

/** The cluster's deployments from `deployments` or `deployments-file`, read as data only. */
function readClusterItems(
  c: Collector,
  raw: RawInputs,
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
    text = raw['deployments'] ?? ''
  } else {
    const given = (raw['deployments-file'] ?? '').trim()
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
      text = files.read(path)
    } catch (error) {
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
    c.problem(input, `is not valid JSON: ${(error as Error).message}`)
    return undefined
  }
  const { items, problems } = validateClusterItems(parsed, input, {
    github_repository: serviceRepository
  })
  for (const p of problems) c.problem(p.input, p.message)
  return problems.length === 0 ? items : undefined
}

/** `ghcr.io/acme/web:1.2` -> `web`: the last path segment, without tag. */
export function defaultDeploymentName(name: string): string | undefined {
  const withoutDigest = name.split('@')[0] ?? ''
  const last = withoutDigest.split('/').filter(Boolean).pop() ?? ''
  const withoutTag = last.split(':')[0] ?? ''
  return withoutTag === '' ? undefined : withoutTag.slice(0, 256)
}

class Collector {
  readonly problems: InputProblem[] = []

  constructor(private readonly raw: RawInputs) {}

  given(name: InputName): boolean {
    return (this.raw[name] ?? '').trim() !== ''
  }

  failed(name: string): boolean {
    return this.problems.some(p => p.input === name)
  }

  /** The parsed value, undefined when empty (and no fallback) or bad; a bad one is recorded. */
  take<T>(name: InputName, schema: z.ZodType<T, string>, fallback?: string): T | undefined {
    const value = (this.raw[name] ?? '').trim() || (fallback ?? '').trim()
    if (value === '') return undefined
    const result = schema.safeParse(value)
    if (result.success) return result.data
    const messages = [...new Set(result.error.issues.map(issue => issue.message))]
    for (const message of messages) this.problem(name, message)
    return undefined
  }

  problem(input: string, message: string): void {
    this.problems.push({ input, message })
  }

  throwIfAny(): void {
    if (this.problems.length > 0) throw new InputError(this.problems)
  }
}

const oneOf = (values: readonly string[]) => (issue: { input?: unknown }) =>
  `\`${String(issue.input)}\` is not one of ${values.map(v => `\`${v}\``).join(', ')}`

function boundedText(min: number, max: number) {
  return z
    .string()
    .min(min, { error: `must not be empty` })
    .max(max, {
      error: issue =>
        `is ${String((issue.input as string).length)} characters long; at most ${max} are allowed`
    })
    .refine(value => !hasControlCharacters(value, '\t\n'), { error: 'contains control characters' })
}

function nonEmptyText(what: string) {
  return z
    .string()
    .refine(value => !/[\s]/.test(value), { error: `${what} cannot contain white space` })
}

const LOOPBACK_HOSTS = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i

const serviceUrl = z.string().transform((value, ctx) => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    ctx.addIssue({ code: 'custom', message: `\`${value}\` is not a URL` })
    return z.NEVER
  }
  const loopback = LOOPBACK_HOSTS.test(url.hostname)
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    ctx.addIssue({
      code: 'custom',
      message: 'must use https (plain http only for localhost and 127.0.0.1)'
    })
    return z.NEVER
  }
  if (url.username || url.password || url.search || url.hash) {
    ctx.addIssue({ code: 'custom', message: 'must not carry credentials, a query or a fragment' })
    return z.NEVER
  }
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`
})

function httpsUrl(max: number) {
  return z.string().superRefine((value, ctx) => {
    if (value.length > max) {
      ctx.addIssue({
        code: 'custom',
        message: `is ${value.length} characters long; at most ${max} are allowed`
      })
      return
    }
    let url: URL
    try {
      url = new URL(value)
    } catch {
      ctx.addIssue({ code: 'custom', message: `\`${value}\` is not a URL` })
      return
    }
    if (url.protocol !== 'https:')
      ctx.addIssue({ code: 'custom', message: 'must be an https:// URL' })
  })
}

const apiVersionSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, {
  error: issue => `\`${String(issue.input)}\` is not a date version like 2026-03-10`
})

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/
const REPO_NAME = /^[A-Za-z0-9._-]{1,100}$/

const orgSchema = z.string().regex(OWNER, {
  error: issue =>
    `\`${String(issue.input)}\` is not an organization name (letters, digits and -, at most 39)`
})

const repositorySchema = z.string().transform((value, ctx) => {
  const [owner, given, ...rest] = value.split('/')
  // `.git` goes first, so that the name checks see what is actually used.
  const name = given?.replace(/\.git$/, '')
  if (
    owner === undefined ||
    name === undefined ||
    rest.length > 0 ||
    !OWNER.test(owner) ||
    !REPO_NAME.test(name) ||
    /^\.+$/.test(name)
  ) {
    ctx.addIssue({ code: 'custom', message: `\`${value}\` is not of the form owner/name` })
    return z.NEVER
  }
  return { owner, name }
})

const clusterSchema = z
  .string()
  .max(128, { error: 'is longer than 128 characters' })
  .regex(/^[A-Za-z0-9._-]+$/, { error: 'may hold only letters, digits, `.`, `_` and `-`' })

/** Accepts `sha256:<hex>`, `<image>@sha256:<hex>` or bare hex; the hex is lower-cased. */
export const digestSchema = z.string().transform((value, ctx) => {
  const at = value.lastIndexOf('@')
  const image = at > 0 ? value.slice(0, at) : undefined
  const ref = at >= 0 ? value.slice(at + 1) : value
  const colon = ref.indexOf(':')
  const algorithm = colon >= 0 ? ref.slice(0, colon).toLowerCase() : 'sha256'
  const hex = colon >= 0 ? ref.slice(colon + 1) : ref
  if (algorithm !== 'sha256') {
    ctx.addIssue({
      code: 'custom',
      message: `only sha256 digests can be recorded, not ${algorithm}`
    })
    return z.NEVER
  }
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be sha256:<64 hex digits>, <image>@sha256:<64 hex digits> or 64 hex digits'
    })
    return z.NEVER
  }
  return { digest: `sha256:${hex.toLowerCase()}`, image }
})

const tagsSchema = z.string().transform((value, ctx) => {
  let entries: Array<[string, unknown]>
  if (value.startsWith('{')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(value)
    } catch {
      ctx.addIssue({ code: 'custom', message: 'looks like JSON but does not parse' })
      return z.NEVER
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object of strings' })
      return z.NEVER
    }
    entries = Object.entries(parsed)
  } else {
    entries = []
    for (const item of splitList(value)) {
      const eq = item.indexOf('=')
      if (eq <= 0) {
        ctx.addIssue({ code: 'custom', message: `\`${item}\` is not key=value` })
        continue
      }
      entries.push([item.slice(0, eq).trim(), item.slice(eq + 1).trim()])
    }
  }
  // A null-prototype object: keys like __proto__ stay plain keys.
  const tags: Record<string, string> = Object.create(null) as Record<string, string>
  for (const [key, tagValue] of entries) {
    if (typeof tagValue !== 'string') {
      ctx.addIssue({ code: 'custom', message: `the value of \`${key}\` is not a string` })
    } else if (key === '') {
      ctx.addIssue({ code: 'custom', message: 'a key is empty' })
    } else if (Object.prototype.hasOwnProperty.call(tags, key)) {
      ctx.addIssue({ code: 'custom', message: `\`${key}\` is given twice` })
    } else {
      tags[key] = tagValue
    }
  }
  if (entries.length > MAX_TAGS) {
    ctx.addIssue({
      code: 'custom',
      message: `has ${entries.length} keys; at most ${MAX_TAGS} are allowed`
    })
  }
  return { ...tags }
})

const runtimeRisksSchema = z.string().transform((value, ctx) => {
  const items = splitList(value)
  const unknown = items.filter(item => !(RUNTIME_RISKS as readonly string[]).includes(item))
  if (unknown.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `${unknown.map(u => `\`${u}\``).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not one of ${RUNTIME_RISKS.join(', ')}`
    })
    return z.NEVER
  }
  return items as RuntimeRisk[]
})

const booleanSchema = z.string().transform((value, ctx) => {
  if (/^true$/i.test(value)) return true
  if (/^false$/i.test(value)) return false
  ctx.addIssue({ code: 'custom', message: `\`${value}\` is not true or false` })
  return z.NEVER
})

const jobTimeoutSchema = z.string().transform((value, ctx) => {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_JOB_TIMEOUT_SECONDS) {
    ctx.addIssue({
      code: 'custom',
      message: `\`${value}\` is not a whole number of seconds from 1 to ${MAX_JOB_TIMEOUT_SECONDS}`
    })
    return z.NEVER
  }
  return n
})

const maxRetriesSchema = z.string().transform((value, ctx) => {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n > MAX_RETRIES_LIMIT) {
    ctx.addIssue({
      code: 'custom',
      message: `\`${value}\` is not a whole number from 0 to ${MAX_RETRIES_LIMIT}`
    })
    return z.NEVER
  }
  return n
})
