/**
 * The repository's deployments (GitHub's Deployments API: what a job naming an `environment:`
 * records) and their statuses, as seeded (`SeedData.deployments`): newest first, paged, the
 * list filtered by `environment`, `sha`, `ref` and `task` as the service filters it.
 */
import { notFound, paginate, type Reply, type RouteContext } from './http.js'
import type { Route } from './router.js'
import type { DeploymentState, DeploymentStatusState } from './state.js'

function deploymentJson(ctx: RouteContext, d: DeploymentState) {
  const url = `${ctx.baseUrl}/repos/${ctx.repo}/deployments/${d.id}`
  const updated = d.statuses[d.statuses.length - 1]?.created_at ?? d.created_at
  return {
    url,
    id: d.id,
    node_id: 'DE_' + Buffer.from(`${ctx.repo}:${d.id}`).toString('base64url'),
    sha: d.sha,
    ref: d.ref,
    task: d.task,
    payload: {},
    original_environment: d.environment,
    environment: d.environment,
    description: null,
    creator: null,
    created_at: d.created_at,
    updated_at: updated,
    statuses_url: `${url}/statuses`,
    repository_url: `${ctx.baseUrl}/repos/${ctx.repo}`,
    transient_environment: false,
    production_environment: d.environment === 'production'
  }
}

function statusJson(ctx: RouteContext, d: DeploymentState, s: DeploymentStatusState) {
  const deploymentUrl = `${ctx.baseUrl}/repos/${ctx.repo}/deployments/${d.id}`
  return {
    url: `${deploymentUrl}/statuses/${s.id}`,
    id: s.id,
    node_id: 'DES_' + Buffer.from(`${ctx.repo}:${s.id}`).toString('base64url'),
    state: s.state,
    creator: null,
    description: s.description,
    environment: d.environment,
    // the URL fields are `uri`s: absent rather than empty
    ...(s.target_url ? { target_url: s.target_url } : { target_url: deploymentUrl }),
    ...(s.log_url ? { log_url: s.log_url } : {}),
    ...(s.environment_url ? { environment_url: s.environment_url } : {}),
    created_at: s.created_at,
    updated_at: s.created_at,
    deployment_url: deploymentUrl,
    repository_url: `${ctx.baseUrl}/repos/${ctx.repo}`
  }
}

/** `deployments?environment=&sha=&ref=&task=`: newest first. */
function listDeployments(ctx: RouteContext): Reply {
  const filters = (['environment', 'sha', 'ref', 'task'] as const).flatMap(name => {
    const value = ctx.query.get(name)
    return value === null || value === '' ? [] : [[name, value] as const]
  })
  const all = [...(ctx.state.deployments[ctx.repo] ?? [])]
    .reverse()
    .filter(d => filters.every(([name, value]) => d[name] === value))
  const page = paginate(ctx, all)
  return { status: 200, headers: page.headers, body: page.items.map(d => deploymentJson(ctx, d)) }
}

/** `deployments/{id}/statuses`: newest first. */
function listStatuses(ctx: RouteContext): Reply {
  const raw = ctx.params.deployment_id ?? ''
  const deployment = /^\d+$/.test(raw)
    ? (ctx.state.deployments[ctx.repo] ?? []).find(d => d.id === Number(raw))
    : undefined
  if (!deployment) throw notFound()
  const page = paginate(ctx, [...deployment.statuses].reverse())
  return {
    status: 200,
    headers: page.headers,
    body: page.items.map(s => statusJson(ctx, deployment, s))
  }
}

const R = '/repos/:owner/:repo'
const DEPLOYMENTS_READ = [['deployments=read']]

export const deploymentRoutes: Route[] = [
  {
    method: 'GET',
    pattern: `${R}/deployments`,
    permission: DEPLOYMENTS_READ,
    handler: listDeployments
  },
  {
    method: 'GET',
    pattern: `${R}/deployments/:deployment_id/statuses`,
    permission: DEPLOYMENTS_READ,
    handler: listStatuses
  }
].map(route => ({ ...route, scope: 'repo' as const, docs: 'https://docs.github.com/rest' }))
