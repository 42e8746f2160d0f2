import { createHash } from 'node:crypto'
import {
  ApiError,
  canReachRepo,
  DOCS,
  isGranted,
  permissionHeader,
  type Reply,
  type RouteContext,
  type TokenGrant
} from './http.js'
import { matchRoute, type Route } from './router.js'
import { artifactRoutes } from './routes-artifacts.js'
import { labelRoutes } from './routes-labels.js'
import { pullRoutes, searchRoutes } from './routes-pulls.js'
import { findOrg, findRepo, type EmulatorState } from './state.js'
import type { EmulatorOptions, RecordedRequest } from './types.js'
import { isObject } from './validate.js'

const ROUTES: Route[] = [...artifactRoutes, ...labelRoutes, ...pullRoutes, ...searchRoutes]
const API_PREFIX = '/api/v3'
const DEFAULT_VERSION = '2022-11-28'
const USER_AGENT_MESSAGE =
  'Request forbidden by administrative rules. Please make sure your request has a User-Agent header (https://docs.github.com/rest/overview/resources-in-the-rest-api#user-agent-required). Check https://developer.github.com for other possible causes.'

/** What the checks and the handlers need from the running emulator, as it is when a request arrives. */
export interface DispatchContext {
  url: string
  state: EmulatorState
  tokens: Record<string, TokenGrant>
  apiVersions: string[]
  options: EmulatorOptions
  writesInFlight: number
  lastWriteFinishedAt: number
  later: (ms: number, fn: () => void) => void
}

function bearer(header: string | undefined): string | undefined {
  return header?.match(/^(?:bearer|token)\s+(\S+)\s*$/i)?.[1]
}

/** The reply and the documentation_url for a request that no fault rule took. */
export function dispatch(
  emulator: DispatchContext,
  record: RecordedRequest,
  raw: string,
  isWrite: boolean
): { reply: Reply; docs: string } {
  try {
    return route(emulator, record, raw, isWrite)
  } catch (error) {
    return { reply: errorReply(error), docs: DOCS }
  }
}

function errorReply(error: unknown): Reply {
  if (error instanceof ApiError)
    return {
      status: error.status,
      headers: error.headers,
      body: { message: error.message, ...error.extra }
    }
  console.error('emulator: handler failed', error)
  return { status: 500, body: { message: 'Server Error' } }
}

/** The checks every request goes through, in the service's order, then the handler. */
function route(emulator: DispatchContext, record: RecordedRequest, raw: string, isWrite: boolean) {
  const { headers, method } = record
  if (!headers['user-agent']) throw new ApiError(403, USER_AGENT_MESSAGE)

  const token = bearer(headers.authorization)
  const grant = token === undefined ? undefined : emulator.tokens[token]
  if (!grant) throw new ApiError(401, 'Bad credentials')

  const apiVersion = headers['x-github-api-version'] ?? DEFAULT_VERSION
  if (!emulator.apiVersions.includes(apiVersion))
    throw new ApiError(400, `API version '${apiVersion}' is not supported.`)

  const gap = emulator.options.minWriteGapMs
  // Another write still in flight counts as no gap at all.
  const tooSoon =
    emulator.writesInFlight > 1 || record.arrivedAt - emulator.lastWriteFinishedAt < (gap ?? 0)
  if (isWrite && gap !== undefined && tooSoon)
    throw new ApiError(
      403,
      'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      {},
      { 'retry-after': '60' }
    )

  const prefixed = record.path === API_PREFIX || record.path.startsWith(API_PREFIX + '/')
  const path = prefixed ? record.path.slice(API_PREFIX.length) : record.path
  const match = matchRoute(ROUTES, method, path)
  if (!match) throw new ApiError(404, 'Not Found')
  const { route, params } = match
  const docs = route.docs ?? DOCS

  let org = ''
  let repo = ''
  if (route.scope === 'org') {
    org = findOrg(emulator.state, params.org ?? '') ?? ''
    if (!org) throw new ApiError(404, 'Not Found')
  } else if (route.scope === 'repo') {
    repo = findRepo(emulator.state, `${params.owner}/${params.repo}`) ?? ''
    // A repository the token cannot reach looks like one that does not exist.
    if (!repo || !canReachRepo(grant, repo)) throw new ApiError(404, 'Not Found')
  }

  if (!isGranted(grant, route.permission))
    throw new ApiError(
      403,
      'Resource not accessible by integration',
      {},
      { 'x-accepted-github-permissions': permissionHeader(route.permission) }
    )

  let body: Record<string, unknown> = {}
  if (method === 'POST' || method === 'PATCH' || method === 'PUT') {
    let parsed: unknown = {}
    try {
      parsed = raw.trim() === '' ? {} : JSON.parse(raw)
    } catch {
      throw new ApiError(400, 'Problems parsing JSON')
    }
    if (!isObject(parsed)) throw new ApiError(400, 'Body should be a JSON object')
    body = parsed
  }

  const base = emulator.url + (prefixed ? API_PREFIX : '')
  const { options } = emulator
  const ctx: RouteContext = {
    method,
    params,
    query: new URLSearchParams(record.url.slice(record.path.length + 1)),
    body,
    apiVersion,
    token: grant,
    state: emulator.state,
    baseUrl: base,
    selfUrl: base + path,
    org,
    repo,
    jobStepMs: options.jobStepMs ?? 50,
    pollIntervalSeconds: options.pollIntervalSeconds,
    answers: options.answers ?? 'full',
    later: emulator.later
  }
  return { reply: conditional(record, route.handler(ctx)), docs }
}

/** Answers 304 to a GET whose if-none-match names the current body. */
function conditional(record: RecordedRequest, reply: Reply): Reply {
  if (record.method !== 'GET' || reply.status !== 200) return reply
  const etag = `W/"${createHash('sha1').update(JSON.stringify(reply.body)).digest('hex')}"`
  const headers = { ...reply.headers, etag }
  const wanted = record.headers['if-none-match']?.split(',').map(tag => tag.trim())
  if (wanted?.includes(etag) || wanted?.includes(etag.slice(2))) return { status: 304, headers }
  return { ...reply, headers }
}
