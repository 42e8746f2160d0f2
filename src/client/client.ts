// Over 300 lines on purpose: one request loop whose queue, write pacing, retry budget, step
// deadline and remembered redirects are shared state; split, each part would need the others.
import type { Dispatcher } from 'undici'
import { Dispatchers } from './agent.js'
import { CancelledError, signalsSeen, type Cancellation } from './cancel.js'
import { systemClock, type Clock } from './clock.js'
import { NoLongerNeeded, ServiceError } from './errors.js'
import {
  downgraded,
  noAnswer,
  proxyRefused,
  responseFailure,
  unexpectedBody,
  unfollowable,
  unreachable,
  unusableProxy,
  type Elsewhere,
  type FailureContext,
  type HintContext
} from './failures.js'
import { silentLog, type Log } from './log.js'
import { stopIfAnswerLost, type LostAnswerOptions } from './lost-answer.js'
import type { Plan } from './limits.js'
import { isWrite } from './pacer.js'
import { paginate } from './paginate.js'
import { answerOf, deepNote } from './read-answer.js'
import { decideRetry, type FailureClass } from './retry-policy.js'
import { DEFAULT_TIME_BUDGET_MINUTES, Waits } from './waits.js'
import {
  REDIRECTS,
  attemptDeadline,
  downgrades,
  parseBody,
  proxyRefusal,
  redactQuery,
  splitUrl,
  thrownAttempt,
  toOutcome,
  unreachableCause,
  usableLocation,
  type Attempt
} from './wire.js'

/** Per attempt. The service itself stops work at 10 s, so an answer later than this is not coming. */
export const REQUEST_TIMEOUT_MS = 20 * 1000
export const MAX_REDIRECTS = 5

/** With the fork a pull request run comes from, and the token's and API URL's sources, for hints. */
export interface ClientOptions extends Pick<FailureContext, HintContext> {
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
  /** minutes from the client's start that its waits may reach (`time-budget`); waits.ts */
  timeBudgetMinutes?: number
}

export interface RequestOptions {
  body?: unknown
  headers?: Record<string, string>
  /**
   * Asked after a rate-limit wait, before the request is sent again (its own requests go straight
   * through): false, and the request ends in `NoLongerNeeded` instead (another job did it meanwhile).
   */
  stillNeeded?: () => Promise<boolean>
  /** a write not safe to repeat: a lost answer ends the call instead of a resend (lost-answer.ts) */
  lostAnswer?: LostAnswerOptions
}

export interface ServiceResponse<T = unknown> {
  status: number
  headers: Record<string, string>
  body: T
  /** the body's length as read (paginate.ts counts a list's bytes with it) */
  bytes?: number
}

export interface RequestCounts {
  reads: number
  writes: number
}

/**
 * The one way the action talks to the service: one request at a time, writes spaced
 * `WRITE_GAP_MS` apart and inside GitHub's content limits, transient failures and rate limits
 * retried within the time budget (waits.ts), redirects followed, and every failure turned into
 * a `ServiceError` that says what to change.
 */
export class ServiceClient {
  readonly counts: RequestCounts = { reads: 0, writes: 0 }
  private readonly origin: string
  private readonly basePath: string
  private readonly dispatchers: Dispatchers
  /** the proxy requests to `api-url` go through (credentials left out), when one is set */
  readonly proxy?: string
  private readonly failures: FailureContext
  private readonly clock: Clock
  /** uniform in [0, 1): the jitter of backoffs, shared with the cluster's busy retries */
  readonly random: () => number
  private readonly timeoutMs: number
  private readonly log: Log
  private readonly waits: Waits
  private readonly permanentRedirects = new Map<string, string>()
  private queue: Promise<unknown> = Promise.resolve()
  private checking = 0
  /** Rate-limit waits the run has sat through, every request's together. */
  rateLimitWaits = 0

  constructor(private readonly options: ClientOptions) {
    const base = splitUrl(options.baseUrl)
    this.origin = base.origin
    this.basePath = base.path.replace(/\/+$/, '')
    // Through HTTPS_PROXY / HTTP_PROXY unless NO_PROXY says otherwise, decided per request;
    // timeouts, retries and redirects are this client's, so they hold through the proxy the same way.
    this.dispatchers = new Dispatchers(
      { keepAliveTimeout: 10_000, connections: 4 },
      options.env ?? process.env,
      options.dispatcher
    )
    const route = this.dispatchers.route(this.origin)
    this.proxy = 'proxy' in route ? route.proxy : undefined
    const { fork, tokenSource, apiUrlSource } = options
    const where = { origin: this.origin, basePath: this.basePath, apiVersion: options.apiVersion }
    this.failures = { ...where, fork, tokenSource, apiUrlSource }
    this.clock = options.clock ?? systemClock
    this.random = options.random ?? Math.random
    this.timeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS
    this.log = options.log ?? silentLog
    const budget = options.timeBudgetMinutes ?? DEFAULT_TIME_BUDGET_MINUTES
    this.waits = new Waits(this.clock, this.log, budget)
  }

