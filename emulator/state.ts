import { createHash } from 'node:crypto'

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
  base_ref: string
  merge_commit_sha: string | null
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
  /** pull requests the commit-to-pull-request lookup answers for this commit */
  pulls: number[]
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
  /** oldest first; compare walks this list */
  commits: Record<string, CommitState[]>
  /** ref names (tags, branches) to commit shas, per repository */
  refs: Record<string, Record<string, string>>
  jobs: JobState[]
  /** the next cluster job ends `failed` and writes nothing; cleared when a job takes it */
  failNextJob: boolean
  /** attestation id per attested digest, handed out on first use */
  attestations: Record<string, number>
  nextId: { label: number; deploymentRecord: number; storageRecord: number; job: number }
}

export interface SeedLabel {
  name: string
  color?: string
  description?: string | null
  default?: boolean
}

export interface SeedIssue {
  number: number
  title?: string
  body?: string | null
  state?: 'open' | 'closed'
  locked?: boolean
  deleted?: boolean
  labels?: string[]
  milestone?: number | null
}

export interface SeedPull extends SeedIssue {
  merged?: boolean
  merged_at?: string | null
  head_sha?: string
  head_ref?: string
  base_ref?: string
  merge_commit_sha?: string | null
}

export interface SeedCommit {
  sha: string
  message: string
  pulls?: number[]
}

export type SeedDeploymentRecord = Partial<Omit<DeploymentRecordState, 'id' | 'org'>> &
  Pick<DeploymentRecordState, 'digest' | 'logical_environment' | 'deployment_name'>

export type SeedStorageRecord = Partial<Omit<StorageRecordState, 'id' | 'org'>> &
  Pick<StorageRecordState, 'digest' | 'registry_url'>

/** Repositories named as keys are added to `repos` when missing. */
export interface SeedData {
  orgs?: string[]
  repos?: string[]
  labels?: Record<string, SeedLabel[]>
  issues?: Record<string, SeedIssue[]>
  pulls?: Record<string, SeedPull[]>
  /** appended after the repository's existing commits, oldest first */
  commits?: Record<string, SeedCommit[]>
  refs?: Record<string, Record<string, string>>
  deploymentRecords?: Record<string, SeedDeploymentRecord[]>
  storageRecords?: Record<string, SeedStorageRecord[]>
  attestedDigests?: 'any' | string[]
  failNextJob?: boolean
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
  if (!/^[^/]+\/[^/]+$/.test(fullName)) throw new Error(`repository must be 'owner/name': ${fullName}`)
  const known = findRepo(state, fullName)
  if (known) return known
  state.repos.push(fullName)
  state.labels[fullName] = []
  state.issues[fullName] = []
  state.commits[fullName] = []
  state.refs[fullName] = {}
  return fullName
}

