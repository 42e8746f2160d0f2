import type { Connection } from '../inputs/connection.js'
import type { RecordInputs } from './inputs.js'
import {
  deploymentRecordPath,
  storageRecordPath,
  type DeploymentRecordBody,
  type StorageRecordBody
} from '../service/artifacts.js'

/** A record write, as it goes on the wire. */
export type RecordRequest =
  | { kind: 'storage-record'; method: 'POST'; path: string; body: StorageRecordBody }
  | { kind: 'deployment-record'; method: 'POST'; path: string; body: DeploymentRecordBody }

/** The writes the inputs ask for, in the order they are sent: storage record, then deployment record. */
export function recordRequests(
  connection: Connection,
  { artifact, storage, deployment }: RecordInputs
): RecordRequest[] {
  const writes: RecordRequest[] = []
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

/** The write in the user's words, for the log, the summary and the failure report. */
export function describeRequest(write: RecordRequest): string {
  if (write.kind === 'storage-record') {
    return `storage record for ${write.body.name} at ${write.body.registry_url}`
  }
  const b = write.body
  const where = [b.logical_environment, b.physical_environment, b.cluster].filter(Boolean).join('/')
  return `deployment record ${b.deployment_name} (${b.status}) in ${where}`
}
