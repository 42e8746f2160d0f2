/**
 * The repository's deployments (`GET /repos/{o}/{r}/deployments`) and a deployment's statuses
 * (`GET .../deployments/{id}/statuses`), both newest first. GitHub records one deployment for
 * every job that names an `environment:`, with statuses as the job goes (`queued`,
 * `in_progress`, then `success`, `failure` or `error`; a success makes the environment's older
 * successes `inactive`). Only what the choice of a range's start reads is kept: absent and
 * `null` fields are fine, unknown ones ignored. Both need `deployments: read`.
 */
import * as z from 'zod/mini'
import type { ServiceClient } from '../client/client.js'
import { path, withQuery } from '../client/paths.js'
import { nextLink } from '../client/wire.js'
import { parseResponse } from './parse.js'

export interface Deployment {
  id: number
  sha: string
  ref?: string
  created_at?: string
}

export interface DeploymentStatus {
  /** `success`, `failure`, `error`, `inactive`, `pending`, `queued`, `in_progress`, ... */
  state: string
  created_at?: string
  /** where the run that wrote it is (`.../actions/runs/{run_id}/job/{job_id}` for a job's) */
  log_url?: string
  target_url?: string
}

const text = () => z.optional(z.nullable(z.string()))

// Built at their first use (`z.lazy`), as the other services' schemas.
const deploymentsSchema = z.lazy(() =>
  z.array(z.looseObject({ id: z.number(), sha: z.string(), ref: text(), created_at: text() }))
)
const statusesSchema = z.lazy(() =>
  z.array(
    z.looseObject({ state: z.string(), created_at: text(), log_url: text(), target_url: text() })
  )
)

/** A page of deployments, and the path of the next page when there is one. */
export interface DeploymentPage {
  deployments: Deployment[]
  next?: string
}

/** The first page of `environment`'s deployments, newest first. */
export function deploymentsPath(
  owner: string,
  repo: string,
  environment: string,
  perPage: number
): string {
  return withQuery(path`/repos/${owner}/${repo}/deployments`, { environment, per_page: perPage })
}

/** One page of deployments (from `deploymentsPath` or a page's `next`). */
export async function readDeploymentPage(
  client: ServiceClient,
  pagePath: string
): Promise<DeploymentPage> {
  const response = await client.request('GET', pagePath)
  const listed = parseResponse(deploymentsSchema, response.body, 'deployment list')
  const next = nextLink(response.headers['link'])
  return {
    deployments: listed.map(d => ({
      id: d.id,
      sha: d.sha,
      ...(d.ref ? { ref: d.ref } : {}),
      ...(d.created_at ? { created_at: d.created_at } : {})
    })),
    ...(next !== undefined ? { next } : {})
  }
}

/** The newest statuses of a deployment (one page of `perPage`), newest first. */
export async function listDeploymentStatuses(
  client: ServiceClient,
  owner: string,
  repo: string,
  id: number,
  perPage: number
): Promise<DeploymentStatus[]> {
  const response = await client.request(
    'GET',
    withQuery(path`/repos/${owner}/${repo}/deployments/${id}/statuses`, { per_page: perPage })
  )
  return parseResponse(statusesSchema, response.body, 'deployment status list').map(s => ({
    state: s.state,
    ...(s.created_at ? { created_at: s.created_at } : {}),
    ...(s.log_url ? { log_url: s.log_url } : {}),
    ...(s.target_url ? { target_url: s.target_url } : {})
  }))
}