function listIn<T>(map: Record<string, T[]>, key: string): T[] {
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

export function upsertStorage(
  state: EmulatorState,
  org: string,
  write: StorageWrite
): StorageRecordState {
  const records = listIn(state.storageRecords, org)
  const key = (r: StorageWrite) => [r.digest, r.registry_url, r.repository ?? '', r.path ?? '']
  const wanted = key(write)
  const existing = records.find(r => key(r).every((part, i) => part === wanted[i]))
  const now = timestamp()
  if (existing) return Object.assign(existing, write, { updated_at: now })
  const record: StorageRecordState = {
    id: state.nextId.storageRecord++,
    org,
    created_at: now,
    updated_at: now,
    ...write
  }
  records.push(record)
  return record
}

export function findLabel(state: EmulatorState, repo: string, name: string): LabelState | undefined {
  const lower = name.toLowerCase()
  return state.labels[repo]?.find(label => label.name.toLowerCase() === lower)
}

export function createLabel(
  state: EmulatorState,
  repo: string,
  seed: SeedLabel
): LabelState {
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

export function findIssue(state: EmulatorState, repo: string, number: number): IssueState | undefined {
  return state.issues[repo]?.find(issue => issue.number === number)
}

function fakeSha(seed: string): string {
  return createHash('sha1').update(seed).digest('hex')
}

function seedIssue(state: EmulatorState, repo: string, seed: SeedIssue): IssueState {
  const issues = listIn(state.issues, repo)
  let issue = findIssue(state, repo, seed.number)
  if (!issue) {
    issue = {
      number: seed.number,
      title: `Issue ${seed.number}`,
      body: null,
      state: 'open',
      locked: false,
      deleted: false,
      labels: [],
      milestone: null
    }
    issues.push(issue)
  }
  if (seed.title !== undefined) issue.title = seed.title
  if (seed.body !== undefined) issue.body = seed.body
  if (seed.state !== undefined) issue.state = seed.state
  if (seed.locked !== undefined) issue.locked = seed.locked
  if (seed.deleted !== undefined) issue.deleted = seed.deleted
  if (seed.milestone !== undefined) issue.milestone = seed.milestone
  if (seed.labels !== undefined) issue.labels = ensureLabels(state, repo, seed.labels)
  return issue
}

function seedPull(state: EmulatorState, repo: string, seed: SeedPull): void {
  const merged = seed.merged ?? true
  const issue = seedIssue(state, repo, {
    title: `Pull request ${seed.number}`,
    state: merged ? 'closed' : 'open',
    ...seed
  })
  issue.pull = {
    merged,
    merged_at: seed.merged_at !== undefined ? seed.merged_at : merged ? timestamp() : null,
    head_sha: seed.head_sha ?? fakeSha(`${repo}#${seed.number}:head`),
    head_ref: seed.head_ref ?? `feature-${seed.number}`,
    base_ref: seed.base_ref ?? 'main',
    merge_commit_sha:
      seed.merge_commit_sha !== undefined
        ? seed.merge_commit_sha
        : merged
          ? fakeSha(`${repo}#${seed.number}:merge`)
          : null
  }
}

export function seedState(state: EmulatorState, data: SeedData): void {
  data.orgs?.forEach(org => addOrg(state, org))
  data.repos?.forEach(repo => addRepo(state, repo))
  if (data.attestedDigests !== undefined) state.attestedDigests = data.attestedDigests
  if (data.failNextJob !== undefined) state.failNextJob = data.failNextJob

  for (const [key, labels] of Object.entries(data.labels ?? {})) {
    const repo = addRepo(state, key)
    for (const seed of labels) {
      const label = findLabel(state, repo, seed.name)
      if (!label) createLabel(state, repo, seed)
      else
        Object.assign(label, {
          color: (seed.color ?? label.color).toLowerCase(),
          description: seed.description !== undefined ? seed.description : label.description,
          default: seed.default ?? label.default
        })
    }
  }
  for (const [key, issues] of Object.entries(data.issues ?? {})) {
    const repo = addRepo(state, key)
    issues.forEach(issue => seedIssue(state, repo, issue))
  }
  for (const [key, pulls] of Object.entries(data.pulls ?? {})) {
    const repo = addRepo(state, key)
    pulls.forEach(pull => seedPull(state, repo, pull))
  }
  for (const [key, commits] of Object.entries(data.commits ?? {})) {
    const repo = addRepo(state, key)
    for (const commit of commits) {
      listIn(state.commits, repo).push({
        sha: commit.sha,
        message: commit.message,
        pulls: [...(commit.pulls ?? [])]
      })
    }
  }
  for (const [key, refs] of Object.entries(data.refs ?? {})) {
    const repo = addRepo(state, key)
    Object.assign((state.refs[repo] ??= {}), refs)
  }
  for (const [key, records] of Object.entries(data.deploymentRecords ?? {})) {
    const org = addOrg(state, key)
    for (const seed of records) {
      upsertDeployment(state, org, {
        logical_environment: seed.logical_environment,
        physical_environment: seed.physical_environment ?? '',
        cluster: seed.cluster ?? '',
        attestationId:
          seed.attestation_id !== undefined ? seed.attestation_id : attestationIdFor(state, seed.digest),
        input: {
          name: seed.name ?? 'artifact',
          digest: seed.digest,
          version: seed.version ?? null,
          status: seed.status ?? 'deployed',
          deployment_name: seed.deployment_name,
          github_repository: seed.github_repository ?? null,
          tags: seed.tags ?? {},
          runtime_risks: seed.runtime_risks ?? []
        }
      })
    }
  }
  for (const [key, records] of Object.entries(data.storageRecords ?? {})) {
    const org = addOrg(state, key)
    for (const seed of records) {
      upsertStorage(state, org, {
        name: seed.name ?? 'artifact',
        version: seed.version ?? null,
        digest: seed.digest,
        artifact_url: seed.artifact_url ?? null,
        registry_url: seed.registry_url,
        repository: seed.repository ?? null,
        path: seed.path ?? null,
        status: seed.status ?? 'active',
        github_repository: seed.github_repository ?? null
      })
    }
  }
}
