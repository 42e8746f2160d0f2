// Over 300 lines on purpose: one request loop whose queue, write pacing, retry budget, step
// deadline and remembered redirects are shared state; split, each part would need the others.
import type { Dispatcher } from 'undici'
import { Agent } from './agent.js'
import { systemClock, type Clock } from './clock.js'
import { permissionHint, ServiceError, type ValidationError } from './errors.js'
import { silentLog, type Log } from './log.js'
import { isWrite, WritePacer } from './pacer.js'
import { decideRetry, type FailureClass, type Outcome } from './retry-policy.js'

/** Per attempt. The service itself stops work at 10 s, so an answer later than this is not coming. */
export const REQUEST_TIMEOUT_MS = 20 * 1000
export const MAX_REDIRECTS = 5
/**
 * The most time one run spends in retry and rate-limit waits, counted from the client's start: a
 * wait that would end later fails at once, so a flaky day cannot hold a deploy job for hours.
 */
export const STEP_DEADLINE_MS = 60 * 60 * 1000

export interface ClientOptions {
  /** `https://api.github.com` or an Enterprise Server `https://HOST/api/v3`. */
  baseUrl: string
  token: string
  apiVersion: string
  maxRetries: number
  userAgent: string
  dispatcher?: Dispatcher
  clock?: Clock
  random?: () => number
  requestTimeoutMs?: number
  log?: Log
}

export interface RequestOptions {
  body?: unknown
  headers?: Record<string, string>
}

export interface ServiceResponse<T = unknown> {
  status: number
  headers: Record<string, string>
  body: T
}

export interface RequestCounts {
  reads: number
  writes: number
}

type Attempt =
  | { kind: 'response'; status: number; headers: Record<string, string>; text: string }
  | { kind: 'network' | 'timeout'; error: Error }

/**
 * The one way the action talks to the service: one request at a time, writes spaced
 * `WRITE_GAP_MS` apart, transient failures and rate limits retried, redirects followed,
 * and every failure turned into a `ServiceError` that says what to change.
 */
export class ServiceClient {
  readonly counts: RequestCounts = { reads: 0, writes: 0 }
  private readonly origin: string
  private readonly basePath: string
  private readonly dispatcher: Dispatcher
  private readonly ownsDispatcher: boolean
  private readonly clock: Clock
  private readonly random: () => number
  private readonly timeoutMs: number
  private readonly log: Log
  private readonly pacer: WritePacer
  private readonly permanentRedirects = new Map<string, string>()
  private queue: Promise<unknown> = Promise.resolve()
  private readonly startedAt: number

