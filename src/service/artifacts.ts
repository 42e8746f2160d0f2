// Over 300 lines: one module per API family (the house rule): every artifact-metadata endpoint's request and lenient reader.
import * as z from 'zod/mini'
import type { RequestOptions, ServiceClient } from '../client/client.js'
import { path } from '../client/paths.js'
import {
  parseResponse,
  parseWriteResponse,
  salvageList,
  salvageObject,
  type WriteAnswer
} from './parse.js'

/** Some answers say `created` where the description says `created_at`: read both. */
function withCreatedAt<T extends { created_at?: unknown; created?: unknown }>(record: T): T {
  return (record.created_at === undefined || record.created_at === null) &&
    typeof record.created === 'string'
    ? { ...record, created_at: record.created }
    : record
}

/** The upsert rule's key: a write with the same key updates that record instead of adding one. */
export function deploymentRecordKey(r: {
  logical_environment?: string | null
  physical_environment?: string | null
  cluster?: string | null
  deployment_name?: string | null
}): string {
  return [
    r.logical_environment ?? '',
    r.physical_environment ?? '',
    r.cluster ?? '',
    r.deployment_name ?? ''
  ].join('\u0000')
}

/*
 * The readers below take only what the action reports, as GitHub's OpenAPI description promises
 * it: a field the description does not require may be absent or `null`, unknown fields are
 * kept as they came, and `created` is read where `created_at` is missing.
 */

// Each schema is built at its first use (`z.lazy`), not when the module loads: a run's start
// builds none of them before its first request, whose answer is the first to read.
const deploymentRecordShape = () => ({
  id: z.nullish(z.number()),
  digest: z.nullish(z.string()),
  logical_environment: z.nullish(z.string()),
  physical_environment: z.nullish(z.string()),
  cluster: z.nullish(z.string()),
  deployment_name: z.nullish(z.string()),
  attestation_id: z.nullish(z.number()),
  created_at: z.nullish(z.string()),
  created: z.nullish(z.string()),
  updated_at: z.nullish(z.string())
})
export const deploymentRecordSchema = z.lazy(() =>
  z.pipe(z.looseObject(deploymentRecordShape()), z.transform(withCreatedAt))
)
export type DeploymentRecord = z.infer<typeof deploymentRecordSchema>

/** The description requires none of a storage record's fields: its own example has no `id`. */
const storageRecordShape = () => ({
  id: z.nullish(z.number()),
  name: z.nullish(z.string()),
  digest: z.nullish(z.string()),
  registry_url: z.nullish(z.string()),
  repository: z.nullish(z.string()),
  artifact_url: z.nullish(z.string()),
  status: z.nullish(z.string()),
  created_at: z.nullish(z.string()),
  created: z.nullish(z.string()),
  updated_at: z.nullish(z.string())
})
export const storageRecordSchema = z.lazy(() =>
  z.pipe(z.looseObject(storageRecordShape()), z.transform(withCreatedAt))
)
export type StorageRecord = z.infer<typeof storageRecordSchema>

// `total_count` is required by the description but not used: a body without it is still read.
const deploymentRecordsResponse = z.lazy(() =>
  z.looseObject({
    total_count: z.nullish(z.number()),
    deployment_records: z.nullish(z.array(deploymentRecordSchema))
  })
)
const storageRecordsResponse = z.lazy(() =>
  z.looseObject({
    total_count: z.nullish(z.number()),
    storage_records: z.nullish(z.array(storageRecordSchema))
  })
)

const salvageDeploymentRecords = (body: unknown): DeploymentRecord[] =>
  salvageList(deploymentRecordShape(), body, 'deployment_records').map(
    r => withCreatedAt(r) as DeploymentRecord
  )
const salvageStorageRecords = (body: unknown): StorageRecord[] =>
  salvageList(storageRecordShape(), body, 'storage_records').map(
    r => withCreatedAt(r) as StorageRecord
  )

export interface DeploymentRecordBody {
  name: string
  digest: string
  version?: string
  status: string
  logical_environment: string
  physical_environment?: string
  cluster?: string
  deployment_name: string
  tags?: Record<string, string>
  runtime_risks?: string[]
  github_repository?: string
  return_records: boolean
}