  /** Tells the client what is about to be sent: past an hour's limits, an estimate is logged. */
  plan(plan: Plan, what: string): void {
    this.waits.announce(plan, what)
  }

  /** `path` is relative to the base URL and already encoded (see `path` in paths.ts). */
  request<T = unknown>(
    method: string,
    path: string,
    options: RequestOptions = {}
  ): Promise<ServiceResponse<T>> {
    if (this.checking > 0) return this.execute<T>(method.toUpperCase(), path, options)
    const next = this.queue.then(() => this.execute<T>(method.toUpperCase(), path, options))
    this.queue = next.catch(() => undefined)
    return next
  }

  /** Every item of a list endpoint, following the `link` header's `next` page (paginate.ts). */
  paginate<T>(path: string, pick: (body: unknown) => T[]): Promise<T[]> {
    const absolute = (p: string) => this.absolute(p)
    return paginate(this, path, pick, {
      absolute,
      display: p => this.displayPath(p),
      log: this.log
    })
  }

  async close(): Promise<void> {
    await this.dispatchers.close()
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
    const given = this.absolute(path)
    let url = this.permanentRedirects.get(given) ?? given
    /** what sent the request to another origin than api-url's, when something did */
    let how: Elsewhere['how'] | undefined = this.isElsewhere(given)
      ? 'next link'
      : this.isElsewhere(url)
        ? 'redirect'
        : undefined
    if (downgrades(given, this.origin)) throw downgraded(method, displayPath, given, 'next link')
    let redirects = 0
    /** The method on the wire: a 303 turns a write into the GET of its answer. */
    let sentMethod = method
    /** Whether any attempt got past connecting: if none did, the service is not there at all. */
    let reachedService = false
    let retriesMade = options.lostAnswer?.retriesMade ?? 0
    let untimedRateLimits = 0
    let rateLimitWaits = 0
    let unanswered = 0 // attempts sent without an answer: the service may have applied them
    let serverErrors = 0 // attempts answered with a 5xx: the service may have applied them too

    for (;;) {
      const cancellation = this.options.cancellation
      if (cancellation) await signalsSeen()
      if (cancellation?.requested)
        throw new CancelledError(method, displayPath, cancellation.reason ?? 'cancelled', false)
      const failed = await this.attempt(sentMethod, url, bodyText, options.headers)
      if (failed.kind === 'response') {
        const { status, headers } = failed
        if ((status >= 200 && status < 300) || status === 304) {
          const body = parseBody(failed.text)
          if (body.ok && body.cut)
            this.log.warning(`${method} ${displayPath}: ${deepNote(body.cut)}`)
          if (body.ok)
            return { status, headers, body: body.value as T, bytes: Buffer.byteLength(failed.text) }
          // A body cut short fails in undici (its length was promised): a whole answer not JSON is
          // a proxy's or portal's page, or an \`api-url\` naming a web site. Asking again gets the same.
          throw unexpectedBody(method, displayPath, failed, this.failures)
        } else if (REDIRECTS.has(status)) {
          const target = usableLocation(headers['location'], url)
          if (target === undefined) throw unfollowable(method, displayPath, failed)
          if (++redirects > MAX_REDIRECTS)
            throw unfollowable(method, displayPath, failed, `more than ${MAX_REDIRECTS} redirects`)
          if (downgrades(target, this.origin))
            throw downgraded(method, displayPath, target, 'redirect', status)
          if (status === 301 || status === 308) this.permanentRedirects.set(url, target)
          this.log.debug(`${method} ${displayPath}: ${status} redirect to ${redactQuery(target)}`)
          url = target
          if (this.isElsewhere(url)) how ??= 'redirect'
          // 303 See Other: the answer is elsewhere, fetched with GET and without the body.
          if (status === 303 && sentMethod !== 'GET' && sentMethod !== 'HEAD') {
            sentMethod = 'GET'
            bodyText = undefined
          }
          continue
        }
      }

      if (failed.kind !== 'network' || unreachableCause(failed.error) === undefined) {
        reachedService = true
        if (failed.kind !== 'response') unanswered++
        else if (failed.status >= 500) serverErrors++
      }
      const outcome = toOutcome(failed)
      const decision = decideRetry(outcome, this.context(retriesMade, untimedRateLimits))
      const attempts = retriesMade + rateLimitWaits
      if (!decision.retry) {
        const elsewhere =
          how !== undefined && this.isElsewhere(url)
            ? { origin: splitUrl(url).origin, how }
            : undefined
        const error = this.failure(method, displayPath, url, failed, attempts, decision, {
          reachedService,
          elsewhere
        })
        error.unanswered = unanswered
        error.serverErrors = serverErrors
        throw error
      }
      const rateLimited = decision.failure === 'rate-limit'
      if (rateLimited && decision.resetAt === undefined) untimedRateLimits++
      const which = rateLimited
        ? `rate-limit wait ${rateLimitWaits + 1}`
        : `retry ${retriesMade + 1} of ${this.options.maxRetries}`
      const answer = failed.kind === 'response' ? failed : undefined
      const { waitMs, reason: cause, resetAt } = decision
      const status = answer?.status ?? 0
      const serviceMessage = outcome.kind === 'response' ? outcome.message : undefined
      const requestId = answer?.headers['x-github-request-id']
      const [request, why] = [
        { method, path: displayPath, status, requestId },
        { cause, resetAt }
      ]
      const details = { ...request, ...why, serviceMessage, waitMs, attempts: attempts + 1 }
      await this.waits.wait(details, which).catch((error: unknown) => {
        // out of time: what was sent before may have been applied all the same (settle-state.ts)
        if (error instanceof ServiceError) Object.assign(error, { unanswered, serverErrors })
        throw error
      })
      if (!rateLimited) {
        retriesMade++
        if (options.lostAnswer)
          stopIfAnswerLost(failed, sentMethod, displayPath, decision, retriesMade)
        continue
      }
      rateLimitWaits++
      this.rateLimitWaits++
      if (options.stillNeeded && !(await this.recheck(options.stillNeeded)))
        throw new NoLongerNeeded(method, displayPath)
    }
  }

