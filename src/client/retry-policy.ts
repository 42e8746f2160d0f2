/** First wait after a transient failure; it doubles per retry, with jitter, up to the cap. */
export const BACKOFF_BASE_MS = 1000
export const BACKOFF_CAP_MS = 30 * 1000
/** Wait for a rate limit that names no time: GitHub asks for at least a minute, longer each time. */
export const UNTIMED_RATE_LIMIT_WAIT_MS = 60 * 1000
/** The doubling of untimed waits stops at an hour, the longest window GitHub documents a limit over. */
export const UNTIMED_RATE_LIMIT_CAP_MS = 60 * 60 * 1000
/** A rate limit asking for no wait (`retry-after: 0`) still waits this much: never a busy loop. */
export const MIN_RATE_LIMIT_WAIT_MS = 1000
/** Added to `x-ratelimit-reset` because the reset second is rounded and clocks drift. */
export const RESET_MARGIN_MS = 1000
/** Said with every secondary-limit line: a matrix's jobs all spend the same token's limit. */
export const SHARED_LIMIT =
  'the secondary rate limit is shared by every job and step that uses this token (all the jobs of a matrix included)'
/** What GitHub asks when a limit names no time; said instead of a reset time, which is unknown. */
export const UNTIMED_ASK =
  'it named no reset time; GitHub asks to wait at least a minute and longer each time'

export const TRANSIENT_STATUSES = new Set([500, 502, 503, 504])

export type Outcome =
  | { kind: 'response'; status: number; headers: Record<string, string>; message?: string }
  | { kind: 'network'; error: Error }
  | { kind: 'timeout'; error: Error }

export interface RetryContext {
  /** Retries after transient failures already made for this request: 0 when none. */
  retriesMade: number
  maxRetries: number
  /** Milliseconds since the epoch. */
  now: number
  /** Uniform in [0, 1); injected so tests can pin the jitter. */
  random: () => number
  /** Rate limits that named no time, seen before for this request: each one doubles the wait. */
  untimedRateLimits: number
}

export type FailureClass = 'transient' | 'rate-limit' | 'permanent'

export type RetryDecision =
  | {
      retry: true
      waitMs: number
      failure: Exclude<FailureClass, 'permanent'>
      reason: string
      /** when the service named it (`retry-after`, `x-ratelimit-reset`): the instant the wait ends */
      resetAt?: number
    }
  | { retry: false; failure: FailureClass; reason: string }

export function classify(outcome: Outcome): FailureClass {
  if (outcome.kind !== 'response') return 'transient'
  const { status, headers, message } = outcome
  if (TRANSIENT_STATUSES.has(status)) return 'transient'
  if (status === 429) return 'rate-limit'
  if (status === 403) {
    if (headers['x-ratelimit-remaining'] === '0') return 'rate-limit'
    if (headers['retry-after'] !== undefined) return 'rate-limit'
    if (message !== undefined && /rate limit/i.test(message)) return 'rate-limit'
  }
  return 'permanent'
}

/** Decides whether a failed attempt is retried and after how long. Pure: no clock, no I/O. */
export function decideRetry(outcome: Outcome, ctx: RetryContext): RetryDecision {
  const failure = classify(outcome)
  if (failure === 'permanent') return { retry: false, failure, reason: 'not retryable' }

  if (failure === 'rate-limit') {
    // Waited however long it asks: the step's time budget (the client's) is what bounds it.
    const timed = rateLimitWait(outcome, ctx.now)
    const primary = outcome.kind === 'response' && outcome.headers['x-ratelimit-remaining'] === '0'
    const whose = primary ? "the token's request quota is used up" : SHARED_LIMIT
    // A time already past (the runner's clock ahead of the service's, or a header that makes no
    // sense) is no time to wait for: waited as a limit naming none, never a refusal a second.
    const passed = passedTime(outcome, ctx.now)
    if (timed === undefined || passed !== undefined) {
      const waitMs = Math.min(
        UNTIMED_RATE_LIMIT_CAP_MS,
        UNTIMED_RATE_LIMIT_WAIT_MS * 2 ** ctx.untimedRateLimits
      )
      const ask = passed === undefined ? UNTIMED_ASK : `${passed}; ${PASSED_ASK}`
      return {
        retry: true,
        waitMs,
        failure,
        reason: `rate limited (${statusOf(outcome)}): ${whose}; ${ask}`
      }
    }
    const waitMs = Math.round(Math.max(MIN_RATE_LIMIT_WAIT_MS, timed))
    // The time the service named, as it named it; the wait adds the margin, the words do not.
    const asked = retryAfterWait(outcome, ctx.now) !== undefined
    const resetAt = asked
      ? ctx.now + waitMs
      : Math.max(
          ctx.now,
          Number(outcome.kind === 'response' && outcome.headers['x-ratelimit-reset']) * 1000
        )
    const when = asked
      ? `it asks to wait until ${dateOf(resetAt)} (retry-after)`
      : `it resets at ${dateOf(resetAt)} (x-ratelimit-reset)`
    return {
      retry: true,
      waitMs,
      failure,
      reason: `rate limited (${statusOf(outcome)}): ${whose}; ${when}`,
      resetAt
    }
  }
  const reason = describeTransient(outcome)
  // A 503 (or any retried status) may say when to come back: that, not the backoff.
  const asked = retryAfterWait(outcome, ctx.now)
  const waitMs = asked ?? backoff(ctx.retriesMade, ctx.random)
  if (ctx.retriesMade >= ctx.maxRetries) {
    return {
      retry: false,
      failure,
      reason: `${reason}; gave up after ${ctx.maxRetries} ${ctx.maxRetries === 1 ? 'retry' : 'retries'}`
    }
  }
  return {
    retry: true,
    waitMs: Math.round(waitMs),
    failure,
    reason,
    ...(asked !== undefined ? { resetAt: ctx.now + asked } : {})
  }
}

