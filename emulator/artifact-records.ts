// Artifact-metadata records in the description's shapes, and where an item's repository resolves.
import { canReachRepo, type AnswerShape, type RouteContext } from './http.js'
import {
  attestationIdFor,
  findRepo,
  isAttested,
  type DeploymentInput,
  type DeploymentRecordState,
  type ItemError,
  type StorageRecordState
} from './state.js'

/**
 * A deployment record in the description's shape (`artifact-deployment-record`): no name,
 * version or status; `attestation_id` null without an attestation. With `examples` answers it
 * says `created` instead of `created_at`, as the description's example does, and leaves out the
 * optional fields that are empty.
 */
export function deploymentJson(r: DeploymentRecordState, shape: AnswerShape) {
  if (shape === 'full')
    return {
      id: r.id,
      digest: r.digest,
      logical_environment: r.logical_environment,
      physical_environment: r.physical_environment,
      cluster: r.cluster,
      deployment_name: r.deployment_name,
      tags: r.tags,
      runtime_risks: r.runtime_risks,
      created_at: r.created_at,
      updated_at: r.updated_at,
      attestation_id: r.attestation_id
    }
  return {
    id: r.id,
    digest: r.digest,
    logical_environment: r.logical_environment,
    ...(r.physical_environment ? { physical_environment: r.physical_environment } : {}),
    ...(r.cluster ? { cluster: r.cluster } : {}),
    deployment_name: r.deployment_name,
    ...(Object.keys(r.tags).length > 0 ? { tags: r.tags } : {}),
    ...(r.runtime_risks.length > 0 ? { runtime_risks: r.runtime_risks } : {}),
    created: r.created_at,
    updated_at: r.updated_at,
    attestation_id: r.attestation_id
  }
}

/**
 * A storage record. The create answer may say `null` for `artifact_url` and `repository`; the
 * list answer types them as plain strings, so there they are left out when unset. With
 * `examples` answers there is no `id`, as in the description's examples.
 */
export function storageJson(r: StorageRecordState, shape: AnswerShape, list: boolean) {
  const optional = (value: string | null) =>
    value !== null ? value : list || shape === 'examples' ? undefined : null
  const json = {
    ...(shape === 'full' ? { id: r.id } : {}),
    name: r.name,
    digest: r.digest,
    artifact_url: optional(r.artifact_url),
    registry_url: r.registry_url,
    repository: optional(r.repository),
    status: r.status,
    created_at: r.created_at,
    updated_at: r.updated_at
  }
  return Object.fromEntries(Object.entries(json).filter(([, value]) => value !== undefined))
}

export type Resolution = { cause: ItemError['cause'] } | { attestationId: number | null }

/**
 * A named repository must be one of the org's and reachable by the token; without one, the
 * digest must have an attestation, since that is where the service finds the repository.
 */
export function resolve(ctx: RouteContext, item: DeploymentInput): Resolution {
  if (item.github_repository !== null) {
    const repo = findRepo(ctx.state, `${ctx.org}/${item.github_repository}`)
    if (!repo || !canReachRepo(ctx.token, repo)) return { cause: 'unauthorized' }
  } else if (!isAttested(ctx.state, item.digest)) return { cause: 'not_found' }
  return { attestationId: attestationIdFor(ctx.state, item.digest) }
}

export function rejection(org: string, error: ItemError): string {
  const { deployment } = error
  return error.cause === 'unauthorized'
    ? `Repository '${deployment.github_repository}' not found in organization '${org}' or not accessible`
    : `No attestation found for digest ${deployment.digest}`
}