  private failure(
    method: string,
    displayPath: string,
    url: string,
    failed: Attempt,
    retriesMade: number,
    decision: { failure: FailureClass; reason: string },
    where: { reachedService: boolean; elsewhere?: Elsewhere }
  ): ServiceError {
    const attempts = retriesMade + 1
    if (failed.kind === 'response') {
      const f = this.failures
      return responseFailure(f, method, displayPath, failed, attempts, decision, where.elsewhere)
    }
    const route = this.dispatchers.route(splitUrl(url).origin)
    const proxy = 'proxy' in route ? route.proxy : undefined
    if (failed.kind === 'network' && !where.reachedService)
      return unreachable(this.failures, method, displayPath, url, failed.error, attempts, proxy)
    return noAnswer(this.failures, method, displayPath, decision.reason, attempts, proxy)
  }

  /** A `stillNeeded` check: its requests go straight through (the waiting request holds the queue). */
  private async recheck(check: () => Promise<boolean>): Promise<boolean> {
    this.checking++
    return check().finally(() => this.checking--)
  }

  private isElsewhere(url: string): boolean {
    return splitUrl(url).origin !== this.origin
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

  private async attempt(
    method: string,
    url: string,
    body: string | undefined,
    extraHeaders: Record<string, string> | undefined
  ): Promise<Attempt> {
    const write = isWrite(method)
    const { origin, path } = splitUrl(url)
    const route = this.dispatchers.route(origin)
    if (!('dispatcher' in route))
      throw unusableProxy(method, this.displayPath(path), url, route.variable, route.problem)
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
    await this.waits.beforeAttempt(method, this.displayPath(path), write)
    const started = this.clock.now()
    if (write) this.counts.writes++
    else this.counts.reads++
    let result: Attempt | undefined
    const deadline = attemptDeadline(this.timeoutMs, this.options.cancellation?.inFlight)
    try {
      const response = await deadline.within(
        route.dispatcher.request({
          origin,
          path,
          method: method as Dispatcher.HttpMethod,
          headers,
          body,
          signal: deadline.signal,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs
        })
      )
      result = await answerOf(response, method, this.displayPath(path))
    } catch (error) {
      if (error instanceof ServiceError) throw error // an answer past the cap: never sent again
      const cancellation = this.options.cancellation
      if (cancellation?.inFlight.aborted)
        throw new CancelledError(
          method,
          this.displayPath(path),
          cancellation.reason ?? 'cancelled',
          true
        )
      result = thrownAttempt(error, this.timeoutMs)
    } finally {
      deadline.clear()
      // A refusal's message tells a rate limit (toOutcome reads it); other answers, their headers.
      const answered = result?.kind === 'response' ? result : undefined
      const { status, headers } = answered ?? { status: 0, headers: {} }
      const refusal = status === 403 || status === 429
      const outcome = refusal
        ? toOutcome(answered as Attempt)
        : { kind: 'response' as const, status, headers }
      this.waits.afterAttempt(write, answered && outcome)
    }
    const status = result.kind === 'response' ? String(result.status) : result.kind
    this.log.debug(
      `${method} ${this.displayPath(path)} -> ${status} in ${Math.round(this.clock.now() - started)} ms`
    )
    // The proxy wants (other) credentials, or will not go there: every request would meet the same.
    const refusal = route.proxy !== undefined ? proxyRefusal(result) : undefined
    if (refusal !== undefined) {
      const proxy = { url: route.proxy as string, variable: route.variable ?? 'HTTPS_PROXY' }
      throw proxyRefused(method, this.displayPath(path), proxy, refusal, origin)
    }
    return result
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
