// Over 300 lines on purpose: the state's shape (its public types) beside the few operations that keep it consistent.
export interface LabelState {
  id: number
  node_id: string
  name: string
  description: string | null
  color: string
  default: boolean
}

export interface PullState {
  merged: boolean
  merged_at: string | null
  head_sha: string
  head_ref: string
  /** the repository the head branch is in: a fork's name, `null` for a deleted fork; else the repository's own */
  head_repo?: string | null
  base_ref: string
  merge_commit_sha: string | null
  /** what `pulls/{n}/commits` lists: commit shas, oldest first */
  commits: string[]
}

// Issues and pull requests share one number space, so a pull request is an issue with `pull`.
export interface IssueState {
  number: number
  title: string
  body: string | null
  state: 'open' | 'closed'
  locked: boolean
  deleted: boolean
  /** label names, spelled as in the repository's label list */
  labels: string[]
  milestone: number | null
  pull?: PullState
}

export interface CommitState {
  sha: string
  message: string
  /** first parent first; commits listed before a commit are older than it */
  parents: string[]
  /** pull requests the commit-to-pull-request lookup answers for this commit */
  pulls: number[]
  /** the committer's email (`noreply@github.com`: made by the merge button) */
  committer?: string
  /** when it was committed (ISO 8601); 2026-01-01 when absent */
  date?: string
}

export interface DeploymentRecordState {
  id: number
  org: string
  name: string
  version: string | null
  status: string
  digest: string
  logical_environment: string
  physical_environment: string
  cluster: string
  deployment_name: string
  tags: Record<string, string>
  runtime_risks: string[]
  github_repository: string | null
  attestation_id: number | null
  created_at: string
  updated_at: string
}

export interface StorageRecordState {
  id: number
  org: string
  name: string
  version: string | null
  digest: string
  artifact_url: string | null
  registry_url: string
  repository: string | null
  path: string | null
  status: string
  github_repository: string | null
  created_at: string
  updated_at: string
}

/** A deployment as sent in a request, after validation and defaults. */
export interface DeploymentInput {
  name: string
  digest: string
  version: string | null
  status: string
  deployment_name: string
  github_repository: string | null
  tags: Record<string, string>
  runtime_risks: string[]
}

export interface ItemError {
  cause: 'unauthorized' | 'not_found'
  deployment: DeploymentInput
}

export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed'

export interface JobState {
  job_id: number
  org: string
  cluster: string
  status: JobStatus
  started_at: string
  total_count: number
  /** deployments rejected when the job was created */
  errors: ItemError[]
  logical_environment: string
  physical_environment: string
  /** accepted deployments, with the attestation id each resolved to */
  deployments: Array<{ input: DeploymentInput; attestationId: number | null }>
  willFail: boolean
}

export interface EmulatorState {
  orgs: string[]
  /** 'owner/name' */
  repos: string[]
  attestedDigests: 'any' | string[]
  /** keyed by org, as spelled in `orgs` */
  deploymentRecords: Record<string, DeploymentRecordState[]>
  storageRecords: Record<string, StorageRecordState[]>
  /** keyed by repository 'owner/name', as spelled in `repos` */
  labels: Record<string, LabelState[]>
  issues: Record<string, IssueState[]>
  /** oldest first (the order compare lists them in); parents name older ones */
  commits: Record<string, CommitState[]>
  /** the most commits a comparison lists (the newest); `total_commits` still counts all */
  compareLimit?: number
  /** ref names (tags, branches) to commit shas, per repository */
  refs: Record<string, Record<string, string>>
  /** which of the refs are tags (the tag list's names), per repository */
  tagNames: Record<string, string[]>
  jobs: JobState[]
  /** the next cluster job ends `failed` and writes nothing; cleared when a job takes it */
  failNextJob: boolean
  /** attestation id per attested digest, handed out on first use */
  attestations: Record<string, number>
  nextId: { label: number; deploymentRecord: number; storageRecord: number; job: number }
}

export const DEFAULT_LABEL_COLOR = 'ededed'

export function timestamp(): string {
  return new Date().toISOString()
}

export function createState(
  orgs: string[],
  repos: string[],
  attestedDigests: 'any' | string[]
): EmulatorState {
  const state: EmulatorState = {
    orgs: [],
    repos: [],
    attestedDigests: Array.isArray(attestedDigests) ? [...attestedDigests] : attestedDigests,
    deploymentRecords: {},
    storageRecords: {},
    labels: {},
    issues: {},
    commits: {},
    refs: {},
    tagNames: {},
    // Present, so that a reset (which assigns a fresh state over the old) clears it.
    compareLimit: undefined,
    jobs: [],
    failNextJob: false,
    attestations: {},
    nextId: { label: 1, deploymentRecord: 1, storageRecord: 1, job: 1 }
  }
  orgs.forEach(org => addOrg(state, org))
  repos.forEach(repo => addRepo(state, repo))
  return state
}

