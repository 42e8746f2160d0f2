import {
  backoff,
  classify,
  decideRetry,
  SHARED_LIMIT,
  UNTIMED_ASK,
  UNTIMED_RATE_LIMIT_CAP_MS,
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
const response = (
  status: number,
  headers: Record<string, string> = {},
  message?: string
): Outcome => ({
  kind: 'response',
  status,
  headers,
  message
})

describe('classify', () => {
  test.each([
    [response(500), 'transient'],
    [response(502), 'transient'],
    [response(503), 'transient'],
    [response(504), 'transient'],
    [{ kind: 'network', error: new Error('ECONNRESET') } as Outcome, 'transient'],
    [{ kind: 'timeout', error: new Error('slow') } as Outcome, 'transient'],
    [response(429), 'rate-limit'],
    [response(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' }), 'rate-limit'],
    [response(403, { 'retry-after': '30' }), 'rate-limit'],
    [response(403, {}, 'You have exceeded a secondary rate limit.'), 'rate-limit'],
    [
      response(403, { 'x-ratelimit-remaining': '12' }, 'Resource not accessible by integration'),
      'permanent'
    ],
    [response(400), 'permanent'],
    [response(401), 'permanent'],
    [response(404), 'permanent'],
    [response(409), 'permanent'],
    [response(410), 'permanent'],
    [response(422), 'permanent'],
    [response(501), 'permanent']
  ])('%j is %s', (outcome, expected) => {
    expect(classify(outcome)).toBe(expected)
  })
})

describe('decideRetry', () => {
  test('a permission 403 is not retried', () => {
    expect(decideRetry(response(403, {}, 'Resource not accessible by integration'), ctx())).toEqual(
      {
        retry: false,
        failure: 'permanent',
        reason: 'not retryable'
      }
    )
  })

  test('transient failures back off exponentially with jitter, capped', () => {
    const waits = [0, 1, 2, 3, 4, 5, 6].map(n => {
      const d = decideRetry(response(503), ctx({ retriesMade: n, maxRetries: 10, random: () => 0 }))
      return d.retry ? d.waitMs : -1
    })
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 15000, 15000])
    const high = decideRetry(response(503), ctx({ retriesMade: 2, random: () => 0.999999 }))
    expect(high.retry && high.waitMs).toBe(4000)
  })

  test('jitter spreads waits between half and all of the ceiling', () => {
    expect(backoff(1, () => 0)).toBe(1000)
    expect(backoff(1, () => 0.5)).toBe(1500)
    expect(backoff(1, () => 0.99)).toBeCloseTo(1990)
  })

  test('retry-after in seconds wins over the reset header', () => {
    const d = decideRetry(
      response(429, {
        'retry-after': '7',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(NOW / 1000 + 600)
      }),
      ctx()
    )
    expect(d).toMatchObject({ retry: true, waitMs: 7000, failure: 'rate-limit' })
  })

  test('retry-after as an HTTP date', () => {
    const d = decideRetry(
      response(429, { 'retry-after': new Date(NOW + 42_000).toUTCString() }),
      ctx()
    )
    expect(d).toMatchObject({ retry: true, waitMs: 42_000 })
  })

  test('x-ratelimit-reset is waited for when remaining is 0, with a margin', () => {
    const d = decideRetry(
      response(403, {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(NOW / 1000 + 120)
      }),
      ctx()
    )
    expect(d).toMatchObject({ retry: true, waitMs: 121_000 })
  })

  test('a rate limit that names no time waits 60 s, doubling per repeat', () => {
    const waits = [0, 1, 2].map(n => {
      const d = decideRetry(
        response(403, {}, 'secondary rate limit'),
        ctx({ untimedRateLimits: n, retriesMade: n })
      )
      return d.retry ? d.waitMs : -1
    })
    expect(waits).toEqual([60_000, 120_000, 240_000])
  })

  test('a wait of an hour is still a wait (the time budget, not the policy, bounds it), naming the reset', () => {
    const reset = NOW / 1000 + 3600
    const d = decideRetry(
      response(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) }),
      ctx()
    )
    expect(d).toMatchObject({ retry: true, waitMs: 3_601_000, resetAt: reset * 1000 })
    expect(d.reason).toContain(`it resets at ${new Date(reset * 1000).toISOString()}`)
  })

  test('an untimed limit doubles up to an hour, says GitHub asks for longer each time, and names no reset', () => {
    const waits = [0, 4, 5, 6, 9].map(n =>
      decideRetry(response(429), ctx({ untimedRateLimits: n }))
    )
    expect(waits.map(d => (d.retry ? d.waitMs : -1))).toEqual([
      60_000,
      960_000,
      1_920_000,
      UNTIMED_RATE_LIMIT_CAP_MS,
      UNTIMED_RATE_LIMIT_CAP_MS
    ])
    for (const d of waits) {
      expect(d.reason).toContain(UNTIMED_ASK)
      expect(d.reason).not.toMatch(/resets at|until \d/)
      expect(d.retry && d.resetAt).toBeUndefined()
    }
  })

  test('rate-limit waits are not counted: max-retries 0 still waits, however many came before', () => {
    const limited = response(403, { 'retry-after': '2' }, 'secondary rate limit')
    for (const n of [0, 3, 50])
      expect(decideRetry(limited, ctx({ maxRetries: 0, retriesMade: n }))).toMatchObject({
        retry: true,
        waitMs: 2000
      })
  })

  test('retry-after: 0 still waits a second: never a busy loop', () => {
    expect(decideRetry(response(429, { 'retry-after': '0' }), ctx())).toMatchObject({
      retry: true,
      waitMs: 1000
    })
  })

  test('a secondary limit says it is shared by every job on the token; a primary one does not', () => {
    const secondary = decideRetry(response(403, {}, 'secondary rate limit'), ctx())
    expect(secondary.reason).toContain(SHARED_LIMIT)
    const primary = decideRetry(
      response(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 5) }),
      ctx()
    )
    expect(primary.reason).not.toContain(SHARED_LIMIT)
    expect(SHARED_LIMIT).toMatch(/every job .* this token/)
  })

  test('max-retries counts retries after the first attempt', () => {
    expect(decideRetry(response(502), ctx({ retriesMade: 2, maxRetries: 3 })).retry).toBe(true)
    const last = decideRetry(response(502), ctx({ retriesMade: 3, maxRetries: 3 }))
    expect(last).toMatchObject({ retry: false, failure: 'transient' })
    expect(last.reason).toMatch(/gave up after 3 retries/)
    expect(decideRetry(response(502), ctx({ retriesMade: 0, maxRetries: 0 })).retry).toBe(false)
  })
})