export interface StorageRecordBody {
  name: string
  digest: string
  version?: string
  registry_url: string
  artifact_url?: string
  repository?: string
  path?: string
  status: string
  github_repository?: string
  return_records: boolean
}

export const deploymentRecordPath = (org: string) =>
  path`/orgs/${org}/artifacts/metadata/deployment-record`
export const storageRecordPath = (org: string) =>
  path`/orgs/${org}/artifacts/metadata/storage-record`

export async function createDeploymentRecord(
  client: ServiceClient,
  org: string,
  body: DeploymentRecordBody
): Promise<WriteAnswer<DeploymentRecord[]>> {
  const response = await client.request('POST', deploymentRecordPath(org), { body })
  const answer = parseWriteResponse(
    deploymentRecordsResponse,
    response.body,
    'deployment record',
    body => ({ deployment_records: salvageDeploymentRecords(body) })
  )
  return { value: answer.value.deployment_records ?? [], warning: answer.warning }
}

/** `lostAnswer`: see client/lost-answer.ts; the service creates a record per write. */
export async function createStorageRecord(
  client: ServiceClient,
  org: string,
  body: StorageRecordBody,
  lostAnswer?: RequestOptions['lostAnswer']
): Promise<WriteAnswer<StorageRecord[]>> {
  const response = await client.request('POST', storageRecordPath(org), { body, lostAnswer })
  const answer = parseWriteResponse(
    storageRecordsResponse,
    response.body,
    'storage record',
    body => ({ storage_records: salvageStorageRecords(body) })
  )
  return { value: answer.value.storage_records ?? [], warning: answer.warning }
}

export async function listDeploymentRecords(
  client: ServiceClient,
  org: string,
  digest: string
): Promise<DeploymentRecord[]> {
  return client.paginate(
    // The description declares no per_page or page here: the link header leads to more pages.
    path`/orgs/${org}/artifacts/${digest}/metadata/deployment-records`,
    body =>
      parseResponse(deploymentRecordsResponse, body, 'deployment record list').deployment_records ??
      []
  )
}

export async function listStorageRecords(
  client: ServiceClient,
  org: string,
  digest: string
): Promise<StorageRecord[]> {
  return client.paginate(
    path`/orgs/${org}/artifacts/${digest}/metadata/storage-records`,
    body => parseResponse(storageRecordsResponse, body, 'storage record list').storage_records ?? []
  )
}

/**
 * A deployment the service skipped or rejected, as it reports it. The job endpoints describe
 * these items only as objects, so every field may be absent or null, `deployment` included.
 * Besides `{cause, deployment}` the flat `{name, cause}` that GitHub's tracker reads (`name` is
 * the image's name) is read too.
 */
const skippedDeploymentShape = () => ({
  cause: z.nullish(z.string()),
  name: z.nullish(z.string()),
  deployment: z.nullish(
    z.looseObject({
      name: z.nullish(z.string()),
      digest: z.nullish(z.string()),
      deployment_name: z.nullish(z.string())
    })
  )
})
export const skippedDeploymentSchema = z.lazy(() => z.looseObject(skippedDeploymentShape()))
export type SkippedDeployment = z.infer<typeof skippedDeploymentSchema>
const salvageSkipped = (body: unknown): SkippedDeployment[] =>
  salvageList(skippedDeploymentShape(), body, 'errors')

const clusterSetResponse = z.lazy(() =>
  z.looseObject({
    total_count: z.nullish(z.number()),
    deployment_records: z.nullish(z.array(deploymentRecordSchema)),
    errors: z.nullish(z.array(skippedDeploymentSchema))
  })
)
// A 202 without `job_id` is read here and said by the caller in its own words: there is no job
// to follow.
const jobCreatedResponse = z.lazy(() =>
  z.looseObject({
    job_id: z.nullish(z.number()),
    errors: z.nullish(z.array(skippedDeploymentSchema))
  })
)
export const clusterJobSchema = z.lazy(() =>
  z.looseObject({
    job_id: z.nullish(z.number()),
    status: z.string(),
    started_at: z.nullish(z.string()),
    total_count: z.nullish(z.number()),
    errors: z.nullish(z.array(skippedDeploymentSchema))
  })
)
export type ClusterJob = z.infer<typeof clusterJobSchema>

