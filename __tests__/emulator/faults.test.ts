import { startEmulator, type Emulator } from '../../emulator/index.js'
import { call, sleep } from './helpers.js'

const LABELS = '/repos/acme/web/labels'

describe('faults', () => {
  let emulator: Emulator

  beforeEach(async () => {
    emulator = await startEmulator()
  })
  afterEach(() => emulator.close())

  test('status faults answer before any check, with their headers and body', async () => {
    emulator.addFault({
      method: 'get',
      path: LABELS,
      times: 2,
      fault: {
        kind: 'status',
        status: 403,
        headers: { 'x-ratelimit-remaining': '0' },
        body: { message: 'API rate limit exceeded' }
      }
    })
    const first = await call(emulator, 'GET', LABELS, undefined, { headers: { authorization: '' } })
    expect(first.status).toBe(403)
    expect(first.json).toEqual({ message: 'API rate limit exceeded' })
    expect(first.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(first.headers.get('x-github-request-id')).toMatch(/^EMU:/)
    expect((await call(emulator, 'GET', LABELS)).status).toBe(403)
    expect((await call(emulator, 'GET', LABELS)).status).toBe(200)
    expect(emulator.requests.map(r => [r.status, r.fault])).toEqual([
      [403, 'status'],
      [403, 'status'],
      [200, undefined]
    ])
  })

  test('rules match by method, exact or decoded path, or RegExp, in the order added', async () => {
    emulator.addFault({ method: 'POST', path: LABELS, fault: { kind: 'status', status: 500 } })
    emulator.addFault({ path: /\/labels\/a%2Fb$/, fault: { kind: 'status', status: 502 } })
    emulator.addFault({
      path: '/repos/acme/web/labels/c/d',
      fault: { kind: 'status', status: 503 }
    })
    emulator.addFault({ fault: { kind: 'status', status: 504 } })
    expect((await call(emulator, 'GET', `${LABELS}/a%2Fb`)).status).toBe(502)
    expect((await call(emulator, 'GET', `${LABELS}/c%2Fd`)).status).toBe(503)
    expect((await call(emulator, 'POST', LABELS, { name: 'x' })).status).toBe(500)
    expect((await call(emulator, 'GET', '/anything')).status).toBe(504)
    expect((await call(emulator, 'GET', LABELS)).status).toBe(200)
  })

  test('clearFaults drops every rule', async () => {
    emulator.addFault({ times: 5, fault: { kind: 'status', status: 500 } })
    emulator.clearFaults()
    expect((await call(emulator, 'GET', LABELS)).status).toBe(200)
  })

  test('reset destroys the socket without a response', async () => {
    emulator.addFault({ path: LABELS, fault: { kind: 'reset' } })
    await expect(call(emulator, 'GET', LABELS)).rejects.toThrow()
    await sleep(5)
    expect(emulator.requests[0]).toMatchObject({ status: 0, fault: 'reset' })
    expect(emulator.requests[0]?.finishedAt).toBeGreaterThan(0)
    expect((await call(emulator, 'GET', LABELS)).status).toBe(200)
  })

  test('hang never answers until the client gives up', async () => {
    emulator.addFault({ path: LABELS, fault: { kind: 'hang' } })
    const giveUp = new AbortController()
    let settled = false
    const pending = call(emulator, 'GET', LABELS, undefined, { signal: giveUp.signal })
      .catch((e: unknown) => e)
      .finally(() => (settled = true))
    // Waits for the request to arrive (polled, not timed), then a while more: still no answer.
    for (let i = 0; i < 500 && emulator.requests.length === 0; i++) await sleep(10)
    await sleep(50)
    expect({ arrived: emulator.requests.length, settled }).toEqual({ arrived: 1, settled: false })
    giveUp.abort()
    expect(((await pending) as Error).name).toBe('AbortError')
    // The emulator notes the request as unanswered once the client's socket is gone.
    for (let i = 0; i < 500 && !emulator.requests[0]?.finishedAt; i++) await sleep(10)
    const hung = emulator.requests[0]
    expect(hung).toMatchObject({ status: 0, fault: 'hang' })
    expect(hung?.finishedAt).toBeGreaterThanOrEqual(hung?.arrivedAt ?? Infinity)
  })

  test('close() ends hung requests too', async () => {
    emulator.addFault({ fault: { kind: 'hang' } })
    const pending = call(emulator, 'GET', LABELS)
    await sleep(20)
    await emulator.close()
    await expect(pending).rejects.toThrow()
  })

  test('truncate sends a partial body and then breaks the connection', async () => {
    emulator.addFault({ path: LABELS, fault: { kind: 'truncate' } })
    const response = await fetch(emulator.url + LABELS, {
      headers: { authorization: 'Bearer test-token', 'user-agent': 'tests' }
    }).catch((error: unknown) => error)
    if (response instanceof Response) {
      expect(response.status).toBe(200)
      await expect(response.text()).rejects.toThrow()
    } else expect(response).toBeInstanceOf(Error)
    await sleep(5)
    expect(emulator.requests[0]).toMatchObject({ status: 0, fault: 'truncate' })
  })

  test('redirects point anywhere, for example the same server under /api/v3', async () => {
    emulator.addFault({
      method: 'POST',
      path: LABELS,
      fault: { kind: 'redirect', status: 307, location: `${emulator.url}/api/v3${LABELS}` }
    })
    const manual = await call(emulator, 'POST', LABELS, { name: 'first' }, { redirect: 'manual' })
    expect(manual.status).toBe(307)
    expect(manual.headers.get('location')).toBe(`${emulator.url}/api/v3${LABELS}`)

    emulator.addFault({
      method: 'POST',
      path: LABELS,
      fault: { kind: 'redirect', status: 308, location: `${emulator.url}/api/v3${LABELS}` }
    })
    const followed = await call(emulator, 'POST', LABELS, { name: 'moved' })
    expect(followed.status).toBe(201)
    expect(emulator.requests.map(r => [r.method, r.path, r.status])).toEqual([
      ['POST', LABELS, 307],
      ['POST', LABELS, 308],
      ['POST', `/api/v3${LABELS}`, 201]
    ])
    expect(emulator.requests[2]?.body).toEqual({ name: 'moved' })
  })

  test('303 and a redirect without location', async () => {
    emulator.addFault({
      method: 'POST',
      path: LABELS,
      fault: { kind: 'redirect', status: 303, location: `${emulator.url}${LABELS}/x` }
    })
    emulator.addFault({ method: 'POST', path: LABELS, fault: { kind: 'redirect', status: 302 } })
    const seeOther = await call(emulator, 'POST', LABELS, { name: 'a' }, { redirect: 'manual' })
    expect(seeOther.status).toBe(303)
    expect(seeOther.headers.get('location')).toBe(`${emulator.url}${LABELS}/x`)
    const nowhere = await call(emulator, 'POST', LABELS, { name: 'a' }, { redirect: 'manual' })
    expect(nowhere.status).toBe(302)
    expect(nowhere.headers.get('location')).toBeNull()
  })

  test('html answers a whole 200 page that is not JSON', async () => {
    emulator.addFault({ path: LABELS, fault: { kind: 'html' } })
    const response = await fetch(emulator.url + LABELS)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await response.text()).toMatch(/^<!DOCTYPE html>/)
    expect(emulator.requests[0]).toMatchObject({ status: 200, fault: 'html' })
  })

  test('lose-answer commits the request, then breaks the connection before the answer', async () => {
    emulator.addFault({ method: 'POST', path: LABELS, fault: { kind: 'lose-answer' } })
    await expect(call(emulator, 'POST', LABELS, { name: 'committed' })).rejects.toThrow()
    await sleep(5)
    expect(emulator.requests[0]).toMatchObject({ status: 201, fault: 'lose-answer' })
    // The label exists: a retry finds it.
    const again = await call(emulator, 'POST', LABELS, { name: 'committed' })
    expect(again.status).toBe(422)
  })
})
