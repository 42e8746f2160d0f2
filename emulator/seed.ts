import { createHash } from 'node:crypto'
import {
  addOrg,
  addRepo,
  attestationIdFor,
  createLabel,
  ensureLabels,
  findIssue,
  findLabel,
  listIn,
  timestamp,
  upsertDeployment,
  createStorage,
  type DeploymentRecordState,
  type EmulatorState,
  type IssueState,
  type NewLabel,
  type StorageRecordState
} from './state.js'

export type SeedLabel = NewLabel

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
  /** a fork's `owner/name` (`null`: a fork deleted since); the repository itself when absent */
  head_repo?: string | null
  base_ref?: string
  merge_commit_sha?: string | null
  /** the shas `pulls/{n}/commits` lists (seeded commits), oldest first */
  commits?: string[]
}

export interface SeedCommit {
  sha: string
  message: string
  /** first parent first; the commit listed before it when absent (a linear history) */
  parents?: string[]
  pulls?: number[]
  /** the committer's email; `test@example.com` when absent */
  committer?: string
  /** when it was committed (ISO 8601); 2026-01-01 when absent */
  date?: string
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
  /** the most commits a comparison lists, as the service cuts large ones (see EmulatorState) */
  compareLimit?: number
  refs?: Record<string, Record<string, string>>
  /** tags (name to commit sha): refs that the tag list also names */
  tags?: Record<string, Record<string, string>>
  deploymentRecords?: Record<string, SeedDeploymentRecord[]>
  storageRecords?: Record<string, SeedStorageRecord[]>
  attestedDigests?: 'any' | string[]
  failNextJob?: boolean
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
    ...(seed.head_repo !== undefined ? { head_repo: seed.head_repo } : {}),
    base_ref: seed.base_ref ?? 'main',
    merge_commit_sha:
      seed.merge_commit_sha !== undefined
        ? seed.merge_commit_sha
        : merged
          ? fakeSha(`${repo}#${seed.number}:merge`)
          : null,
    commits: [...(seed.commits ?? [])]
  }
}

export function seedState(state: EmulatorState, data: SeedData): void {
  data.orgs?.forEach(org => addOrg(state, org))
  data.repos?.forEach(repo => addRepo(state, repo))
  if (data.attestedDigests !== undefined) state.attestedDigests = data.attestedDigests
  if (data.failNextJob !== undefined) state.failNextJob = data.failNextJob
  if (data.compareLimit !== undefined) state.compareLimit = data.compareLimit

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
      const list = listIn(state.commits, repo)
      const previous = list[list.length - 1]
      list.push({
        sha: commit.sha,
        message: commit.message,
        parents: [...(commit.parents ?? (previous ? [previous.sha] : []))],
        pulls: [...(commit.pulls ?? [])],
        ...(commit.committer ? { committer: commit.committer } : {}),
        ...(commit.date ? { date: commit.date } : {})
      })
    }
  }
  for (const [key, refs] of Object.entries(data.refs ?? {})) {
    const repo = addRepo(state, key)
    Object.assign((state.refs[repo] ??= {}), refs)
  }
  for (const [key, tags] of Object.entries(data.tags ?? {})) {
    const repo = addRepo(state, key)
    Object.assign((state.refs[repo] ??= {}), tags)
    const names = listIn(state.tagNames, repo)
    for (const name of Object.keys(tags)) if (!names.includes(name)) names.push(name)
  }
  for (const [key, records] of Object.entries(data.deploymentRecords ?? {})) {
    const org = addOrg(state, key)
    for (const seed of records) {
      upsertDeployment(state, org, {
        logical_environment: seed.logical_environment,
        physical_environment: seed.physical_environment ?? '',
        cluster: seed.cluster ?? '',
        attestationId:
          seed.attestation_id !== undefined
            ? seed.attestation_id
            : attestationIdFor(state, seed.digest),
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
      createStorage(state, org, {
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
