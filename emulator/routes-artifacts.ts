import {
  ApiError,
  canReachRepo,
  type AnswerShape,
  notFound,
  paginate,
  validationFailed,
  type Reply,
  type RouteContext
} from './http.js'
import type { Route } from './router.js'
import {
  attestationIdFor,
  findRepo,
  isAttested,
  upsertDeployment,
  upsertStorage,
  type DeploymentInput,
  type DeploymentRecordState,
  type ItemError,
  type JobState,
  type StorageRecordState
} from './state.js'
import { CLUSTER, DIGEST, Fields, isObject, readDeployment, REPO_NAME } from './validate.js'

const WRITE = [['artifact_metadata=write']]
const READ = [['artifact_metadata=read']]
const DOCS = 'https://docs.github.com/rest/orgs/artifact-metadata'

/**
 * A deployment record in the description's shape (`artifact-deployment-record`): no name,
 * version or status; `attestation_id` null without an attestation. With `examples` answers it
 * says `created` instead of `created_at`, as the description's example does, and leaves out the
 * optional fields that are empty.
 */
function deploymentJson(r: DeploymentRecordState, shape: AnswerShape) {
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
function storageJson(r: StorageRecordState, shape: AnswerShape, list: boolean) {
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

type Resolution = { cause: ItemError['cause'] } | { attestationId: number | null }

/**
 * A named repository must be one of the org's and reachable by the token; without one, the
 * digest must have an attestation, since that is where the service finds the repository.
 */
function resolve(ctx: RouteContext, item: DeploymentInput): Resolution {
  if (item.github_repository !== null) {
    const repo = findRepo(ctx.state, `${ctx.org}/${item.github_repository}`)
    if (!repo || !canReachRepo(ctx.token, repo)) return { cause: 'unauthorized' }
  } else if (!isAttested(ctx.state, item.digest)) return { cause: 'not_found' }
  return { attestationId: attestationIdFor(ctx.state, item.digest) }
}

function rejection(org: string, error: ItemError): string {
  const { deployment } = error
  return error.cause === 'unauthorized'
    ? `Repository '${deployment.github_repository}' not found in organization '${org}' or not accessible`
    : `No attestation found for digest ${deployment.digest}`
}

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

interface ClusterBody {
  logical: string
  physical: string
  items: DeploymentInput[]
  partialSuccess: boolean
  returnRecords: boolean
}

function readClusterBody(ctx: RouteContext, maxItems: number, flags: boolean): ClusterBody {
  const f = new Fields('DeploymentRecord', ctx.body)
  const cluster = ctx.params.cluster ?? ''
  if (cluster.length > 128 || !CLUSTER.test(cluster))
    f.fail('cluster', 'invalid', `cluster must match ${CLUSTER.source} and be 1-128 characters`)
  const logical = f.string('logical_environment', { required: true, max: 128 }) ?? ''
  const physical = f.string('physical_environment', { max: 128 }) ?? ''
  const deployments = f.array('deployments', { required: true, max: maxItems }) ?? []
  const partialSuccess = flags ? f.boolean('partial_success', false) : false
  const returnRecords = flags ? f.boolean('return_records', true) : false

  const items: DeploymentInput[] = []
  const seen = new Set<string>()
  deployments.forEach((raw, index) => {
    const prefix = `deployments[${index}].`
    if (!isObject(raw)) {
      f.nested({}, prefix, index).fail('', 'invalid', 'a deployment must be an object')
      return
    }
    const item = readDeployment(f.nested(raw, prefix, index), false)
    if (seen.has(item.deployment_name))
      f.nested(raw, prefix, index).fail(
        'deployment_name',
        'custom',
        `deployment_name '${item.deployment_name}' appears more than once`
      )
    seen.add(item.deployment_name)
    items.push(item)
  })
  if (f.errors.length) throw validationFailed(f.errors)
  return { logical, physical, items, partialSuccess, returnRecords }
}

interface Sorted {
  accepted: Array<{ input: DeploymentInput; attestationId: number | null }>
  errors: ItemError[]
}

function sortItems(ctx: RouteContext, items: DeploymentInput[]): Sorted {
  const sorted: Sorted = { accepted: [], errors: [] }
  // The service identifies an artifact by repository and digest; the first item's name and
  // version win for later items naming the same artifact differently.
  const artifacts = new Map<string, Pick<DeploymentInput, 'name' | 'version'>>()
  for (const item of items) {
    const resolved = resolve(ctx, item)
    if ('cause' in resolved) {
      sorted.errors.push({ cause: resolved.cause, deployment: item })
      continue
    }
    const key = `${item.github_repository ?? ''}@${item.digest}`
    const first = artifacts.get(key) ?? { name: item.name, version: item.version }
    artifacts.set(key, first)
    sorted.accepted.push({ input: { ...item, ...first }, attestationId: resolved.attestationId })
  }
  return sorted
}

function setClusterRecords(ctx: RouteContext): Reply {
  const body = readClusterBody(ctx, 1000, true)
  const { accepted, errors } = sortItems(ctx, body.items)
  const firstError = errors[0]
  if (firstError && !body.partialSuccess) {
    const message = `Deployment '${firstError.deployment.deployment_name}' rejected: ${rejection(ctx.org, firstError)}`
    throw new ApiError(404, message, { errors })
  }
  const records = accepted.map(({ input, attestationId }) =>
    upsertDeployment(ctx.state, ctx.org, {
      input,
      logical_environment: body.logical,
      physical_environment: body.physical,
      cluster: ctx.params.cluster ?? '',
      attestationId
    })
  )
  const result: Record<string, unknown> = {
    total_count: records.length,
    deployment_records: body.returnRecords ? records.map(r => deploymentJson(r, ctx.answers)) : []
  }
  if (!body.partialSuccess || errors.length === 0) return { status: 200, body: result }
  return { status: 207, body: { ...result, errors } }
}

function createJob(ctx: RouteContext): Reply {
  const body = readClusterBody(ctx, 5000, false)
  const cluster = ctx.params.cluster ?? ''
  const busy = ctx.state.jobs.some(
    job =>
      job.org === ctx.org &&
      job.cluster === cluster &&
      (job.status === 'pending' || job.status === 'processing')
  )
  if (busy) throw new ApiError(409, 'A job is already in progress for this cluster')

  const { accepted, errors } = sortItems(ctx, body.items)
  const job: JobState = {
    job_id: ctx.state.nextId.job++,
    org: ctx.org,
    cluster,
    status: 'pending',
    started_at: new Date().toISOString(),
    total_count: accepted.length,
    errors,
    logical_environment: body.logical,
    physical_environment: body.physical,
    deployments: accepted,
    willFail: ctx.state.failNextJob
  }
  ctx.state.failNextJob = false
  ctx.state.jobs.push(job)
  const { state, org } = ctx
  ctx.later(ctx.jobStepMs, () => {
    job.status = 'processing'
    ctx.later(ctx.jobStepMs, () => {
      if (job.willFail) {
        job.status = 'failed'
        return
      }
      for (const { input, attestationId } of job.deployments)
        upsertDeployment(state, org, {
          input,
          logical_environment: job.logical_environment,
          physical_environment: job.physical_environment,
          cluster,
          attestationId
        })
      job.status = 'completed'
    })
  })
  // The description's example answers `{job_id}` alone when nothing was rejected.
  const answer = ctx.answers === 'examples' && errors.length === 0 ? {} : { errors }
  return { status: 202, body: { job_id: job.job_id, ...answer } }
}

function getJob(ctx: RouteContext): Reply {
  const id = ctx.params.job_id ?? ''
  const job = /^\d+$/.test(id)
    ? ctx.state.jobs.find(
        j => j.job_id === Number(id) && j.org === ctx.org && j.cluster === ctx.params.cluster
      )
    : undefined
  if (!job) throw notFound()
  const headers: Record<string, string> = {}
  if (ctx.pollIntervalSeconds !== undefined)
    headers['x-poll-interval'] = String(ctx.pollIntervalSeconds)
  const { job_id, status, started_at, total_count, errors } = job
  if (ctx.answers === 'full')
    return { status: 200, headers, body: { job_id, status, started_at, total_count, errors } }
  // As the description says: started_at once processing, total_count when completed, errors
  // when completed or failed.
  const body: Record<string, unknown> = { job_id, status }
  if (status !== 'pending') body.started_at = started_at
  if (status === 'completed') body.total_count = total_count
  if (status === 'completed' || status === 'failed') body.errors = errors
  return { status: 200, headers, body }
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

  const record = upsertStorage(ctx.state, ctx.org, write)
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
