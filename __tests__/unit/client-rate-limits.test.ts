// ServiceClient: rate-limit and retry-after waits, their own budget, stillNeeded after a wait,
// unanswered attempts, and the step's time budget.
import { setup } from '../../__fixtures__/service-client.js'
import { NoLongerNeeded, ServiceError } from '../../src/client/errors.js'
import { OutOfTime } from '../../src/client/waits.js'

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
      /rate limited \(403\): the secondary rate limit is shared by every job and step that uses this token .*; it named no reset time; GitHub asks to wait at least a minute and longer each time; rate-limit wait 1 in 60 s\n.*\n.*rate-limit wait 2 in 120 s, resuming at 12:03:00 UTC/
    )
  })

  test("a reset already past by the runner's clock is no time to wait for: 60 s, then 120 s, never a refusal a second", async () => {
    const { client, on, clock, log } = setup()
    const past = String(Math.floor(clock.now() / 1000) - 30)
    const limited = {
      status: 403,
      headers: {
        'x-ratelimit-limit': '1000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': past
      },
      body: { message: 'API rate limit exceeded for installation.' }
    }
    on('GET', '/r', limited, limited, limited, { status: 200, body: {} })
    await client.request('GET', '/r')
    expect(clock.sleeps).toEqual([60_000, 120_000, 240_000])
    // The time it named is said as it was, past; none is made up.
    expect(log.text()).toContain(
      "its x-ratelimit-reset (2026-11-22T11:59:30.000Z) is already past by the runner's clock; GitHub asks to wait at least a minute"
    )
    expect(log.text()).not.toMatch(/it resets at/)
  })

  test.each([['-5'], ['Sun, 22 Nov 2026 11:00:00 GMT']])(
    'retry-after %j names no time ahead: waited as a limit naming none',
    async value => {
      const { client, on, clock, log } = setup()
      const limited = { status: 429, headers: { 'retry-after': value }, body: {} }
      on('GET', '/r', limited, limited, { status: 200, body: {} })
      await client.request('GET', '/r')
      expect(clock.sleeps).toEqual([60_000, 120_000])
      expect(log.text()).not.toMatch(/it asks to wait until/)
    }
  )

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

  test('rate-limit waits are bounded by time, not counted: twelve 1 s refusals with max-retries 0 are waited out', async () => {
    const { client, on, clock } = setup({ maxRetries: 0 })
    const limited = { status: 429, headers: { 'retry-after': '1' }, body: {} }
    on('GET', '/r', ...Array.from({ length: 12 }, () => limited), { status: 200, body: {} })
    await expect(client.request('GET', '/r')).resolves.toMatchObject({ status: 200 })
    expect(clock.sleeps).toEqual(Array.from({ length: 12 }, () => 1000))
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

  test('a primary limit resetting in an hour is waited: the default budget holds it, and the wait says when it resumes', async () => {
    const { client, on, clock, log } = setup()
    const reset = Math.floor(clock.now() / 1000) + 3600
    on(
      'GET',
      '/r',
      {
        status: 403,
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
        body: { message: 'API rate limit exceeded' }
      },
      { status: 200, body: {} }
    )
    await client.request('GET', '/r')
    expect(clock.sleeps).toEqual([3_601_000])
    expect(log.text()).toMatch(/rate-limit wait 1 in 3601 s, resuming at 13:00:01 UTC/)
  })

  test('a limit resetting past the time budget fails at once: the cause, the reset, the next step', async () => {
    const { client, on, clock, seen } = setup({ timeBudgetMinutes: 30 })
    const reset = Math.floor(clock.now() / 1000) + 3600
    on('GET', '/r', {
      status: 403,
      headers: {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(reset),
        'x-github-request-id': 'AB:12'
      },
      body: { message: 'API rate limit exceeded' }
    })
    const error = (await client.request('GET', '/r').catch(e => e)) as OutOfTime
    expect(seen).toHaveLength(1)
    expect(clock.sleeps).toEqual([])
    expect(error).toBeInstanceOf(OutOfTime)
    expect([error.fatal, error.refused, error.resetAt]).toEqual([true, true, reset * 1000]) // as named: the margin is in the wait only
    expect(error.message.split('\n')).toEqual([
      "GET /r refused (403): rate limited (403): the token's request quota is used up; it resets at " +
        `${new Date(reset * 1000).toISOString()} (x-ratelimit-reset); waiting 1 h more would ` +
        "pass the step's time budget (`time-budget`: 30 minutes, ending at 12:30 UTC). Run the step again after 13:00 UTC.",
      '  the service said: API rate limit exceeded',
      '  request id: AB:12'
    ])
  })

  test('a reset in the middle of a minute: the step is run again after the next whole minute, not the one cut short', async () => {
    const { client, on, clock } = setup({ timeBudgetMinutes: 1 })
    on('POST', '/w', { status: 429, headers: { 'retry-after': '138' }, body: {} })
    const error = (await client.request('POST', '/w', { body: {} }).catch(e => e)) as OutOfTime
    expect(error).toBeInstanceOf(OutOfTime)
    expect(error.resetAt).toBe(clock.now() + 138_000) // 12:02:18
    expect(error.message).toMatch(/Run the step again after 12:03 UTC\.$/m)
  })

  test('a wait under ten minutes past a budget of one minute is said to the second, the budget in the singular', async () => {
    const { client, on } = setup({ timeBudgetMinutes: 1 })
    on('POST', '/w', { status: 429, headers: { 'retry-after': '90' }, body: {} })
    const error = (await client.request('POST', '/w', { body: {} }).catch(e => e)) as OutOfTime
    expect(error.message).toContain(
      "waiting 1 min 30 s more would pass the step's time budget (`time-budget`: 1 minute, ending at 12:01 UTC)"
    )
  })

  test("a limit with no header past the budget: no reset time is invented, GitHub's ask is said", async () => {
    const { client, on, clock } = setup({ timeBudgetMinutes: 10 })
    const limited = {
      status: 403,
      body: {
        message:
          'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.'
      }
    }
    on('POST', '/w', limited, limited, limited, limited)
    const error = (await client.request('POST', '/w', { body: {} }).catch(e => e)) as OutOfTime
    // 1 + 2 + 4 minutes fit in 10; the next, 8, would not.
    expect(clock.sleeps).toEqual([60_000, 120_000, 240_000])
    expect(error).toBeInstanceOf(OutOfTime)
    expect(error.resetAt).toBeUndefined()
    const first = error.message.split('\n')[0]
    expect(first).toContain(
      'it named no reset time; GitHub asks to wait at least a minute and longer each time; waiting 8 min more would pass'
    )
    expect(first).toContain(
      'Run the step again later: after a few minutes at least, as GitHub asks.'
    )
    expect(first).not.toMatch(/resets at|\d\d:\d\d UTC\)?\. Run the step again after/)
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

  test('a retry-after on 503 past the time budget fails at once, saying when it asked to come back', async () => {
    const { client, on, clock } = setup({ timeBudgetMinutes: 30 })
    on('GET', '/r', { status: 503, headers: { 'retry-after': '3600' } })
    const error = (await client.request('GET', '/r').catch(e => e)) as OutOfTime
    expect(clock.sleeps).toEqual([])
    expect(error.message).toMatch(
      /server error 503; waiting 1 h more would pass the step's time budget/
    )
    expect(error.message).toMatch(/Run the step again after 13:00 UTC/)
  })
})

test('waits go on while the time budget holds them, and stop at the first that would pass it', async () => {
  const { client, on, clock } = setup({ maxRetries: 10, timeBudgetMinutes: 60 })
  const limited = { status: 429, headers: { 'retry-after': '900' } }
  on('GET', '/r', limited, limited, limited, limited, limited)
  const error = (await client.request('GET', '/r').catch(e => e)) as ServiceError
  // Four 15-minute waits fit in the hour; the fifth would pass it.
  expect(clock.sleeps).toEqual([900_000, 900_000, 900_000, 900_000])
  expect(error.message).toMatch(/would pass the step's time budget \(`time-budget`: 60 minutes/)
  expect(error.fatal).toBe(true)
})
