// Over 300 lines on purpose: one request loop whose queue, write pacing, retry budget, step
// deadline and remembered redirects are shared state; split, each part would need the others.
import type { Dispatcher } from 'undici'
import { serviceDispatcher, type ServiceDispatcher } from './agent.js'
import { CancelledError, type Cancellation } from './cancel.js'
import { systemClock, type Clock } from './clock.js'
import { permissionHint, ServiceError } from './errors.js'
import { silentLog, type Log } from './log.js'
import { stopIfAnswerLost, type LostAnswerOptions } from './lost-answer.js'
import { isWrite, WritePacer } from './pacer.js'
import { decideRetry, type FailureClass, type Outcome } from './retry-policy.js'
import {
  REDIRECTS,
  errorBody,
  flattenHeaders,
  formatSeconds,
  nextLink,
  parseBody,
  redactQuery,
  splitUrl,
  unreachableCause,
  usableLocation,
  versionHint
} from './wire.js'

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
  /** a cancel of the run: nothing new is sent once asked; the request in flight is cut on the second ask */
  cancellation?: Cancellation
  /** the proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY); `process.env` unless given */
  env?: Record<string, string | undefined>
}

export interface RequestOptions {
  body?: unknown
  headers?: Record<string, string>
  /** a write not safe to repeat: a lost answer ends the call instead of a resend (lost-answer.ts) */
  lostAnswer?: LostAnswerOptions
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
  /** the proxy requests go through (credentials left out), when one is set */
  readonly proxy?: string
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
    // Through HTTPS_PROXY / HTTP_PROXY unless NO_PROXY says otherwise; timeouts, retries and
    // redirects are this client's, so they hold through the proxy the same way.
    const own = options.dispatcher
      ? undefined
      : serviceDispatcher({ keepAliveTimeout: 10_000, connections: 4 }, options.env ?? process.env)
    this.dispatcher = options.dispatcher ?? (own as ServiceDispatcher).dispatcher
    this.proxy = own?.proxy
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
    const seen = new Set<string>()
    let next: string | undefined = path
    for (let page = 0; next !== undefined && page < 1000; page++) {
      seen.add(this.absolute(next))
      const response: ServiceResponse = await this.request('GET', next)
      // One at a time: `push(...page)` passes every item as an argument, and a page of some
      // hundred thousand items overflows the stack.
      for (const item of pick(response.body)) items.push(item)
      next = nextLink(response.headers['link'])
      // A `next` seen before (itself included) would loop until the page limit.
      if (next !== undefined && seen.has(this.absolute(next))) {
        this.log.debug(`${this.displayPath(path)}: the next page repeats one already read; stopped`)
        next = undefined
      }
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
    try {
      return await this.send<T>(method, path, options)
    } catch (error) {
      // A wait that a cancel cut short names no request: name the one that was waiting.
      if (error instanceof CancelledError && error.path === '')
        throw new CancelledError(method, this.displayPath(path), error.reason, false)
      throw error
    }
  }

