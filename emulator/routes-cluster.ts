// Cluster deployment records: the synchronous set and the asynchronous job, and its status.
import { ApiError, notFound, validationFailed, type Reply, type RouteContext } from './http.js'
import { upsertDeployment, type DeploymentInput, type ItemError, type JobState } from './state.js'
import { deploymentJson, rejection, resolve } from './artifact-records.js'
import { CLUSTER, Fields, isObject, readDeployment } from './validate.js'

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

export function setClusterRecords(ctx: RouteContext): Reply {
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

export function createJob(ctx: RouteContext): Reply {
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

export function getJob(ctx: RouteContext): Reply {
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
