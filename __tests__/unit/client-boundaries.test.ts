/**
 * The limits of src/client/client.ts at, below and above each boundary: the 2xx range and 304,
 * exactly MAX_REDIRECTS redirects, the last page read, a wait ending exactly at the step's
 * deadline, a 500 counted as an attempt the service may have applied, the counts the log gives,
 * and a cancel before a request or during a wait (nothing sent).
 */
import { MockAgent, type Dispatcher } from 'undici'
import { API, setup } from '../../__fixtures__/service-client.js'
import { FakeClock } from '../../__fixtures__/fake-clock.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import { Cancellation, CancelledError, cancellableClock } from '../../src/client/cancel.js'
import { MAX_REDIRECTS, ServiceClient } from '../../src/client/client.js'
import { ServiceError } from '../../src/client/errors.js'

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as ServiceError
  )

describe('which answers are a success', () => {
  test.each([200, 201, 204, 299])('%i is a success', async status => {
    const { client, on } = setup()
    on('GET', '/r', { status, body: { ok: 1 } })
    await expect(client.request('GET', '/r')).resolves.toMatchObject({ status })
  })

  test('304 (not modified) is a success', async () => {
    const { client, on } = setup()
    on('GET', '/r', { status: 304 })
    await expect(client.request('GET', '/r')).resolves.toMatchObject({ status: 304 })
  })

  test('300 is no success and no redirect that is followed: one attempt, an error', async () => {
    const { client, on, seen } = setup()
    on('GET', '/r', { status: 300, body: { message: 'choose' } })
    expect(await failureOf(client.request('GET', '/r'))).toBeInstanceOf(ServiceError)
    expect(seen).toHaveLength(1)
  })

  test('a whole JSON answer logs nothing but the debug line: its status and time', async () => {
    const { client, on, log } = setup()
    on('GET', '/r', { status: 200, body: { ok: 1 } })
    await client.request('GET', '/r')
    expect(log.lines).toEqual([{ level: 'debug', message: 'GET /r -> 200 in 0 ms' }])
  })
})

describe('redirects', () => {
  test(`exactly ${MAX_REDIRECTS} redirects are followed`, async () => {
    const { client, on, seen } = setup()
    for (let i = 0; i < MAX_REDIRECTS; i++)
      on('GET', `/r${i}`, { status: 302, headers: { location: `/r${i + 1}` } })
    on('GET', `/r${MAX_REDIRECTS}`, { status: 200, body: { ok: 1 } })
    await expect(client.request('GET', '/r0')).resolves.toMatchObject({ body: { ok: 1 } })
    expect(seen).toHaveLength(MAX_REDIRECTS + 1)
  })

  test('a 404 after a redirect elsewhere and back names no other origin', async () => {
    const { client, on } = setup()
    on('GET', '/a', { status: 302, headers: { location: 'https://other.example.test/b' } })
    on('GET', 'https://other.example.test/b', { status: 302, headers: { location: `${API}/c` } })
    on('GET', '/c', { status: 404, body: { message: 'Not Found' } })
    const error = await failureOf(client.request('GET', '/a'))
    expect(error?.status).toBe(404)
    expect(error?.message).not.toContain('another origin')
  })

  test('303 after a GET stays a GET', async () => {
    const { client, on, seen } = setup()
    on('GET', '/w', { status: 303, headers: { location: '/answer' } })
    on('GET', '/answer', { status: 200, body: {} })
    await client.request('GET', '/w')
    expect(seen.map(s => `${s.method} ${s.path}`)).toEqual(['GET /w', 'GET /answer'])
  })
})

describe('a 407 without a proxy', () => {
  test("is the service's answer, not a proxy's refusal", async () => {
    const { client, on, seen } = setup()
    on('GET', '/r', { status: 407, body: { message: 'no' } })
    const error = await failureOf(client.request('GET', '/r'))
    expect(error).toMatchObject({ status: 407 })
    expect(error?.message).not.toMatch(/proxy/i)
    expect(seen).toHaveLength(1)
  })
})

describe('the path a message names', () => {
  test('under an Enterprise Server base path: the path as given, the base path not cut from it twice', async () => {
    const { client, on } = setup({ baseUrl: `${API}/api/v3/`, maxRetries: 0 })
    on('GET', '/api/v3/repos/acme/web', { status: 404, body: { message: 'Not Found' } })
    const error = await failureOf(client.request('GET', '/repos/acme/web'))
    expect(error?.path).toBe('/repos/acme/web')
  })
})

