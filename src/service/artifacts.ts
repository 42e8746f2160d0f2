import { z } from 'zod'
import type { ServiceClient } from '../client/client.js'
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

const deploymentRecordShape = {
  id: z.number().nullish(),
  digest: z.string().nullish(),
  logical_environment: z.string().nullish(),
  physical_environment: z.string().nullish(),
  cluster: z.string().nullish(),
  deployment_name: z.string().nullish(),
  attestation_id: z.number().nullish(),
  created_at: z.string().nullish(),
  created: z.string().nullish(),
  updated_at: z.string().nullish()
}
export const deploymentRecordSchema = z.looseObject(deploymentRecordShape).transform(withCreatedAt)
export type DeploymentRecord = z.infer<typeof deploymentRecordSchema>

/** The description requires none of a storage record's fields: its own example has no `id`. */
const storageRecordShape = {
  id: z.number().nullish(),
  name: z.string().nullish(),
  digest: z.string().nullish(),
  registry_url: z.string().nullish(),
  repository: z.string().nullish(),
  artifact_url: z.string().nullish(),
  status: z.string().nullish(),
  created_at: z.string().nullish(),
  created: z.string().nullish(),
  updated_at: z.string().nullish()
}
export const storageRecordSchema = z.looseObject(storageRecordShape).transform(withCreatedAt)
export type StorageRecord = z.infer<typeof storageRecordSchema>

// `total_count` is required by the description but not used: a body without it is still read.
const deploymentRecordsResponse = z.looseObject({
  total_count: z.number().nullish(),
  deployment_records: z.array(deploymentRecordSchema).nullish()
})
const storageRecordsResponse = z.looseObject({
  total_count: z.number().nullish(),
  storage_records: z.array(storageRecordSchema).nullish()
})

const salvageDeploymentRecords = (body: unknown): DeploymentRecord[] =>
  salvageList(deploymentRecordShape, body, 'deployment_records').map(
    r => withCreatedAt(r) as DeploymentRecord
  )
const salvageStorageRecords = (body: unknown): StorageRecord[] =>
  salvageList(storageRecordShape, body, 'storage_records').map(
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

export async function createStorageRecord(
  client: ServiceClient,
  org: string,
  body: StorageRecordBody
): Promise<WriteAnswer<StorageRecord[]>> {
  const response = await client.request('POST', storageRecordPath(org), { body })
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
 */
const skippedDeploymentShape = {
  cause: z.string().nullish(),
  deployment: z
    .looseObject({
      name: z.string().nullish(),
      digest: z.string().nullish(),
      deployment_name: z.string().nullish()
    })
    .nullish()
}
export const skippedDeploymentSchema = z.looseObject(skippedDeploymentShape)
export type SkippedDeployment = z.infer<typeof skippedDeploymentSchema>
const salvageSkipped = (body: unknown): SkippedDeployment[] =>
  salvageList(skippedDeploymentShape, body, 'errors')

const clusterSetResponse = z.looseObject({
  total_count: z.number().nullish(),
  deployment_records: z.array(deploymentRecordSchema).nullish(),
  errors: z.array(skippedDeploymentSchema).nullish()
})
const jobCreatedResponse = z.looseObject({
  job_id: z.number(),
  errors: z.array(skippedDeploymentSchema).nullish()
})
export const clusterJobSchema = z.looseObject({
  job_id: z.number().nullish(),
  status: z.string(),
  started_at: z.string().nullish(),
  total_count: z.number().nullish(),
  errors: z.array(skippedDeploymentSchema).nullish()
})
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
  body: ClusterBody
): Promise<{ jobId?: number; errors: SkippedDeployment[]; warning?: string }> {
  const response = await client.request('POST', clusterJobsPath(org, cluster), { body })
  const { value, warning } = parseWriteResponse<{
    job_id?: number
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
  const interval = Number(response.headers['x-poll-interval'])
  return {
    job:
      response.status === 304
        ? undefined
        : parseResponse(clusterJobSchema, response.body, 'job status'),
    etag: response.headers['etag'] ?? etag,
    pollIntervalSeconds: Number.isFinite(interval) && interval > 0 ? interval : undefined
  }
}
