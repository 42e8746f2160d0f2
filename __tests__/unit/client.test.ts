import { MockAgent } from 'undici'
import { FakeClock } from '../../__fixtures__/fake-clock.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import { MAX_REDIRECTS, ServiceClient, STEP_DEADLINE_MS } from '../../src/client/client.js'
import { nextLink, splitUrl } from '../../src/client/wire.js'
import { NoLongerNeeded, ServiceError } from '../../src/client/errors.js'
import { MAX_RATE_LIMIT_WAITS } from '../../src/client/retry-policy.js'

const API = 'https://api.example.test'
const TOKEN = 'ghs_secret_token_value'
const JSON_HEADERS = { 'content-type': 'application/json' }

interface Seen {
  method: string
  path: string
  headers: Record<string, string>
  body?: string
  at: number
}

function setup(options: { maxRetries?: number; baseUrl?: string } = {}) {
  const agent = new MockAgent()
  agent.disableNetConnect()
  const clock = new FakeClock()
  const log = new MemoryLog()
  const seen: Seen[] = []
  const client = new ServiceClient({
    baseUrl: options.baseUrl ?? API,
    token: TOKEN,
    apiVersion: '2026-03-10',
    maxRetries: options.maxRetries ?? 3,
    userAgent: 'record-deployment/test',
    dispatcher: agent,
    clock,
    random: () => 0,
    log
  })
  /** Answers `path` once per reply given, in order, recording what arrived. */
  const on = (
    method: string,
    path: string,
    ...replies: Array<{ status: number; body?: unknown; headers?: Record<string, string> } | Error>
  ) => {
    const pool = agent.get(new URL(path, API).origin)
    const pathOnly = path.startsWith('http') ? new URL(path).pathname + new URL(path).search : path
    for (const reply of replies) {
      const interceptor = pool.intercept({ path: pathOnly, method })
      if (reply instanceof Error) {
        interceptor.replyWithError(reply)
        continue
      }
      interceptor.reply(opts => {
        seen.push({
          method: opts.method,
          path: opts.path,
          headers: { ...(opts.headers as Record<string, string>) },
          body: typeof opts.body === 'string' ? opts.body : undefined,
          at: clock.now()
        })
        return {
          statusCode: reply.status,
          data: reply.body === undefined ? '' : JSON.stringify(reply.body),
          responseOptions: { headers: { ...JSON_HEADERS, ...reply.headers } }
        }
      })
    }
  }
  return { agent, clock, log, seen, client, on }
}

test('every request carries the token, media type, API version and user agent', async () => {
  const { client, on, seen } = setup()
  on('GET', '/orgs/acme', { status: 200, body: { login: 'acme' } })
  const response = await client.request('GET', '/orgs/acme')
  expect(response.body).toEqual({ login: 'acme' })
  expect(seen[0]?.headers).toMatchObject({
    authorization: `Bearer ${TOKEN}`,
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2026-03-10',
    'user-agent': 'record-deployment/test'
  })
})

test('a JSON body is sent as JSON', async () => {
  const { client, on, seen } = setup()
  on('POST', '/x', { status: 201, body: {} })
  await client.request('POST', '/x', { body: { a: 1 } })
  expect(seen[0]?.body).toBe('{"a":1}')
  expect(seen[0]?.headers['content-type']).toMatch(/^application\/json/)
})

test('an Enterprise Server base path prefixes every request', async () => {
  const { client, on, seen } = setup({ baseUrl: `${API}/api/v3/` })
  on('GET', '/api/v3/repos/acme/web', { status: 200, body: {} })
  await client.request('GET', '/repos/acme/web')
  expect(seen).toHaveLength(1)
})

