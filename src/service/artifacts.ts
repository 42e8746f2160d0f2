import { z } from 'zod'
import type { ServiceClient } from '../client/client.js'
import { path } from '../client/paths.js'
import { parseResponse } from './parse.js'

/** Some answers say `created` where the description says `created_at`: read both. */
function withCreatedAt<T extends { created_at?: string; created?: string }>(record: T): T {
  return record.created_at === undefined && record.created !== undefined
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

/** Lenient: unknown fields are kept, and `created` is read where `created_at` is missing. */
export const deploymentRecordSchema = z
  .looseObject({
    id: z.number(),
    digest: z.string().optional(),
    logical_environment: z.string().nullish(),
    physical_environment: z.string().nullish(),
    cluster: z.string().nullish(),
    deployment_name: z.string().nullish(),
    created_at: z.string().optional(),
    created: z.string().optional(),
    updated_at: z.string().optional()
  })
  .transform(withCreatedAt)
export type DeploymentRecord = z.infer<typeof deploymentRecordSchema>

export const storageRecordSchema = z
  .looseObject({
    id: z.number(),
    name: z.string().optional(),
    digest: z.string().optional(),
    registry_url: z.string().nullish(),
    repository: z.string().nullish(),
    artifact_url: z.string().nullish(),
    status: z.string().optional(),
    created_at: z.string().optional(),
    created: z.string().optional(),
    updated_at: z.string().optional()
  })
  .transform(withCreatedAt)
export type StorageRecord = z.infer<typeof storageRecordSchema>

const deploymentRecordsResponse = z.looseObject({
  total_count: z.number().optional(),
  deployment_records: z.array(deploymentRecordSchema).default([])
})
const storageRecordsResponse = z.looseObject({
  total_count: z.number().optional(),
  storage_records: z.array(storageRecordSchema).default([])
})

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
): Promise<DeploymentRecord[]> {
  const response = await client.request('POST', deploymentRecordPath(org), { body })
  return parseResponse(deploymentRecordsResponse, response.body, 'deployment record')
    .deployment_records
}

export async function createStorageRecord(
  client: ServiceClient,
  org: string,
  body: StorageRecordBody
): Promise<StorageRecord[]> {
  const response = await client.request('POST', storageRecordPath(org), { body })
  return parseResponse(storageRecordsResponse, response.body, 'storage record').storage_records
}

export async function listDeploymentRecords(
  client: ServiceClient,
  org: string,
  digest: string
): Promise<DeploymentRecord[]> {
  return client.paginate(
    path`/orgs/${org}/artifacts/${digest}/metadata/deployment-records` + '?per_page=100',
    body =>
      parseResponse(deploymentRecordsResponse, body, 'deployment record list').deployment_records
  )
}

export async function listStorageRecords(
  client: ServiceClient,
  org: string,
  digest: string
): Promise<StorageRecord[]> {
  return client.paginate(
    path`/orgs/${org}/artifacts/${digest}/metadata/storage-records` + '?per_page=100',
    body => parseResponse(storageRecordsResponse, body, 'storage record list').storage_records
  )
}

/** A deployment the service skipped or rejected, as it reports it. */
export const skippedDeploymentSchema = z.looseObject({
  cause: z.string().optional(),
  deployment: z
    .looseObject({
      name: z.string().optional(),
      digest: z.string().optional(),
      deployment_name: z.string().optional()
    })
    .optional()
})
export type SkippedDeployment = z.infer<typeof skippedDeploymentSchema>

const clusterSetResponse = z.looseObject({
  total_count: z.number().optional(),
  deployment_records: z.array(deploymentRecordSchema).default([]),
  errors: z.array(skippedDeploymentSchema).default([])
})
const jobCreatedResponse = z.looseObject({
  job_id: z.number(),
  errors: z.array(skippedDeploymentSchema).nullish()
})
export const clusterJobSchema = z.looseObject({
  job_id: z.number().optional(),
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
): Promise<{ status: number; records: DeploymentRecord[]; errors: SkippedDeployment[] }> {
  const response = await client.request('POST', clusterPath(org, cluster), { body })
  const parsed = parseResponse(clusterSetResponse, response.body, 'cluster set')
  return { status: response.status, records: parsed.deployment_records, errors: parsed.errors }
}

export async function createClusterJob(
  client: ServiceClient,
  org: string,
  cluster: string,
  body: ClusterBody
): Promise<{ jobId: number; errors: SkippedDeployment[] }> {
  const response = await client.request('POST', clusterJobsPath(org, cluster), { body })
  const parsed = parseResponse(jobCreatedResponse, response.body, 'cluster job')
  return { jobId: parsed.job_id, errors: parsed.errors ?? [] }
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