  private async send<T>(
    method: string,
    path: string,
    options: RequestOptions
  ): Promise<ServiceResponse<T>> {
    let bodyText = options.body === undefined ? undefined : JSON.stringify(options.body)
    const displayPath = this.displayPath(path)
    let url = this.absolute(path)
    url = this.permanentRedirects.get(url) ?? url
    let redirects = 0
    /** The method on the wire: a 303 turns a write into the GET of its answer. */
    let sentMethod = method
    /** Whether any attempt got past connecting: if none did, the service is not there at all. */
    let reachedService = false
    let retriesMade = options.lostAnswer?.retriesMade ?? 0
    let untimedRateLimits = 0

    for (;;) {
      const cancellation = this.options.cancellation
      if (cancellation?.requested)
        throw new CancelledError(method, displayPath, cancellation.reason ?? 'cancelled', false)
      const failed = await this.attempt(sentMethod, url, bodyText, options.headers)
      if (failed.kind === 'response') {
        const { status, headers } = failed
        if ((status >= 200 && status < 300) || status === 304) {
          const body = parseBody(failed.text)
          if (body.ok) return { status, headers, body: body.value as T }
          // A body cut short on the way fails in undici (its length was promised), so a whole
          // answer that is not JSON came from something else than the API: a proxy's or a
          // portal's page, or an \`api-url\` that names a web site. Asking again gets the same.
          throw this.unexpectedBody(method, displayPath, failed)
        } else if (REDIRECTS.has(status)) {
          const target = usableLocation(headers['location'], url)
          if (target === undefined) {
            throw new ServiceError({
              method,
              path: displayPath,
              status,
              serviceMessage:
                headers['location'] === undefined || headers['location'].trim() === ''
                  ? `redirect ${status} without a location to follow`
                  : `redirect ${status} to a location that is not an http(s) URL: ${JSON.stringify(redactQuery(headers['location']).slice(0, 200))}`,
              requestId: headers['x-github-request-id'],
              hint: 'The service (or something between it and the runner) sent a redirect the step cannot follow; check `api-url`.'
            })
          }
          if (++redirects > MAX_REDIRECTS) {
            throw new ServiceError({
              method,
              path: displayPath,
              status,
              serviceMessage: `more than ${MAX_REDIRECTS} redirects`,
              requestId: headers['x-github-request-id']
            })
          }
          if (status === 301 || status === 308) this.permanentRedirects.set(url, target)
          this.log.debug(`${method} ${displayPath}: ${status} redirect to ${redactQuery(target)}`)
          url = target
          // 303 See Other: the answer is elsewhere, fetched with GET and without the body.
          if (status === 303 && sentMethod !== 'GET' && sentMethod !== 'HEAD') {
            sentMethod = 'GET'
            bodyText = undefined
          }
          continue
        }
      }

      if (failed.kind !== 'network' || unreachableCause(failed.error) === undefined)
        reachedService = true
      const outcome = toOutcome(failed)
      const decision = decideRetry(outcome, this.context(retriesMade, untimedRateLimits))
      if (!decision.retry) {
        if (failed.kind === 'network' && !reachedService)
          throw this.unreachable(method, displayPath, url, failed.error, retriesMade)
        throw this.failure(method, displayPath, failed, retriesMade, decision)
      }
      if (decision.failure === 'rate-limit' && outcome.kind === 'response') {
        const named =
          outcome.headers['retry-after'] ?? outcome.headers['x-ratelimit-remaining'] === '0'
        if (!named) untimedRateLimits++
      }
      await this.waitBeforeRetry(method, displayPath, decision.reason, decision.waitMs, retriesMade)
      retriesMade++
      if (options.lostAnswer)
        stopIfAnswerLost(failed, sentMethod, displayPath, decision, retriesMade)
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
        signal: this.options.cancellation
          ? AbortSignal.any([
              AbortSignal.timeout(this.timeoutMs),
              this.options.cancellation.inFlight
            ])
          : AbortSignal.timeout(this.timeoutMs),
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
      const cancellation = this.options.cancellation
      if (cancellation?.inFlight.aborted)
        throw new CancelledError(
          method,
          this.displayPath(path),
          cancellation.reason ?? 'cancelled',
          true
        )
      // Kept as the cause: an error from another realm (as under jest) fails `instanceof Error`,
      // and its `code` is what says whether the service could be reached at all.
      const err =
        error instanceof Error ? error : new Error(String(error), { cause: error as unknown })
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
        // The reason already quotes the error ("no answer in 20000 ms"): once is enough.
        serviceMessage: reason,
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
              headers['x-accepted-github-permissions'],
              details.message
            ) ?? versionHint(status, details.message, this.options.apiVersion)),
      attempts: retriesMade + 1,
      fatal:
        status === 401 ||
        rateLimitGiveUp ||
        (status === 400 && /version/i.test(details.message ?? ''))
    })
  }

  /**
   * Every attempt failed before a connection was made (refused, no such host, TLS refused): the
   * service is not there for this run, so every later request would spend its retries the same
   * way. Fatal, so the run stops here and lists the rest as not attempted.
   */
  private unreachable(
    method: string,
    displayPath: string,
    url: string,
    error: Error,
    retriesMade: number
  ): ServiceError {
    const { origin } = splitUrl(url)
    const attempts = retriesMade + 1
    return new ServiceError({
      method,
      path: displayPath,
      status: 0,
      serviceMessage:
        `the service at ${origin}${origin === this.origin ? this.basePath : ''} cannot be reached: ` +
        `${unreachableCause(error) ?? error.message}, on ${attempts === 1 ? 'the only attempt' : `all ${attempts} attempts`}`,
      hint:
        "Nothing more was sent. Check `api-url`, the runner's network" +
        (this.proxy ? ` and the proxy ${this.proxy} (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)` : '') +
        ', then run the step again.',
      attempts,
      fatal: true
    })
  }

  private unexpectedBody(
    method: string,
    displayPath: string,
    attempt: { status: number; headers: Record<string, string>; text: string }
  ): ServiceError {
    const type = attempt.headers['content-type']?.split(';')[0]?.trim() || 'no content-type'
    const start = attempt.text.trim().slice(0, 60).replace(/\s+/g, ' ')
    return new ServiceError({
      method,
      path: displayPath,
      status: attempt.status,
      serviceMessage: `unexpected response body (${type}, not JSON): ${JSON.stringify(start)}${attempt.text.trim().length > 60 ? '…' : ''}`,
      requestId: attempt.headers['x-github-request-id'],
      hint:
        'Something other than the API answered: check that `api-url` is the API (https://api.github.com, ' +
        "or https://HOST/api/v3) and whether a proxy or portal on the runner's network rewrites answers."
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
