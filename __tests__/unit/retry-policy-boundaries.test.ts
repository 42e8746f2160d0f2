/**
 * The limits of src/client/retry-policy.ts at, below and above each boundary, beside the table
 * tests of retry-policy.test.ts: a long wait a 5xx may ask for, a reset second of 0, a
 * `retry-after` that is empty or no number, the one-retry wording, the reasons each failure gives,
 * and the last instant a date can name.
 */
import {
  decideRetry,
  rateLimitWait,
  RESET_MARGIN_MS,
  retryAfterWait,
  SHARED_LIMIT,
  type Outcome,
  type RetryContext
} from '../../src/client/retry-policy.js'

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0)
const ctx = (over: Partial<RetryContext> = {}): RetryContext => ({
  retriesMade: 0,
  maxRetries: 3,
  now: NOW,
  random: () => 0.5,
  untimedRateLimits: 0,
  ...over
})
const response = (status: number, headers: Record<string, string> = {}, message?: string) =>
  ({ kind: 'response', status, headers, message }) as Outcome
const network: Outcome = { kind: 'network', error: new Error('ECONNRESET') }
const timeout: Outcome = { kind: 'timeout', error: new Error('20 s') }

describe('a 5xx that says when to come back (retry-after)', () => {
  test('a long one is waited as asked (the time budget bounds it, in the client), with its end', () => {
    const at = decideRetry(response(503, { 'retry-after': '900.001' }), ctx())
    expect(at).toMatchObject({
      retry: true,
      waitMs: 900_001,
      failure: 'transient',
      resetAt: NOW + 900_001
    })
  })

  test('a short one is waited as asked, not the backoff', () => {
    expect(decideRetry(response(503, { 'retry-after': '5' }), ctx())).toMatchObject({
      retry: true,
      waitMs: 5000
    })
  })

  test('each failure says what it was', () => {
    expect(decideRetry(response(502), ctx()).reason).toBe('server error 502')
    expect(decideRetry(timeout, ctx()).reason).toBe('no response in time (20 s)')
    expect(decideRetry(network, ctx()).reason).toBe('network error (ECONNRESET)')
  })

  test('one retry allowed: "gave up after 1 retry"; two: "2 retries"', () => {
    expect(decideRetry(response(500), ctx({ retriesMade: 1, maxRetries: 1 })).reason).toMatch(
      /gave up after 1 retry$/
    )
    expect(decideRetry(response(500), ctx({ retriesMade: 2, maxRetries: 2 })).reason).toMatch(
      /gave up after 2 retries$/
    )
  })

  test('a permanent failure is never retried, whatever is left of max-retries', () => {
    expect(decideRetry(response(404), ctx())).toEqual({
      retry: false,
      failure: 'permanent',
      reason: 'not retryable'
    })
  })
})

describe('rate limits', () => {
  test('the reason names the status and whose limit it is', () => {
    const primary = decideRetry(
      response(429, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 5) }),
      ctx()
    )
    expect(primary.reason).toBe(
      "rate limited (429): the token's request quota is used up; it resets at 2026-11-22T12:00:05.000Z (x-ratelimit-reset)"
    )
    const secondary = decideRetry(response(429, { 'retry-after': '3' }), ctx())
    expect(secondary.reason).toBe(
      `rate limited (429): ${SHARED_LIMIT}; it asks to wait until 2026-11-22T12:00:03.000Z (retry-after)`
    )
  })

  test('a 403 with a message that is not about rate limits is permanent', () => {
    expect(decideRetry(response(403, {}, 'Resource not accessible'), ctx()).failure).toBe(
      'permanent'
    )
    expect(decideRetry(response(403), ctx()).failure).toBe('permanent')
  })

  test('the reset header: waited when remaining is 0 and the reset is a time after 0; not otherwise', () => {
    const reset = (value: string, remaining = '0') =>
      rateLimitWait(
        response(403, { 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset': value }),
        NOW
      )
    expect(reset(String(NOW / 1000 + 10))).toBe(10_000 + RESET_MARGIN_MS)
    expect(reset(String(NOW / 1000 - 10))).toBe(RESET_MARGIN_MS) // already past: the margin only
    expect(reset('0')).toBeUndefined()
    expect(reset('soon')).toBeUndefined()
    expect(reset(String(NOW / 1000 + 10), '1')).toBeUndefined()
    expect(rateLimitWait(network, NOW)).toBeUndefined()
  })

  test('retry-after wins over the reset header', () => {
    const both = response(403, {
      'retry-after': '7',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(NOW / 1000 + 100)
    })
    expect(rateLimitWait(both, NOW)).toBe(7000)
  })

  test('the last instant a date holds is named as a date; past it, in words', () => {
    const reasonAt = (seconds: string) =>
      decideRetry(response(429, { 'retry-after': seconds }), ctx({ now: 0 })).reason
    expect(reasonAt('8640000000000')).toContain('until +275760-09-13T00:00:00.000Z')
    expect(reasonAt('8640000000000.001')).toContain('until a time too far off to name')
  })
})

describe('retry-after', () => {
  test.each([
    ['30', 30_000],
    [' 30 ', 30_000],
    ['0', 0],
    ['-5', 0]
  ])('%j seconds: %i ms', (value, ms) => {
    expect(retryAfterWait(response(503, { 'retry-after': value }), NOW)).toBe(ms)
  })

  test('an HTTP date: the time until it, 0 when it is past', () => {
    const at = (ms: number) => new Date(ms).toUTCString()
    expect(retryAfterWait(response(503, { 'retry-after': at(NOW + 60_000) }), NOW)).toBe(60_000)
    expect(retryAfterWait(response(503, { 'retry-after': at(NOW - 60_000) }), NOW)).toBe(0)
  })

  test('empty, or neither a number nor a date: none (not 0 s)', () => {
    expect(retryAfterWait(response(503, { 'retry-after': '' }), NOW)).toBeUndefined()
    expect(retryAfterWait(response(503, { 'retry-after': '  ' }), NOW)).toBeUndefined()
    expect(retryAfterWait(response(503, { 'retry-after': 'later' }), NOW)).toBeUndefined()
    expect(retryAfterWait(response(503), NOW)).toBeUndefined()
    expect(retryAfterWait(timeout, NOW)).toBeUndefined()
  })
})
