import type { Inputs } from './inputs/index.js'
import {
  deploymentRecordPath,
  storageRecordPath,
  type DeploymentRecordBody,
  type StorageRecordBody
} from './service/artifacts.js'

export type PlannedWrite =
  | { kind: 'storage-record'; method: 'POST'; path: string; body: StorageRecordBody }
  | { kind: 'deployment-record'; method: 'POST'; path: string; body: DeploymentRecordBody }

/** The writes the inputs ask for, in the order they are sent: storage record, then deployment record. */
export function planWrites(inputs: Inputs): PlannedWrite[] {
  const { connection, artifact, storage, deployment } = inputs
  const writes: PlannedWrite[] = []
  if (!artifact) return writes
  const serviceRepository = connection.serviceRepository
    ? { github_repository: connection.serviceRepository }
    : {}
  if (storage) {
    writes.push({
      kind: 'storage-record',
      method: 'POST',
      path: storageRecordPath(connection.org),
      body: compact({
        name: artifact.name,
        digest: artifact.digest,
        version: artifact.version,
        registry_url: storage.registryUrl,
        artifact_url: storage.artifactUrl,
        repository: storage.repository,
        path: storage.path,
        status: storage.status,
        ...serviceRepository,
        return_records: true
      })
    })
  }
  if (deployment) {
    writes.push({
      kind: 'deployment-record',
      method: 'POST',
      path: deploymentRecordPath(connection.org),
      body: compact({
        name: artifact.name,
        digest: artifact.digest,
        version: artifact.version,
        status: deployment.status,
        logical_environment: deployment.logicalEnvironment,
        physical_environment: deployment.physicalEnvironment,
        cluster: deployment.cluster,
        deployment_name: deployment.deploymentName,
        tags: deployment.tags,
        runtime_risks: deployment.runtimeRisks?.length ? deployment.runtimeRisks : undefined,
        ...serviceRepository,
        return_records: true
      })
    })
  }
  return writes
}

/** Drops undefined fields: the service is strict about what it is sent. */
function compact<T extends object>(body: T): T {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)) as T
}
