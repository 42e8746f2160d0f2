// ServiceClient: what every request carries, pacing, and which failures are retried (rate-limit
// waits are in client-rate-limits.test.ts, under the same 'retries' describe).
import { API, setup, TOKEN } from '../../__fixtures__/service-client.js'
import { ServiceError } from '../../src/client/errors.js'

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