  constructor(private readonly options: ClientOptions) {
    const base = splitUrl(options.baseUrl)
    this.origin = base.origin
    this.basePath = base.path.replace(/\/+$/, '')
    this.ownsDispatcher = options.dispatcher === undefined
    this.dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 4 })
    this.clock = options.clock ?? systemClock
    this.random = options.random ?? Math.random
    this.timeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS
    this.log = options.log ?? silentLog
    this.pacer = new WritePacer(this.clock)
    this.startedAt = this.clock.now()
  }

  /** `path` is relative to the base URL and already encoded (see `path` in paths.ts). */
  request<T = unknown>(
    method: string,
    path: string,
    options: RequestOptions = {}
  ): Promise<ServiceResponse<T>> {
    const next = this.queue.then(() => this.execute<T>(method.toUpperCase(), path, options))
    this.queue = next.catch(() => undefined)
    return next
  }

  /** Every item of a list endpoint, following the `link` header's `next` page. */
  async paginate<T>(path: string, pick: (body: unknown) => T[]): Promise<T[]> {
    const items: T[] = []
    let next: string | undefined = path
    for (let page = 0; next !== undefined && page < 1000; page++) {
      const response: ServiceResponse = await this.request('GET', next)
      items.push(...pick(response.body))
      next = nextLink(response.headers['link'])
    }
    return items
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close()
  }

  private async execute<T>(
    method: string,
    path: string,
    options: RequestOptions
  ): Promise<ServiceResponse<T>> {
    const bodyText = options.body === undefined ? undefined : JSON.stringify(options.body)
    const displayPath = this.displayPath(path)
    let url = this.absolute(path)
    url = this.permanentRedirects.get(url) ?? url
    let redirects = 0
    let retriesMade = 0
    let untimedRateLimits = 0

    for (;;) {
      let failed = await this.attempt(method, url, bodyText, options.headers)
      if (failed.kind === 'response') {
        const { status, headers } = failed
        if ((status >= 200 && status < 300) || status === 304) {
          const body = parseBody(failed.text)
          if (body.ok) return { status, headers, body: body.value as T }
          // A 2xx whose JSON does not parse was cut short on the way: retried like a network error.
          failed = { kind: 'network', error: new Error('response body is not valid JSON') }
        } else if ([301, 302, 307, 308].includes(status) && headers['location']) {
          if (++redirects > MAX_REDIRECTS) {
            throw new ServiceError({
              method,
              path: displayPath,
              status,
              serviceMessage: `more than ${MAX_REDIRECTS} redirects`,
              requestId: headers['x-github-request-id']
            })
          }
          const target = new URL(headers['location'], url).toString()
          if (status === 301 || status === 308) this.permanentRedirects.set(url, target)
          this.log.debug(`${method} ${displayPath}: ${status} redirect to ${redactQuery(target)}`)
          url = target
          continue
        }
      }

      const outcome = toOutcome(failed)
      const decision = decideRetry(outcome, this.context(retriesMade, untimedRateLimits))
      if (!decision.retry) throw this.failure(method, displayPath, failed, retriesMade, decision)
      if (decision.failure === 'rate-limit' && outcome.kind === 'response') {
        const named =
          outcome.headers['retry-after'] ?? outcome.headers['x-ratelimit-remaining'] === '0'
        if (!named) untimedRateLimits++
      }
      await this.waitBeforeRetry(method, displayPath, decision.reason, decision.waitMs, retriesMade)
      retriesMade++
    }
  }

  private context(retriesMade: number, untimedRateLimits: number) {
    return {
      retriesMade,
      maxRetries: this.options.maxRetries,
      now: this.clock.now(),
      random: this.random,
      untimedRateLimits
    }
  }

  private async waitBeforeRetry(
    method: string,
    displayPath: string,
    reason: string,
    waitMs: number,
    retriesMade: number
  ): Promise<void> {
    if (this.clock.now() + waitMs - this.startedAt > STEP_DEADLINE_MS) {
      throw new ServiceError({
        method,
        path: displayPath,
        status: 0,
        serviceMessage: `${reason}; waiting ${formatSeconds(waitMs)} more would pass the step's ${STEP_DEADLINE_MS / 60000} minute deadline for retries`,
        hint: 'Run the step again later.',
        attempts: retriesMade + 1,
        fatal: true
      })
    }
    this.log.info(
      `${method} ${displayPath}: ${reason}; retry ${retriesMade + 1} of ${this.options.maxRetries} ` +
        `in ${formatSeconds(waitMs)}`
    )
    await this.clock.sleep(waitMs)
  }

  private async attempt(
    method: string,
    url: string,
    body: string | undefined,
    extraHeaders: Record<string, string> | undefined
  ): Promise<Attempt> {
    const write = isWrite(method)
    const { origin, path } = splitUrl(url)
    const headers: Record<string, string> = {
      accept: 'application/vnd.github+json',
      'x-github-api-version': this.options.apiVersion,
      'user-agent': this.options.userAgent,
      ...extraHeaders
    }
    // The token belongs to the configured service only: a redirect elsewhere goes without it.
    if (origin === this.origin) headers['authorization'] = `Bearer ${this.options.token}`
    if (body !== undefined) headers['content-type'] = 'application/json; charset=utf-8'

    // Everything above is ready before the wait, so the write leaves the moment the gap is over.
    if (write) await this.pacer.beforeWrite()
    const started = this.clock.now()
    if (write) this.counts.writes++
    else this.counts.reads++
    let result: Attempt
    try {
      const response = await this.dispatcher.request({
        origin,
        path,
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs
      })
      const text = await response.body.text()
      result = {
        kind: 'response',
        status: response.statusCode,
        headers: flattenHeaders(response.headers),
        text
      }
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error))
      // Read name and code from what was thrown, not from `err`: the abort signal's DOMException
      // can come from another realm (a VM context, as under jest) and then fails `instanceof Error`.
      const thrown = (error ?? {}) as { name?: unknown; code?: unknown }
      const timedOut = /timeout/i.test(String(thrown.name)) || /timeout/i.test(String(thrown.code))
      result = {
        kind: timedOut ? 'timeout' : 'network',
        error: timedOut ? new Error(`no answer in ${this.timeoutMs} ms`) : err
      }
    } finally {
      if (write) this.pacer.writeFinished()
    }
    const status = result.kind === 'response' ? String(result.status) : result.kind
    this.log.debug(
      `${method} ${this.displayPath(path)} -> ${status} in ${Math.round(this.clock.now() - started)} ms`
    )
    return result
  }

  private failure(
    method: string,
    displayPath: string,
    attempt: Attempt,
    retriesMade: number,
    decision: { failure: FailureClass; reason: string }
  ): ServiceError {
    const { failure, reason } = decision
    if (attempt.kind !== 'response') {
      return new ServiceError({
        method,
        path: displayPath,
        status: 0,
        serviceMessage: retriesMade > 0 ? reason : `${reason} (${attempt.error.message})`,
        hint: `Check that \`api-url\` (${this.origin}${this.basePath}) is right and reachable from the runner.`,
        attempts: retriesMade + 1
      })
    }
    const { status, headers } = attempt
    const body = parseBody(attempt.text)
    const details = errorBody(body.ok ? body.value : undefined)
    // The same limit would stop every later call too.
    const rateLimitGiveUp = failure === 'rate-limit'
    return new ServiceError({
      method,
      path: displayPath,
      status,
      serviceMessage: details.message,
      validationErrors: details.errors,
      documentationUrl: details.documentationUrl,
      requestId: headers['x-github-request-id'],
      hint:
        failure !== 'permanent'
          ? reason
          : (permissionHint(
              method,
              displayPath,
              status,
              headers['x-accepted-github-permissions']
            ) ?? versionHint(status, details.message, this.options.apiVersion)),
      attempts: retriesMade + 1,
      fatal:
        status === 401 ||
        rateLimitGiveUp ||
        (status === 400 && /version/i.test(details.message ?? ''))
    })
  }

  private absolute(path: string): string {
    if (/^https?:\/\//.test(path)) return path
    return this.origin + this.basePath + (path.startsWith('/') ? path : `/${path}`)
  }

  /** The path as the user knows it: without the base URL, without the query. */
  private displayPath(pathOrUrl: string): string {
    let p = /^https?:\/\//.test(pathOrUrl) ? splitUrl(pathOrUrl).path : pathOrUrl
    if (this.basePath && p.startsWith(this.basePath + '/')) p = p.slice(this.basePath.length)
    return p.split('?')[0] ?? p
  }
}