describe('pacing', () => {
  test('back-to-back writes are 1 s apart; reads are not delayed', async () => {
    const { client, on, clock } = setup()
    on('POST', '/w', { status: 200, body: {} }, { status: 200, body: {} })
    on('GET', '/r', { status: 200, body: {} }, { status: 200, body: {} })
    await client.request('POST', '/w')
    await client.request('GET', '/r')
    await client.request('GET', '/r')
    expect(clock.sleeps).toEqual([])
    await client.request('POST', '/w')
    expect(clock.sleeps).toEqual([1000])
  })

  test('a retried write is paced too: backoff and gap are not added up', async () => {
    const { client, on, clock, seen } = setup()
    on('POST', '/w', { status: 503 }, { status: 200, body: {} })
    await client.request('POST', '/w')
    // random() = 0 gives a 500 ms backoff; the pacer adds what is left of the 1 s gap.
    expect(clock.sleeps).toEqual([500, 500])
    expect((seen[1]?.at ?? 0) - (seen[0]?.at ?? 0)).toBe(1000)
  })

  test('concurrent calls are sent one at a time, in call order', async () => {
    const { client, on, seen } = setup()
    on('POST', '/a', { status: 200, body: {} })
    on('POST', '/b', { status: 200, body: {} })
    on('GET', '/c', { status: 200, body: {} })
    await Promise.all([
      client.request('POST', '/a'),
      client.request('POST', '/b'),
      client.request('GET', '/c')
    ])
    expect(seen.map(s => s.path)).toEqual(['/a', '/b', '/c'])
    expect((seen[1]?.at ?? 0) - (seen[0]?.at ?? 0)).toBe(1000)
  })
})