export function findOrg(state: EmulatorState, name: string): string | undefined {
  const lower = name.toLowerCase()
  return state.orgs.find(org => org.toLowerCase() === lower)
}

export function findRepo(state: EmulatorState, fullName: string): string | undefined {
  const lower = fullName.toLowerCase()
  return state.repos.find(repo => repo.toLowerCase() === lower)
}

export function addOrg(state: EmulatorState, name: string): string {
  const known = findOrg(state, name)
  if (known) return known
  state.orgs.push(name)
  state.deploymentRecords[name] = []
  state.storageRecords[name] = []
  return name
}

export function addRepo(state: EmulatorState, fullName: string): string {
  if (!/^[^/]+\/[^/]+$/.test(fullName))
    throw new Error(`repository must be 'owner/name': ${fullName}`)
  const known = findRepo(state, fullName)
  if (known) return known
  state.repos.push(fullName)
  state.labels[fullName] = []
  state.issues[fullName] = []
  state.commits[fullName] = []
  state.refs[fullName] = {}
  state.tagNames[fullName] = []
  return fullName
}

export function listIn<T>(map: Record<string, T[]>, key: string): T[] {
  return (map[key] ??= [])
}

export function isAttested(state: EmulatorState, digest: string): boolean {
  return state.attestedDigests === 'any' || state.attestedDigests.includes(digest)
}

export function attestationIdFor(state: EmulatorState, digest: string): number | null {
  if (!isAttested(state, digest)) return null
  // Far from the record ids so that a test cannot mistake one for the other.
  return (state.attestations[digest] ??= 100000 + Object.keys(state.attestations).length + 1)
}

export interface DeploymentWrite {
  input: DeploymentInput
  logical_environment: string
  physical_environment: string
  cluster: string
  attestationId: number | null
}

export function upsertDeployment(
  state: EmulatorState,
  org: string,
  write: DeploymentWrite
): DeploymentRecordState {
  const records = listIn(state.deploymentRecords, org)
  const { input } = write
  const existing = records.find(
    r =>
      r.logical_environment === write.logical_environment &&
      r.physical_environment === write.physical_environment &&
      r.cluster === write.cluster &&
      r.deployment_name === input.deployment_name
  )
  const now = timestamp()
  const fields = {
    name: input.name,
    version: input.version,
    status: input.status,
    digest: input.digest,
    tags: { ...input.tags },
    runtime_risks: [...input.runtime_risks],
    github_repository: input.github_repository,
    attestation_id: write.attestationId,
    updated_at: now
  }
  if (existing) return Object.assign(existing, fields)
  const record: DeploymentRecordState = {
    id: state.nextId.deploymentRecord++,
    org,
    logical_environment: write.logical_environment,
    physical_environment: write.physical_environment,
    cluster: write.cluster,
    deployment_name: input.deployment_name,
    created_at: now,
    ...fields
  }
  records.push(record)
  return record
}

export type StorageWrite = Omit<StorageRecordState, 'id' | 'org' | 'created_at' | 'updated_at'>

/**
 * Every write adds a record. The published description says the endpoint creates a storage
 * record and states no upsert rule (unlike deployment and cluster records), so a write sent
 * twice leaves two records here, as it may in the service.
 */
export function createStorage(
  state: EmulatorState,
  org: string,
  write: StorageWrite
): StorageRecordState {
  const now = timestamp()
  const record: StorageRecordState = {
    id: state.nextId.storageRecord++,
    org,
    created_at: now,
    updated_at: now,
    ...write
  }
  listIn(state.storageRecords, org).push(record)
  return record
}

export function findLabel(
  state: EmulatorState,
  repo: string,
  name: string
): LabelState | undefined {
  const lower = name.toLowerCase()
  return state.labels[repo]?.find(label => label.name.toLowerCase() === lower)
}

export interface NewLabel {
  name: string
  color?: string
  description?: string | null
  default?: boolean
}

export function createLabel(state: EmulatorState, repo: string, seed: NewLabel): LabelState {
  const id = state.nextId.label++
  const label: LabelState = {
    id,
    node_id: 'LA_' + Buffer.from(`label:${id}`).toString('base64url'),
    name: seed.name,
    description: seed.description ?? null,
    color: (seed.color ?? DEFAULT_LABEL_COLOR).toLowerCase(),
    default: seed.default ?? false
  }
  listIn(state.labels, repo).push(label)
  return label
}

/** Finds or creates each label and returns the names as the repository spells them. */
export function ensureLabels(state: EmulatorState, repo: string, names: string[]): string[] {
  const result: string[] = []
  for (const name of names) {
    const label = findLabel(state, repo, name) ?? createLabel(state, repo, { name })
    if (!result.includes(label.name)) result.push(label.name)
  }
  return result
}

export function findIssue(
  state: EmulatorState,
  repo: string,
  number: number
): IssueState | undefined {
  return state.issues[repo]?.find(issue => issue.number === number)
}