/** Exponential backoff with jitter: between half and all of base * 2^n, capped. */
export function backoff(retriesMade: number, random: () => number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retriesMade)
  return ceiling / 2 + random() * (ceiling / 2)
}

/** The wait `retry-after` names (seconds or an HTTP date), or undefined when there is none. */
export function retryAfterWait(outcome: Outcome, now: number): number | undefined {
  if (outcome.kind !== 'response') return undefined
  const retryAfter = outcome.headers['retry-after']
  if (retryAfter === undefined) return undefined
  const seconds = Number(retryAfter.trim())
  if (retryAfter.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(retryAfter)
  if (!Number.isNaN(date)) return Math.max(0, date - now)
  return undefined
}

/** Said after a time already past: what GitHub asks when a limit names no time. */
const PASSED_ASK = 'GitHub asks to wait at least a minute and longer each time'

/**
 * In words, the time a rate-limited answer names when it is already past by the runner's clock:
 * `retry-after` negative or an HTTP date gone by, or (when it decides) an `x-ratelimit-reset` whose
 * second is over. Undefined when the time it names is now or later, or it names none.
 */
export function passedTime(outcome: Outcome, now: number): string | undefined {
  if (outcome.kind !== 'response') return undefined
  const retryAfter = outcome.headers['retry-after']
  if (retryAfter !== undefined) {
    const asked = retryAfter.trim()
    const seconds = Number(asked)
    if (asked !== '' && Number.isFinite(seconds))
      return seconds < 0 ? `its retry-after (${asked}) names no time ahead` : undefined
    const date = Date.parse(retryAfter)
    if (!Number.isNaN(date) && date < now)
      return `its retry-after names a time already past by the runner's clock (${dateOf(date)})`
    if (!Number.isNaN(date)) return undefined
  }
  const reset = Number(outcome.headers['x-ratelimit-reset'])
  if (outcome.headers['x-ratelimit-remaining'] === '0' && Number.isFinite(reset) && reset > 0) {
    if (reset * 1000 + RESET_MARGIN_MS <= now)
      return `its x-ratelimit-reset (${dateOf(reset * 1000)}) is already past by the runner's clock`
  }
  return undefined
}

/** The wait a rate-limited response names, or undefined when it names none. */
export function rateLimitWait(outcome: Outcome, now: number): number | undefined {
  if (outcome.kind !== 'response') return undefined
  const asked = retryAfterWait(outcome, now)
  if (asked !== undefined) return asked
  const reset = Number(outcome.headers['x-ratelimit-reset'])
  if (outcome.headers['x-ratelimit-remaining'] === '0' && Number.isFinite(reset) && reset > 0) {
    return Math.max(0, reset * 1000 - now) + RESET_MARGIN_MS
  }
  return undefined
}

function statusOf(outcome: Outcome): string {
  return outcome.kind === 'response' ? String(outcome.status) : outcome.kind
}

function describeTransient(outcome: Outcome): string {
  if (outcome.kind === 'response') return `server error ${outcome.status}`
  if (outcome.kind === 'timeout') return `no response in time (${outcome.error.message})`
  return `network error (${outcome.error.message})`
}

/** The latest instant a JavaScript date holds: a wait past it is named without a date. */
const LAST_DATE_MS = 8.64e15

/** `2026-05-01T12:00:00.000Z`, or words for an instant no date can hold (`retry-after: 1e20`). */
export function dateOf(ms: number): string {
  return ms <= LAST_DATE_MS ? new Date(ms).toISOString() : 'a time too far off to name'
}
