import { z } from 'zod'
import type { ServiceClient } from '../client/client.js'
import { path } from '../client/paths.js'

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
  .transform(record =>
    record.created_at === undefined && record.created !== undefined
      ? { ...record, created_at: record.created }
      : record
  )
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
  .transform(record =>
    record.created_at === undefined && record.created !== undefined
      ? { ...record, created_at: record.created }
      : record
  )
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

function parseResponse<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const result = schema.safeParse(body ?? {})
  if (!result.success) {
    throw new Error(
      `the service answered with an unexpected ${what} response: ${z.prettifyError(result.error)}`
    )
  }
  return result.data
}
