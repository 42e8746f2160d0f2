// ServiceClient: rate-limit and retry-after waits, their own budget, stillNeeded after a wait,
// unanswered attempts, and the step deadline.
import { setup } from '../../__fixtures__/service-client.js'
import { STEP_DEADLINE_MS } from '../../src/client/client.js'
import { NoLongerNeeded, ServiceError } from '../../src/client/errors.js'
import { MAX_RATE_LIMIT_WAITS } from '../../src/client/retry-policy.js'

describe('retries', () => {
  test('429 waits retry-after', async () => {
    const { client, on, clock } = setup()
    on('GET', '/r', { status: 429, headers: { 'retry-after': '5' } }, { status: 200, body: {} })
    await client.request('GET', '/r')
    expect(clock.sleeps).toEqual([5000])
  })

  test('a secondary limit without headers waits 60 s, then 120 s', async () => {
    const { client, on, clock, log } = setup()
    const limited = { status: 403, body: { message: 'You have exceeded a secondary rate limit.' } }
    on('GET', '/r', limited, limited, { status: 200, body: {} })
    await client.request('GET', '/r')
    expect(clock.sleeps).toEqual([60_000, 120_000])
    expect(log.text()).toMatch(
      /rate limited \(403\): the secondary rate limit is shared by every job and step that uses this token .*; rate-limit wait 1 of at most 10 in 60 s/
    )
  })

  test('rate-limit waits have their own budget: four 2 s refusals with max-retries 1 still succeed', async () => {
    const { client, on, clock } = setup({ maxRetries: 1 })
    const limited = {
      status: 403,
      headers: { 'retry-after': '2' },
      body: { message: 'secondary rate limit' }
    }
    on('POST', '/w', limited, limited, limited, limited, { status: 201, body: { ok: true } })
    await expect(client.request('POST', '/w', { body: {} })).resolves.toMatchObject({ status: 201 })
    expect(clock.sleeps.filter(ms => ms === 2000)).toHaveLength(4)
    expect(client.rateLimitWaits).toBe(4)
  })

  test('rate-limit waits give up after MAX_RATE_LIMIT_WAITS, saying so', async () => {
    const { client, on } = setup({ maxRetries: 0 })
    const limited = { status: 429, headers: { 'retry-after': '1' }, body: {} }
    on('GET', '/r', ...Array.from({ length: MAX_RATE_LIMIT_WAITS + 1 }, () => limited))
    const error = await client.request('GET', '/r').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServiceError)
    expect((error as ServiceError).attempts).toBe(MAX_RATE_LIMIT_WAITS + 1)
    expect((error as ServiceError).message).toMatch(
      new RegExp(`gave up after ${MAX_RATE_LIMIT_WAITS} rate-limit waits`)
    )
  })

  test('after a rate-limit wait, stillNeeded is asked before sending again; its reads go through', async () => {
    const { client, on, seen } = setup()
    const limited = {
      status: 403,
      headers: { 'retry-after': '1' },
      body: { message: 'secondary rate limit' }
    }
    on('POST', '/w', limited)
    on('GET', '/state', { status: 200, body: { done: true } })
    const asked: unknown[] = []
    const error = await client
      .request('POST', '/w', {
        body: {},
        stillNeeded: async () => {
          const state = await client.request<{ done: boolean }>('GET', '/state')
          asked.push(state.body)
          return !state.body.done
        }
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NoLongerNeeded)
    expect(asked).toEqual([{ done: true }])
    expect(seen.map(s => `${s.method} ${s.path}`)).toEqual(['POST /w', 'GET /state'])
  })

  test('unanswered counts only attempts sent without an answer, not refusals', async () => {
    const { client, on } = setup({ maxRetries: 1 })
    const limited = {
      status: 403,
      headers: { 'retry-after': '1' },
      body: { message: 'secondary rate limit' }
    }
    on('POST', '/jobs', limited, { status: 409, body: { message: 'busy' } })
    const refused = (await client
      .request('POST', '/jobs', { body: {} })
      .catch(e => e)) as ServiceError
    expect([refused.status, refused.attempts, refused.unanswered]).toEqual([409, 2, 0])
    on('POST', '/jobs', new Error('socket hang up'), { status: 409, body: { message: 'busy' } })
    const lost = (await client.request('POST', '/jobs', { body: {} }).catch(e => e)) as ServiceError
    expect([lost.status, lost.unanswered]).toEqual([409, 1])
  })

  test('a primary limit waits until x-ratelimit-reset', async () => {
    const { client, on, clock } = setup()
    const reset = String(Math.floor(clock.now() / 1000) + 30)
    on(
      'GET',
      '/r',
      { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset } },
      { status: 200, body: {} }
    )
    await client.request('GET', '/r')
    expect(clock.sleeps).toEqual([31_000])
  })

  test('a limit resetting in over 15 minutes fails at once with the reset time', async () => {
    const { client, on, clock, seen } = setup()
    const reset = Math.floor(clock.now() / 1000) + 3600
    on('GET', '/r', {
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      body: { message: 'API rate limit exceeded' }
    })
    const error = (await client.request('GET', '/r').catch(e => e)) as ServiceError
    expect(seen).toHaveLength(1)
    expect(clock.sleeps).toEqual([])
    expect(error.fatal).toBe(true)
    expect(error.message).toContain(new Date(reset * 1000 + 1000).toISOString())
  })

  test.each([
    ['503', 503],
    ['502', 502]
  ])('retry-after on a retried status (%s) is the wait, not the backoff', async (_n, status) => {
    const { client, on, clock } = setup()
    on('GET', '/r', { status, headers: { 'retry-after': '12' } }, { status: 200, body: {} })
    await client.request('GET', '/r')
    expect(clock.sleeps).toEqual([12_000])
  })

  test('a retry-after on 503 past 15 minutes fails at once', async () => {
    const { client, on, clock } = setup()
    on('GET', '/r', { status: 503, headers: { 'retry-after': '3600' } })
    const error = (await client.request('GET', '/r').catch(e => e)) as ServiceError
    expect(clock.sleeps).toEqual([])
    expect(error.message).toMatch(/asks to wait 60 minutes \(retry-after\)/)
  })
})

test(`retry waits stop at the step deadline of ${STEP_DEADLINE_MS / 60000} minutes`, async () => {
  const { client, on, clock } = setup({ maxRetries: 10 })
  const limited = { status: 429, headers: { 'retry-after': '900' } }
  on('GET', '/r', limited, limited, limited, limited, limited)
  const error = (await client.request('GET', '/r').catch(e => e)) as ServiceError
  // Four 15-minute waits fit in the hour; the fifth would pass it.
  expect(clock.sleeps).toEqual([900_000, 900_000, 900_000, 900_000])
  expect(error.message).toMatch(/would pass the step's 60 minute deadline/)
  expect(error.fatal).toBe(true)
})