describe('request headers', () => {
  test('a request without a body has no content-type; one with a body has', async () => {
    const { client, on, seen } = setup()
    on('GET', '/r', { status: 200, body: {} })
    on('POST', '/w', { status: 200, body: {} })
    await client.request('GET', '/r')
    await client.request('POST', '/w', { body: { a: 1 } })
    expect(seen[0]?.headers['content-type']).toBeUndefined()
    expect(seen[1]?.headers['content-type']).toBe('application/json; charset=utf-8')
  })
})

describe('what a failure counts', () => {
  test('an answer of exactly 500 counts as a server error the service may have applied', async () => {
    const { client, on } = setup({ maxRetries: 0 })
    on('POST', '/w', { status: 500 })
    const error = await failureOf(client.request('POST', '/w'))
    expect(error).toMatchObject({ status: 500, serverErrors: 1, unanswered: 0, attempts: 1 })
  })

  test('a 4xx after a 500: the 500 is still counted', async () => {
    const { client, on } = setup({ maxRetries: 1 })
    on('POST', '/w', { status: 500 }, { status: 422, body: { message: 'no' } })
    const error = await failureOf(client.request('POST', '/w'))
    expect(error).toMatchObject({ status: 422, serverErrors: 1, attempts: 2 })
  })

  test('the log counts each retry and each rate-limit wait from 1', async () => {
    const { client, on, log } = setup({ maxRetries: 3 })
    on(
      'GET',
      '/r',
      { status: 502 },
      { status: 429, headers: { 'retry-after': '2' } },
      { status: 200, body: {} }
    )
    await client.request('GET', '/r')
    const info = log.lines.filter(l => l.level === 'info').map(l => l.message)
    expect(info).toEqual([
      expect.stringMatching(/^GET \/r: server error 502; retry 1 of 3 in /),
      expect.stringMatching(/ \(retry-after\); rate-limit wait 1 in 2.0 s$/)
    ])
  })
})

describe('rate limits that name no time', () => {
  test('only they double the next untimed wait: a 5xx before one does not', async () => {
    const { client, on, clock } = setup({ maxRetries: 3 })
    on('GET', '/r', { status: 502 }, { status: 429 }, { status: 200, body: {} })
    await client.request('GET', '/r')
    // The backoff after the 502 (random 0: half of 1 s), then 60 s for the first untimed limit.
    expect(clock.sleeps).toEqual([500, 60_000])
  })
})

