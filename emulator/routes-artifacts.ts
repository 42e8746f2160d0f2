import {
  canReachRepo,
  notFound,
  paginate,
  validationFailed,
  type Reply,
  type RouteContext
} from './http.js'
import type { Route } from './router.js'
import { upsertDeployment, createStorage, type DeploymentInput } from './state.js'
import { deploymentJson, rejection, resolve, storageJson } from './artifact-records.js'
import { createJob, getJob, setClusterRecords } from './routes-cluster.js'
import { DIGEST, Fields, readDeployment, REPO_NAME } from './validate.js'

const WRITE = [['artifact_metadata=write']]
const READ = [['artifact_metadata=read']]
const DOCS = 'https://docs.github.com/rest/orgs/artifact-metadata'

function createDeploymentRecord(ctx: RouteContext): Reply {
  const f = new Fields('DeploymentRecord', ctx.body)
  const input = readDeployment(f, true)
  const logical = f.string('logical_environment', { required: true, max: 128 }) ?? ''
  const physical = f.string('physical_environment', { max: 128 }) ?? ''
  const cluster = f.string('cluster', { max: 128 }) ?? ''
  const returnRecords = f.boolean('return_records', true)
  if (f.errors.length) throw validationFailed(f.errors)

  // A repository outside the org answers 404 rather than 422: the service does not confirm
  // which repositories exist, and 404 is what it documents for this endpoint.
  const resolved = resolve(ctx, input)
  if ('cause' in resolved) throw notFound(rejection(ctx.org, { ...resolved, deployment: input }))

  const record = upsertDeployment(ctx.state, ctx.org, {
    input,
    logical_environment: logical,
    physical_environment: physical,
    cluster,
    attestationId: resolved.attestationId
  })
  return {
    status: 200,
    body: {
      total_count: 1,
      deployment_records: returnRecords ? [deploymentJson(record, ctx.answers)] : []
    }
  }
}

function subjectDigest(ctx: RouteContext): string {
  const digest = ctx.params.subject_digest ?? ''
  if (!DIGEST.test(digest)) {
    const f = new Fields('Artifact', {})
    f.fail('subject_digest', 'invalid', `subject_digest must match ${DIGEST.source}`, digest)
    throw validationFailed(f.errors)
  }
  return digest
}

function visible(ctx: RouteContext, record: { github_repository: string | null }): boolean {
  // Records of repositories the token cannot read are left out, as the service does.
  if (record.github_repository === null) return true
  return canReachRepo(ctx.token, `${ctx.org}/${record.github_repository}`)
}

function listDeploymentRecords(ctx: RouteContext): Reply {
  const digest = subjectDigest(ctx)
  const all = (ctx.state.deploymentRecords[ctx.org] ?? []).filter(
    r => r.digest === digest && visible(ctx, r)
  )
  const page = paginate(ctx, all)
  return {
    status: 200,
    headers: page.headers,
    body: {
      total_count: all.length,
      deployment_records: page.items.map(r => deploymentJson(r, ctx.answers))
    }
  }
}

function listStorageRecords(ctx: RouteContext): Reply {
  const digest = subjectDigest(ctx)
  const all = (ctx.state.storageRecords[ctx.org] ?? []).filter(
    r => r.digest === digest && visible(ctx, r)
  )
  const page = paginate(ctx, all)
  return {
    status: 200,
    headers: page.headers,
    body: {
      total_count: all.length,
      storage_records: page.items.map(r => storageJson(r, ctx.answers, true))
    }
  }
}

function createStorageRecord(ctx: RouteContext): Reply {
  const f = new Fields('StorageRecord', ctx.body)
  const name = f.string('name', { required: true, max: 256 }) ?? ''
  const digest = f.string('digest', { required: true, pattern: DIGEST }) ?? ''
  const registryUrl = f.string('registry_url', { required: true, max: 256, https: true }) ?? ''
  const write = {
    name,
    digest,
    registry_url: registryUrl,
    version: f.string('version', { min: 1, max: 100 }) ?? null,
    artifact_url: f.string('artifact_url', { max: 152, https: true }) ?? null,
    path: f.string('path', { max: 512 }) ?? null,
    repository: f.string('repository', { max: 128 }) ?? null,
    status: f.string('status', { oneOf: ['active', 'eol', 'deleted'] }) ?? 'active',
    github_repository: f.string('github_repository', { max: 100, pattern: REPO_NAME }) ?? null
  }
  const returnRecords = f.boolean('return_records', true)
  if (f.errors.length) throw validationFailed(f.errors)

  const probe: DeploymentInput = {
    name,
    digest,
    version: write.version,
    status: write.status,
    deployment_name: '',
    github_repository: write.github_repository,
    tags: {},
    runtime_risks: []
  }
  const resolved = resolve(ctx, probe)
  if ('cause' in resolved) throw notFound(rejection(ctx.org, { ...resolved, deployment: probe }))

  const record = createStorage(ctx.state, ctx.org, write)
  return {
    status: 200,
    body: {
      total_count: 1,
      storage_records: returnRecords ? [storageJson(record, ctx.answers, false)] : []
    }
  }
}

const CLUSTER_PATH = '/orgs/:org/artifacts/metadata/deployment-record/cluster/:cluster'

export const artifactRoutes: Route[] = [
  {
    method: 'POST',
    pattern: '/orgs/:org/artifacts/metadata/deployment-record',
    handler: createDeploymentRecord
  },
  { method: 'POST', pattern: CLUSTER_PATH, handler: setClusterRecords },
  { method: 'POST', pattern: `${CLUSTER_PATH}/jobs`, handler: createJob },
  { method: 'GET', pattern: `${CLUSTER_PATH}/jobs/:job_id`, handler: getJob, read: true },
  {
    method: 'POST',
    pattern: '/orgs/:org/artifacts/metadata/storage-record',
    handler: createStorageRecord
  },
  {
    method: 'GET',
    pattern: '/orgs/:org/artifacts/:subject_digest/metadata/deployment-records',
    handler: listDeploymentRecords,
    read: true
  },
  {
    method: 'GET',
    pattern: '/orgs/:org/artifacts/:subject_digest/metadata/storage-records',
    handler: listStorageRecords,
    read: true
  }
].map(({ read, ...route }: Omit<Route, 'permission' | 'scope'> & { read?: boolean }) => ({
  ...route,
  scope: 'org' as const,
  permission: read ? READ : WRITE,
  docs: DOCS
}))