export interface ClusterBody {
  logical_environment: string
  physical_environment?: string
  deployments: unknown[]
  partial_success?: boolean
  return_records?: boolean
}

export const clusterPath = (org: string, cluster: string) =>
  path`/orgs/${org}/artifacts/metadata/deployment-record/cluster/${cluster}`
export const clusterJobsPath = (org: string, cluster: string) => `${clusterPath(org, cluster)}/jobs`

export async function setClusterRecords(
  client: ServiceClient,
  org: string,
  cluster: string,
  body: ClusterBody
): Promise<{
  status: number
  records: DeploymentRecord[]
  errors: SkippedDeployment[]
  warning?: string
}> {
  const response = await client.request('POST', clusterPath(org, cluster), { body })
  const { value, warning } = parseWriteResponse(
    clusterSetResponse,
    response.body,
    'cluster set',
    body => ({
      deployment_records: salvageDeploymentRecords(body),
      errors: salvageSkipped(body)
    })
  )
  return {
    status: response.status,
    records: value.deployment_records ?? [],
    errors: value.errors ?? [],
    warning
  }
}

/** The job, when the answer names its id: without one there is no job to follow. */
export async function createClusterJob(
  client: ServiceClient,
  org: string,
  cluster: string,
  body: ClusterBody,
  stillNeeded?: () => Promise<boolean>
): Promise<{ jobId?: number; errors: SkippedDeployment[]; warning?: string }> {
  const path = clusterJobsPath(org, cluster)
  const response = await client.request('POST', path, { body, stillNeeded })
  const { value, warning } = parseWriteResponse<{
    job_id?: number | null
    errors?: SkippedDeployment[] | null
  }>(jobCreatedResponse, response.body, 'cluster job', body => {
    const id = salvageObject({ job_id: z.number() }, body)?.['job_id']
    return { job_id: typeof id === 'number' ? id : undefined, errors: salvageSkipped(body) }
  })
  return { jobId: value.job_id ?? undefined, errors: value.errors ?? [], warning }
}

/** One poll. With the etag of the previous answer a 304 says nothing changed (and costs no quota). */
export async function getClusterJob(
  client: ServiceClient,
  org: string,
  cluster: string,
  jobId: number,
  etag?: string
): Promise<{ job?: ClusterJob; etag?: string; pollIntervalSeconds?: number }> {
  const response = await client.request('GET', `${clusterJobsPath(org, cluster)}/${jobId}`, {
    headers: etag ? { 'if-none-match': etag } : undefined
  })
  // `0` is an interval (the shortest; the caller raises it to its floor); empty is none.
  const header = response.headers['x-poll-interval']?.trim()
  const interval = header ? Number(header) : NaN
  return {
    job: response.status === 304 ? undefined : readClusterJob(response.body, jobId),
    etag: response.headers['etag'] ?? etag,
    pollIntervalSeconds: Number.isFinite(interval) && interval >= 0 ? interval : undefined
  }
}

/**
 * A job status as the description gives it. Only `status` is needed to follow the job: without
 * it the answer is said in our words; `errors` entries are read one by one, an odd one left out.
 */
export function readClusterJob(body: unknown, jobId: number): ClusterJob {
  const parsed = clusterJobSchema.safeParse(body ?? {})
  if (parsed.success) return parsed.data
  const status = salvageObject({ status: z.string() }, body)?.['status']
  if (typeof status !== 'string')
    throw new Error(
      `the service answered the status of job ${jobId} without a \`status\` (an answer off its description), so whether the job finished is unknown`
    )
  const read = salvageObject(
    {
      job_id: z.nullish(z.number()),
      started_at: z.nullish(z.string()),
      total_count: z.nullish(z.number())
    },
    body
  )
  return { ...read, status, errors: salvageSkipped(body) } as ClusterJob
}