describe('the time budget', () => {
  test('a wait that ends exactly at the end of the budget is waited; one that ends later fails', async () => {
    const BUDGET_MS = 60 * 60_000
    const at = setup({ maxRetries: 10, timeBudgetMinutes: 60 })
    at.clock.advance(BUDGET_MS - 900_000)
    at.on(
      'GET',
      '/r',
      { status: 429, headers: { 'retry-after': '900' } },
      { status: 200, body: {} }
    )
    await expect(at.client.request('GET', '/r')).resolves.toMatchObject({ status: 200 })
    expect(at.clock.sleeps).toEqual([900_000])

    const past = setup({ maxRetries: 10, timeBudgetMinutes: 60 })
    past.clock.advance(BUDGET_MS - 900_000 + 1)
    past.on('GET', '/r', { status: 429, headers: { 'retry-after': '900' } })
    const error = await failureOf(past.client.request('GET', '/r'))
    expect(error?.message).toMatch(/would pass the step's time budget \(`time-budget`: 60 minutes/)
    expect(error?.attempts).toBe(1)
    expect(past.clock.sleeps).toEqual([])
  })
})

describe('pagination', () => {
  /** Pages of `size` bytes each, every one naming a next; `last` ends the list. */
  function endless(agent: MockAgent, size: (n: number) => number, last = Infinity) {
    let served = 0
    agent
      .get(API)
      .intercept({ path: p => p.startsWith('/pages'), method: 'GET' })
      .reply(() => {
        served++
        const pad = 'x'.repeat(Math.max(0, size(served) - 20))
        return {
          statusCode: 200,
          data: JSON.stringify([{ n: served, pad }]),
          responseOptions: {
            headers: {
              'content-type': 'application/json',
              ...(served < last ? { link: `<${API}/pages?page=${served + 1}>; rel="next"` } : {})
            }
          }
        }
      })
      .persist()
    return () => served
  }

  test('a list of exactly 1000 pages is read whole; one that goes on past them ends in plain words', async () => {
    const whole = setup()
    const pick = (body: unknown) => body as Array<{ n: number }>
    endless(whole.agent, () => 30, 1000)
    expect(await whole.client.paginate('/pages?page=1', pick)).toHaveLength(1000)

    const { client, agent, seen } = setup()
    const served = endless(agent, () => 30)
    const error = await client.paginate('/pages?page=1', pick).catch((e: unknown) => e)
    expect(served()).toBe(1000)
    expect(error).toBeInstanceOf(ServiceError)
    expect((error as Error).message).toMatch(
      /^GET \/pages failed: the list goes on after 1000 pages \(0\.\d+ MiB\), past the most the step reads of one list \(1000 pages or 64 MiB\)\n.*Nothing of this list was used/
    )
    expect(seen).toHaveLength(0) // answered by the interceptor above, not the fixture's
  })

  test('a stream of 12 MB pages ends under 100 MB read, in plain words', async () => {
    const { client, agent } = setup()
    const served = endless(agent, () => 12_000_000)
    const error = await client
      .paginate('/pages?page=1', b => b as unknown[])
      .catch((e: unknown) => e)
    // 6 pages (72 MB) pass the 64 MiB cap: nothing more is asked for.
    expect(served()).toBe(6)
    expect(served() * 12_000_000).toBeLessThan(100_000_000)
    expect((error as Error).message).toMatch(
      /the list goes on after 6 pages \(69 MiB\), past the most the step reads of one list \(1000 pages or 64 MiB\)/
    )
  })
})

describe('a cancel', () => {
  function cancellable(onSleep?: (c: Cancellation) => void) {
    const agent = new MockAgent()
    agent.disableNetConnect()
    const cancellation = new Cancellation()
    const fake = new FakeClock()
    const clock = cancellableClock(
      {
        now: () => fake.now(),
        sleep: async ms => {
          onSleep?.(cancellation)
          await fake.sleep(ms)
        }
      },
      cancellation
    )
    const client = new ServiceClient({
      baseUrl: API,
      token: 't',
      apiVersion: '2026-03-10',
      maxRetries: 3,
      userAgent: 'test',
      dispatcher: agent,
      clock,
      random: () => 0,
      log: new MemoryLog(),
      cancellation
    })
    return { agent, cancellation, client }
  }

  test('asked before a request: it is not sent, and the error says so', async () => {
    const { cancellation, client } = cancellable()
    cancellation.cancel('SIGINT')
    const error = await failureOf(client.request('POST', '/w', { body: {} }))
    expect(error).toBeInstanceOf(CancelledError)
    expect(error).toMatchObject({ path: '/w', inFlight: false })
  })

  test('asked while a write is in flight: the error says it was sent (the service may have applied it)', async () => {
    const cancellation = new Cancellation()
    // A dispatcher whose request is cut the moment it is sent.
    const cutting = {
      request: async () => {
        cancellation.abortInFlight('SIGTERM')
        throw new Error('The operation was aborted')
      }
    } as unknown as Dispatcher
    const client = new ServiceClient({
      baseUrl: API,
      token: 't',
      apiVersion: '2026-03-10',
      maxRetries: 3,
      userAgent: 'test',
      dispatcher: cutting,
      clock: new FakeClock(),
      random: () => 0,
      log: new MemoryLog(),
      cancellation
    })
    const error = await failureOf(client.request('POST', '/w', { body: {} }))
    expect(error).toBeInstanceOf(CancelledError)
    expect(error).toMatchObject({ method: 'POST', path: '/w', inFlight: true })
    expect(error?.message).toContain('the service may or may not have applied it')
  })

  test('asked during a retry wait: the error names the request that waited, not sent again', async () => {
    const { agent, client } = cancellable(c => c.cancel('SIGTERM'))
    agent.get(API).intercept({ path: '/r', method: 'GET' }).reply(502, '')
    const error = await failureOf(client.request('GET', '/r'))
    expect(error).toBeInstanceOf(CancelledError)
    expect(error).toMatchObject({ method: 'GET', path: '/r', inFlight: false })
  })
})