function toOutcome(attempt: Attempt): Outcome {
  if (attempt.kind !== 'response') return attempt
  const body = parseBody(attempt.text)
  const message = body.ok ? errorBody(body.value).message : undefined
  return { kind: 'response', status: attempt.status, headers: attempt.headers, message }
}

function errorBody(body: unknown): {
  message?: string
  errors?: ValidationError[]
  documentationUrl?: string
} {
  if (typeof body !== 'object' || body === null) return {}
  const record = body as Record<string, unknown>
  const errors = Array.isArray(record['errors'])
    ? (record['errors'] as unknown[]).map(e =>
        typeof e === 'object' && e !== null ? (e as ValidationError) : { message: String(e) }
      )
    : undefined
  return {
    message: messageText(record['message']),
    errors,
    documentationUrl:
      typeof record['documentation_url'] === 'string' ? record['documentation_url'] : undefined
  }
}

/**
 * The error's `message`: usually a string, but the cluster endpoints answer 403 and 404 with an
 * object `{cause, repositories}`, rendered here as `cause (repositories: a, b)`.
 */
export function messageText(message: unknown): string | undefined {
  if (typeof message === 'string') return message
  if (typeof message !== 'object' || message === null) return undefined
  const { cause, repositories, ...rest } = message as Record<string, unknown>
  const parts: string[] = []
  if (typeof cause === 'string' && cause !== '') parts.push(cause)
  if (Array.isArray(repositories) && repositories.length > 0)
    parts.push(`(repositories: ${repositories.map(r => String(r)).join(', ')})`)
  if (Object.keys(rest).length > 0 || parts.length === 0) parts.push(JSON.stringify(rest))
  return parts.join(' ')
}

function versionHint(
  status: number,
  message: string | undefined,
  version: string
): string | undefined {
  if (status === 400 && /version/i.test(message ?? '')) {
    return `The service does not support API version ${version}: set \`api-version\` to one it supports.`
  }
  return undefined
}

function parseBody(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: true, value: undefined }
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch {
    return { ok: false }
  }
}

function flattenHeaders(
  headers: Record<string, string | string[] | undefined>
): Record<string, string> {
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined)
      flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  }
  return flat
}

/**
 * Splits without `new URL()`, which would turn an encoded `%2E%2E` segment back into a step up.
 */
export function splitUrl(url: string): { origin: string; path: string } {
  const match = /^(https?:\/\/[^/?#]+)([^#]*)/i.exec(url)
  if (!match) throw new Error(`not an absolute http(s) URL: ${url}`)
  const origin = (match[1] ?? '').toLowerCase()
  const path = match[2] || '/'
  return { origin, path: path.startsWith('/') ? path : `/${path}` }
}

export function nextLink(link: string | undefined): string | undefined {
  if (!link) return undefined
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?([^";]+)"?/.exec(part.trim())
    if (match && match[2]?.split(/\s+/).includes('next')) return match[1]
  }
  return undefined
}

function redactQuery(url: string): string {
  return url.split('?')[0] ?? url
}

function formatSeconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`
}
