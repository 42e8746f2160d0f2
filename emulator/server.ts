import { createHash } from 'node:crypto'
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { handleControl } from './control.js'
import { FaultQueue, type Fault, type FaultRule } from './faults.js'
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
import { pullRoutes } from './routes-pulls.js'
import { seedState, type SeedData } from './seed.js'
import { createState, findOrg, findRepo, type EmulatorState } from './state.js'
import type { Emulator, EmulatorOptions, RecordedRequest } from './types.js'
import { isObject } from './validate.js'

const ROUTES: Route[] = [...artifactRoutes, ...labelRoutes, ...pullRoutes]
const API_PREFIX = '/api/v3'
const DEFAULT_VERSION = '2022-11-28'
const RATE_LIMIT = 5000
const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE'])
const USER_AGENT_MESSAGE =
  'Request forbidden by administrative rules. Please make sure your request has a User-Agent header (https://docs.github.com/rest/overview/resources-in-the-rest-api#user-agent-required). Check https://developer.github.com for other possible causes.'

const now = () => performance.timeOrigin + performance.now()

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return headers
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = []
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer)
  } catch {
    return undefined // the client went away mid-body; nobody is left to answer
  }
  return Buffer.concat(chunks).toString('utf8')
}

function parseLoose(raw: string): unknown {
  if (raw === '') return undefined
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

function bearer(header: string | undefined): string | undefined {
  return header?.match(/^(?:bearer|token)\s+(\S+)\s*$/i)?.[1]
}

class EmulatorServer implements Emulator {
  url = ''
  readonly requests: RecordedRequest[] = []
  state: EmulatorState
  private readonly faults = new FaultQueue()
  private readonly sockets = new Set<Socket>()
  /** Marks a response finished; called just before its last bytes are written. */
  private readonly ending = new WeakMap<ServerResponse, () => void>()
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly server = createServer((req, res) => void this.handle(req, res))
  private readonly tokens: Record<string, TokenGrant>
  private readonly apiVersions: string[]
  private responses = 0
  private writesInFlight = 0
  private lastWriteFinishedAt = -Infinity
  private rate = { used: 0, reset: 0 }

  constructor(private readonly options: EmulatorOptions) {
    this.tokens = options.tokens ?? { 'test-token': { permissions: 'all' } }
    this.apiVersions = options.apiVersions ?? ['2022-11-28', '2026-03-10']
    this.state = this.freshState()
    this.server.on('connection', socket => {
      this.sockets.add(socket)
      socket.on('close', () => this.sockets.delete(socket))
    })
  }

  async listen(): Promise<void> {
    const host = this.options.host ?? '127.0.0.1'
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(this.options.port ?? 0, host, () => resolve())
    })
    const { port } = this.server.address() as AddressInfo
    this.url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  }

  private freshState(): EmulatorState {
    const { orgs = ['acme'], repos = ['acme/web'], attestedDigests = 'any' } = this.options
    const state = createState(orgs, repos, attestedDigests)
    if (this.options.seed) seedState(state, this.options.seed)
    return state
  }

  addFault(rule: FaultRule): void {
    this.faults.add(rule)
  }

  clearFaults(): void {
    this.faults.clear()
  }

  seed(data: SeedData): void {
    seedState(this.state, data)
  }

  reset(): void {
    this.requests.length = 0
    this.faults.clear()
    this.cancelTimers()
    // Mutated in place so that a test holding `emulator.state` sees the reset.
    Object.assign(this.state, this.freshState())
    this.lastWriteFinishedAt = -Infinity
    this.rate = { used: 0, reset: 0 }
  }

  async close(): Promise<void> {
    this.cancelTimers()
    const closed = new Promise<void>(resolve => this.server.close(() => resolve()))
    for (const socket of this.sockets) socket.destroy()
    await closed
  }

  private cancelTimers(): void {
    this.timers.forEach(timer => clearTimeout(timer))
    this.timers.clear()
  }

  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      fn()
    }, ms)
    // Jobs must never keep a test process or the CLI alive on their own.
    timer.unref()
    this.timers.add(timer)
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrivedAt = now()
    const method = (req.method ?? 'GET').toUpperCase()
    const url = req.url ?? '/'
    const path = url.split('?')[0] as string
    if (path === '/_emulator' || path.startsWith('/_emulator/')) {
      const raw = await readBody(req)
      if (raw !== undefined) handleControl(this, method, path, raw, res)
      return
    }

    const record: RecordedRequest = {
      seq: this.requests.length + 1,
      method,
      url,
      path,
      headers: flatHeaders(req),
      body: undefined,
      arrivedAt,
      finishedAt: 0,
      status: 0
    }
    this.requests.push(record)
    const isWrite = WRITES.has(method)
    if (isWrite) this.writesInFlight++
    const finish = () => {
      if (record.finishedAt !== 0) return
      record.finishedAt = now()
      if (isWrite) {
        this.writesInFlight--
        this.lastWriteFinishedAt = record.finishedAt
      }
      this.options.onRequest?.(record)
    }
    res.on('finish', finish)
    res.on('close', finish)
    this.ending.set(res, finish)

    const raw = await readBody(req)
    if (raw === undefined) return
    record.body = parseLoose(raw)

    const fault = this.faults.take(method, path)
    if (fault) return this.answerFault(fault, record, res)

    let reply: Reply
    let docs = DOCS
    try {
      const routed = this.route(record, raw, isWrite)
      docs = routed.docs
      reply = routed.reply
    } catch (error) {
      reply = this.errorReply(error)
    }
    this.send(res, record, reply, docs)
  }

  private errorReply(error: unknown): Reply {
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
  private route(record: RecordedRequest, raw: string, isWrite: boolean) {
    const { headers, method } = record
    if (!headers['user-agent']) throw new ApiError(403, USER_AGENT_MESSAGE)

    const token = bearer(headers.authorization)
    const grant = token === undefined ? undefined : this.tokens[token]
    if (!grant) throw new ApiError(401, 'Bad credentials')

    const apiVersion = headers['x-github-api-version'] ?? DEFAULT_VERSION
    if (!this.apiVersions.includes(apiVersion))
      throw new ApiError(400, `API version '${apiVersion}' is not supported.`)

    const gap = this.options.minWriteGapMs
    // Another write still in flight counts as no gap at all.
    const tooSoon =
      this.writesInFlight > 1 || record.arrivedAt - this.lastWriteFinishedAt < (gap ?? 0)
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
      org = findOrg(this.state, params.org ?? '') ?? ''
      if (!org) throw new ApiError(404, 'Not Found')
    } else if (route.scope === 'repo') {
      repo = findRepo(this.state, `${params.owner}/${params.repo}`) ?? ''
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

    const base = this.url + (prefixed ? API_PREFIX : '')
    const ctx: RouteContext = {
      method,
      params,
      query: new URLSearchParams(record.url.slice(record.path.length + 1)),
      body,
      apiVersion,
      token: grant,
      state: this.state,
      baseUrl: base,
      selfUrl: base + path,
      org,
      repo,
      jobStepMs: this.options.jobStepMs ?? 50,
      pollIntervalSeconds: this.options.pollIntervalSeconds,
      answers: this.options.answers ?? 'full',
      later: (ms, fn) => this.later(ms, fn)
    }
    return { reply: this.conditional(record, route.handler(ctx)), docs }
  }

  /** Answers 304 to a GET whose if-none-match names the current body. */
  private conditional(record: RecordedRequest, reply: Reply): Reply {
    if (record.method !== 'GET' || reply.status !== 200) return reply
    const etag = `W/"${createHash('sha1').update(JSON.stringify(reply.body)).digest('hex')}"`
    const headers = { ...reply.headers, etag }
    const wanted = record.headers['if-none-match']?.split(',').map(tag => tag.trim())
    if (wanted?.includes(etag) || wanted?.includes(etag.slice(2))) return { status: 304, headers }
    return { ...reply, headers }
  }

  private rateHeaders(counted: boolean): Record<string, string> {
    const nowSeconds = Math.floor(Date.now() / 1000)
    // The emulator never enforces the primary limit (tests inject it with a status fault), so
    // it opens a new window instead of telling a client to wait an hour.
    if (nowSeconds >= this.rate.reset || this.rate.used >= RATE_LIMIT)
      this.rate = { used: 0, reset: nowSeconds + 3600 }
    // A 304 to an authenticated conditional request is free, as on the service.
    if (counted) this.rate.used++
    return {
      'x-ratelimit-limit': String(RATE_LIMIT),
      'x-ratelimit-remaining': String(RATE_LIMIT - this.rate.used),
      'x-ratelimit-reset': String(this.rate.reset),
      'x-ratelimit-used': String(this.rate.used),
      'x-ratelimit-resource': 'core'
    }
  }

  private baseHeaders(status: number): Record<string, string> {
    this.responses++
    return {
      'x-github-request-id': `EMU:${this.responses.toString(16).toUpperCase().padStart(6, '0')}`,
      ...this.rateHeaders(status !== 304)
    }
  }

  private send(res: ServerResponse, record: RecordedRequest, reply: Reply, docs: string): void {
    const { status } = reply
    const headers: Record<string, string> = { ...this.baseHeaders(status) }
    let text = ''
    if (status !== 204 && status !== 304) {
      let body = reply.body ?? { message: STATUS_CODES[status] ?? 'Error' }
      if (docs && status >= 400 && isObject(body) && !('documentation_url' in body))
        body = { ...body, documentation_url: docs }
      text = typeof body === 'string' ? body : JSON.stringify(body)
      headers['content-type'] = 'application/json; charset=utf-8'
      headers['content-length'] = String(Buffer.byteLength(text))
    }
    Object.assign(headers, reply.headers)
    record.status = status
    record.response = text === '' ? undefined : parseLoose(text)
    res.writeHead(status, headers)
    // Stamped before the bytes leave: 'finish' can fire late on a busy event loop, after the client
    // already has the response, which would make the gap to its next write look too short.
    this.ending.get(res)?.()
    res.end(text)
  }

  private answerFault(fault: Fault, record: RecordedRequest, res: ServerResponse): void {
    record.fault = fault.kind
    switch (fault.kind) {
      case 'status':
        // A body the test chose goes out verbatim; only the default one gets documentation_url.
        return this.send(res, record, fault, fault.body === undefined ? DOCS : '')
      case 'redirect':
        return this.send(
          res,
          record,
          {
            status: fault.status,
            headers: { location: fault.location },
            body: {
              message: STATUS_CODES[fault.status],
              url: fault.location,
              documentation_url: DOCS
            }
          },
          DOCS
        )
      case 'reset':
        res.socket?.destroy()
        return
      case 'hang':
        return
      case 'truncate': {
        const partial = '{"total_count":1,"deployment_records":[{"id":1,"digest":"sha256:'
        res.writeHead(200, {
          ...this.baseHeaders(200),
          'content-type': 'application/json; charset=utf-8',
          'content-length': String(Buffer.byteLength(partial) + 512)
        })
        res.write(partial, () => res.destroy())
        return
      }
    }
  }
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const emulator = new EmulatorServer(options)
  await emulator.listen()
  return emulator
}