describe('retries', () => {
  test.each([500, 502, 503, 504])('%i is retried and then succeeds', async status => {
    const { client, on, seen } = setup()
    on('GET', '/r', { status }, { status }, { status: 200, body: { ok: true } })
    const response = await client.request('GET', '/r')
    expect(response.body).toEqual({ ok: true })
    expect(seen).toHaveLength(3)
  })

  test('a network error is retried', async () => {
    const { client, on } = setup()
    on('GET', '/r', new Error('ECONNRESET'), { status: 200, body: { ok: true } })
    await expect(client.request('GET', '/r')).resolves.toMatchObject({ status: 200 })
  })

  test('max-retries bounds the attempts, and the error says how many', async () => {
    const { client, on, seen } = setup({ maxRetries: 2 })
    on('GET', '/r', { status: 502 }, { status: 502 }, { status: 502 })
    const error = (await client.request('GET', '/r').catch(e => e)) as ServiceError
    expect(error).toBeInstanceOf(ServiceError)
    expect(seen).toHaveLength(3)
    expect(error.attempts).toBe(3)
    expect(error.message).toMatch(/gave up after 2 retries/)
  })

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

  test.each([400, 401, 404, 409, 410, 422])('%i is not retried', async status => {
    const { client, on, seen } = setup()
    on('POST', '/w', { status, body: { message: 'no' } })
    await expect(client.request('POST', '/w')).rejects.toBeInstanceOf(ServiceError)
    expect(seen).toHaveLength(1)
  })

  test('a 2xx whose whole body is not JSON is an unexpected response body, not retried', async () => {
    // A body cut short fails in undici (its length was promised) and is retried as a network
    // error; one that arrived whole and is not JSON came from something else than the API.
    const { client, agent, seen } = setup()
    agent
      .get(API)
      .intercept({ path: '/r' })
      .reply(() => {
        seen.push({ method: 'GET', path: '/r', headers: {}, at: 0 })
        return {
          statusCode: 200,
          data: '<!DOCTYPE html><html><body>Sign in to the network</body></html>',
          responseOptions: {
            headers: { 'content-type': 'text/html', 'x-github-request-id': 'R:1' }
          }
        }
      })
    const error = (await client.request('GET', '/r').catch(e => e)) as ServiceError
    expect(seen).toHaveLength(1)
    expect(error).toBeInstanceOf(ServiceError)
    expect(error.message).toMatch(/GET \/r failed with 200: unexpected response body \(text\/html/)
    expect(error.message).toContain('request id: R:1')
    expect(error.message).not.toMatch(/network error/)
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

  test('the cause of a network failure is named once, not twice', async () => {
    const { client, on } = setup({ maxRetries: 0 })
    const timeout = Object.assign(new Error('aborted'), { name: 'TimeoutError' })
    on('GET', '/r', timeout)
    const error = (await client.request('GET', '/r').catch(e => e)) as ServiceError
    expect(error.message.match(/no answer in \d+ ms/g)).toHaveLength(1)
    on('GET', '/s', new Error('socket hang up'))
    const other = (await client.request('GET', '/s').catch(e => e)) as ServiceError
    expect(other.message.match(/socket hang up/g)).toHaveLength(1)
  })
})

describe('an unreachable service', () => {
  const refused = () =>
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' })
  const unknownHost = () =>
    Object.assign(new Error('getaddrinfo ENOTFOUND api.example.test'), { code: 'ENOTFOUND' })
  const badCertificate = () =>
    Object.assign(new Error('certificate has expired'), { code: 'CERT_HAS_EXPIRED' })

  test.each([
    ['connection refused', refused, /connection refused \(ECONNREFUSED 127\.0\.0\.1:9\)/],
    ['no such host', unknownHost, /host name does not resolve \(ENOTFOUND api\.example\.test\)/],
    ['TLS refused', badCertificate, /TLS failed \(CERT_HAS_EXPIRED: certificate has expired\)/]
  ])('%s on every attempt is fatal and names the URL and the cause', async (_n, make, cause) => {
    const { client, on, seen } = setup({ maxRetries: 2 })
    on('POST', '/w', make(), make(), make())
    const error = (await client.request('POST', '/w', { body: {} }).catch(e => e)) as ServiceError
    expect(error.fatal).toBe(true)
    expect(error.attempts).toBe(3)
    expect(error.message).toContain(`the service at ${API} cannot be reached`)
    expect(error.message).toMatch(cause)
    expect(error.message).toMatch(/on all 3 attempts/)
    expect(seen).toHaveLength(0)
  })

  test('a service that answered once is not unreachable: the failure is not fatal', async () => {
    const { client, on } = setup({ maxRetries: 1 })
    on('GET', '/r', { status: 502 }, refused())
    const error = (await client.request('GET', '/r').catch(e => e)) as ServiceError
    expect(error.fatal).toBe(false)
  })
})

describe('errors', () => {
  test('a permission 403 names the permission from x-accepted-github-permissions', async () => {
    const { client, on } = setup()
    on('POST', '/orgs/acme/artifacts/metadata/deployment-record', {
      status: 403,
      body: { message: 'Resource not accessible by integration' },
      headers: {
        'x-accepted-github-permissions': 'artifact_metadata=write',
        'x-github-request-id': 'AB:12'
      }
    })
    const error = (await client
      .request('POST', '/orgs/acme/artifacts/metadata/deployment-record')
      .catch(e => e)) as ServiceError
    expect(error).toMatchObject({
      method: 'POST',
      path: '/orgs/acme/artifacts/metadata/deployment-record',
      status: 403,
      serviceMessage: 'Resource not accessible by integration',
      requestId: 'AB:12'
    })
    expect(error.message).toContain('artifact-metadata: write')
    expect(error.message).toContain('organization')
    expect(error.message).toContain('AB:12')
  })

  test('a 404 on an artifact endpoint without the header still names the permission', async () => {
    const { client, on } = setup()
    on('POST', '/orgs/acme/artifacts/metadata/storage-record', {
      status: 404,
      body: { message: 'Not Found' }
    })
    const error = (await client
      .request('POST', '/orgs/acme/artifacts/metadata/storage-record')
      .catch(e => e)) as ServiceError
    expect(error.hint).toMatch(/artifact-metadata: write/)
    expect(error.hint).toMatch(/owned by an organization/)
  })

  test('a 403 on a label endpoint names issues or pull-requests write', async () => {
    const { client, on } = setup()
    on('POST', '/repos/acme/web/issues/3/labels', {
      status: 403,
      body: { message: 'Resource not accessible by integration' }
    })
    const error = (await client
      .request('POST', '/repos/acme/web/issues/3/labels')
      .catch(e => e)) as ServiceError
    expect(error.hint).toMatch(/issues: write or pull-requests: write/)
    expect(error.hint).not.toMatch(/artifact/)
  })

  test('validation errors are listed', async () => {
    const { client, on } = setup()
    on('POST', '/w', {
      status: 422,
      body: {
        message: 'Validation Failed',
        errors: [
          {
            resource: 'DeploymentRecord',
            field: 'digest',
            code: 'invalid',
            message: 'must be sha256'
          }
        ]
      }
    })
    const error = (await client.request('POST', '/w').catch(e => e)) as ServiceError
    expect(error.validationErrors).toHaveLength(1)
    expect(error.message).toContain('DeploymentRecord.digest: invalid: must be sha256')
  })

  test('401 is fatal and says the token was refused', async () => {
    const { client, on } = setup()
    on('GET', '/r', { status: 401, body: { message: 'Bad credentials' } })
    const error = (await client.request('GET', '/r').catch(e => e)) as ServiceError
    expect(error.fatal).toBe(true)
    expect(error.hint).toMatch(/token was refused/)
  })

  test('an unsupported API version says which input to change', async () => {
    const { client, on } = setup()
    on('GET', '/r', {
      status: 400,
      body: { message: "API version '2099-01-01' is not supported." }
    })
    const error = (await client.request('GET', '/r').catch(e => e)) as ServiceError
    expect(error.hint).toMatch(/api-version/)
    expect(error.fatal).toBe(true)
  })

  test('the token appears in no error and no log line', async () => {
    const { client, on, log } = setup({ maxRetries: 1 })
    on('POST', '/w', { status: 503 }, { status: 401, body: { message: 'Bad credentials' } })
    const error = (await client.request('POST', '/w').catch(e => e)) as ServiceError
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain(TOKEN)
    expect(log.text()).not.toContain(TOKEN)
    expect(log.lines.some(l => l.level === 'debug')).toBe(true)
  })
})

describe('redirects', () => {
  test('307 is followed with method and body; not remembered', async () => {
    const { client, on, seen } = setup()
    on(
      'POST',
      '/old',
      { status: 307, headers: { location: '/new' } },
      { status: 307, headers: { location: '/new' } }
    )
    on('POST', '/new', { status: 200, body: { ok: 1 } }, { status: 200, body: { ok: 2 } })
    await client.request('POST', '/old', { body: { a: 1 } })
    await client.request('POST', '/old', { body: { a: 1 } })
    expect(seen.map(s => `${s.method} ${s.path} ${s.body}`)).toEqual([
      'POST /old {"a":1}',
      'POST /new {"a":1}',
      'POST /old {"a":1}',
      'POST /new {"a":1}'
    ])
  })

  test.each([301, 308])('%i is remembered for the rest of the run', async status => {
    const { client, on, seen } = setup()
    on('GET', '/old', { status, headers: { location: `${API}/new` } })
    on('GET', '/new', { status: 200, body: {} }, { status: 200, body: {} })
    await client.request('GET', '/old')
    await client.request('GET', '/old')
    expect(seen.map(s => s.path)).toEqual(['/old', '/new', '/new'])
  })

  test('Authorization is not sent to another origin', async () => {
    const { client, on, seen } = setup()
    on('POST', '/w', { status: 308, headers: { location: 'https://elsewhere.example.test/w' } })
    on('POST', 'https://elsewhere.example.test/w', { status: 200, body: {} })
    await client.request('POST', '/w', { body: {} })
    expect(seen[0]?.headers['authorization']).toBe(`Bearer ${TOKEN}`)
    expect(seen[1]?.headers['authorization']).toBeUndefined()
  })

  test('a 404 after a remembered redirect to another origin still names the redirect, and is fatal', async () => {
    const { client, on } = setup()
    const other = 'https://elsewhere.example.test'
    on('GET', '/r', { status: 301, headers: { location: `${other}/r` } })
    on(
      'GET',
      `${other}/r`,
      { status: 200, body: {} },
      { status: 404, body: { message: 'Not Found' } }
    )
    await client.request('GET', '/r')
    const error = (await client.request('GET', '/r').catch(e => e)) as ServiceError
    expect(error.fatal).toBe(true)
    expect(error.hint).toContain(`A redirect led to ${other}, another origin than \`api-url\``)
    expect(error.hint).not.toMatch(/needs the permission/)
  })

  test(`more than ${MAX_REDIRECTS} redirects is an error`, async () => {
    const { client, on } = setup()
    for (let i = 0; i <= MAX_REDIRECTS; i++)
      on('GET', `/r${i}`, { status: 302, headers: { location: `/r${i + 1}` } })
    await expect(client.request('GET', '/r0')).rejects.toThrow(/more than 5 redirects/)
  })

  test('303 is followed as a GET without the body', async () => {
    const { client, on, seen } = setup()
    on('POST', '/w', { status: 303, headers: { location: '/answer/1' } })
    on('GET', '/answer/1', { status: 200, body: { id: 1 } })
    const response = await client.request('POST', '/w', { body: { a: 1 } })
    expect(response.body).toEqual({ id: 1 })
    expect(seen.map(s => `${s.method} ${s.path} ${s.body ?? ''}`)).toEqual([
      'POST /w {"a":1}',
      'GET /answer/1 '
    ])
  })

  test.each([
    ['no location', {}, /redirect 302 without a location to follow/],
    ['an empty location', { location: ' ' }, /redirect 302 without a location to follow/],
    [
      'a location that is no http URL',
      { location: 'ftp://x/y' },
      /not an http\(s\) URL: "ftp:\/\/x\/y"/
    ]
  ])('a redirect with %s says so', async (_n, headers, expected) => {
    const { client, on, seen } = setup()
    on('POST', '/w', { status: 302, headers })
    const error = (await client.request('POST', '/w', { body: {} }).catch(e => e)) as ServiceError
    expect(error.message).toMatch(expected)
    expect(seen).toHaveLength(1)
  })
})

describe('pagination', () => {
  test('a page of 300k items does not overflow the stack', async () => {
    const { client, on } = setup()
    const page = Array.from({ length: 300_000 }, (_, i) => i)
    on('GET', '/big', { status: 200, body: page })
    const items = await client.paginate('/big', body => body as number[])
    expect(items).toHaveLength(300_000)
  })

  test('a next link pointing at itself or at a page read before ends the list', async () => {
    const { client, on, seen } = setup()
    on('GET', '/self', { status: 200, body: [1], headers: { link: `<${API}/self>; rel="next"` } })
    expect(await client.paginate('/self', body => body as number[])).toEqual([1])
    on('GET', '/a', { status: 200, body: [1], headers: { link: `<${API}/b>; rel="next"` } })
    on('GET', '/b', { status: 200, body: [2], headers: { link: `<${API}/a>; rel="next"` } })
    expect(await client.paginate('/a', body => body as number[])).toEqual([1, 2])
    expect(seen.map(s => s.path)).toEqual(['/self', '/a', '/b'])
  })

  test('a next link on another origin is read without the token', async () => {
    const { client, on, seen } = setup()
    on('GET', '/items', {
      status: 200,
      body: [1],
      headers: { link: '<https://elsewhere.example.test/items?page=2>; rel="next"' }
    })
    on('GET', 'https://elsewhere.example.test/items?page=2', { status: 200, body: [2] })
    expect(await client.paginate('/items', body => body as number[])).toEqual([1, 2])
    expect(seen[0]?.headers['authorization']).toBe(`Bearer ${TOKEN}`)
    expect(seen[1]?.headers['authorization']).toBeUndefined()
  })
})

test('pagination follows the link header', async () => {
  const { client, on } = setup()
  on('GET', '/items?per_page=2', {
    status: 200,
    body: [1, 2],
    headers: {
      link: `<${API}/items?per_page=2&page=2>; rel="next", <${API}/items?per_page=2&page=2>; rel="last"`
    }
  })
  on('GET', '/items?per_page=2&page=2', {
    status: 200,
    body: [3],
    headers: { link: `<${API}/items?per_page=2&page=1>; rel="prev"` }
  })
  const items = await client.paginate('/items?per_page=2', body => body as number[])
  expect(items).toEqual([1, 2, 3])
})

test('nextLink reads rel="next" only', () => {
  expect(nextLink('<https://a/x?page=2>; rel="next", <https://a/x?page=9>; rel="last"')).toBe(
    'https://a/x?page=2'
  )
  expect(nextLink('<https://a/x?page=1>; rel="prev"')).toBeUndefined()
  expect(nextLink(undefined)).toBeUndefined()
})

test('splitUrl keeps encoded dot segments as they are', () => {
  expect(splitUrl('https://API.example.test/repos/a/%2E%2E/labels')).toEqual({
    origin: 'https://api.example.test',
    path: '/repos/a/%2E%2E/labels'
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
