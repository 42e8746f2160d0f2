import { startEmulator, type Emulator } from '../../emulator/index.js'
import { call, DIGEST, rawRequest, sleep, TOKEN } from './helpers.js'

const RECORD = {
  name: 'web',
  digest: DIGEST,
  status: 'deployed',
  logical_environment: 'production',
  deployment_name: 'web'
}

describe('emulator cross-cutting behaviour', () => {
  let emulator: Emulator

  beforeAll(async () => {
    emulator = await startEmulator({
      tokens: {
        [TOKEN]: { permissions: 'all' },
        reader: { permissions: ['artifact-metadata:read', 'issues:read'] },
        labeler: { permissions: ['pull-requests:write'] },
        'one-repo': { permissions: 'all', repositories: ['acme/web'] }
      },
      repos: ['acme/web', 'acme/api']
    })
  })
  afterAll(() => emulator.close())
  beforeEach(() => emulator.reset())

  test('every response carries request id and rate-limit headers', async () => {
    const first = await call(emulator, 'GET', '/repos/acme/web/labels')
    const second = await call(emulator, 'GET', '/nowhere')
    expect(first.status).toBe(200)
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(first.headers.get('x-github-request-id')).toMatch(/^EMU:/)
    expect(second.headers.get('x-github-request-id')).not.toBe(
      first.headers.get('x-github-request-id')
    )
    expect(first.headers.get('x-ratelimit-limit')).toBe('5000')
    expect(first.headers.get('x-ratelimit-resource')).toBe('core')
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000)
    const remaining = Number(first.headers.get('x-ratelimit-remaining'))
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1)
    expect(Number(second.headers.get('x-ratelimit-used'))).toBe(5000 - remaining + 1)
    expect(second.json.documentation_url).toMatch(/^https:\/\/docs\.github\.com/)
  })

  test('a request without user-agent is forbidden', async () => {
    const answer = await rawRequest(emulator, 'GET', '/repos/acme/web/labels', {
      authorization: `Bearer ${TOKEN}`
    })
    expect(answer.status).toBe(403)
    expect(JSON.parse(answer.body).message).toContain('User-Agent')
  })

  test('missing or unknown tokens get 401; the token scheme works too', async () => {
    const none = await call(emulator, 'GET', '/repos/acme/web/labels', undefined, {
      headers: { authorization: '' }
    })
    expect(none.status).toBe(401)
    expect(none.json.message).toBe('Bad credentials')
    const unknown = await call(emulator, 'GET', '/repos/acme/web/labels', undefined, {
      headers: { authorization: 'Bearer nope' }
    })
    expect(unknown.status).toBe(401)
    const scheme = await call(emulator, 'GET', '/repos/acme/web/labels', undefined, {
      headers: { authorization: `token ${TOKEN}` }
    })
    expect(scheme.status).toBe(200)
  })

  test('an unsupported API version gets 400; no header means 2022-11-28', async () => {
    const bad = await call(emulator, 'GET', '/repos/acme/web/labels', undefined, {
      headers: { 'x-github-api-version': '2020-01-01' }
    })
    expect(bad.status).toBe(400)
    expect(bad.json.message).toBe("API version '2020-01-01' is not supported.")
    const absent = await rawRequest(emulator, 'GET', '/repos/acme/web/labels', {
      authorization: `Bearer ${TOKEN}`,
      'user-agent': 'raw'
    })
    expect(absent.status).toBe(200)
  })

  test.each([
    ['GET', '/repos/acme/web/labels/'],
    ['GET', '/repos/acme/web/nothing'],
    ['PUT', '/repos/acme/web/labels'],
    ['GET', '/orgs/acme/artifacts/metadata/deployment-record'],
    ['GET', '/repos/acme/missing/labels'],
    ['POST', '/orgs/nobody/artifacts/metadata/deployment-record'],
    ['GET', '/repos/acme/web/labels/a/b']
  ])('%s %s is 404', async (method, path) => {
    const answer = await call(emulator, method, path, method === 'GET' ? undefined : {})
    expect(answer.status).toBe(404)
    expect(answer.json.message).toBe('Not Found')
  })

  test('org and repository names are case-insensitive', async () => {
    expect((await call(emulator, 'GET', '/repos/ACME/Web/labels')).status).toBe(200)
    const created = await call(
      emulator,
      'POST',
      '/orgs/Acme/artifacts/metadata/deployment-record',
      RECORD
    )
    expect(created.status).toBe(200)
    expect(emulator.state.deploymentRecords.acme).toHaveLength(1)
  })

  test('a token without the permission gets 403 naming what is accepted', async () => {
    const write = await call(
      emulator,
      'POST',
      '/orgs/acme/artifacts/metadata/deployment-record',
      RECORD,
      {
        headers: { authorization: 'Bearer reader' }
      }
    )
    expect(write.status).toBe(403)
    expect(write.json.message).toBe('Resource not accessible by integration')
    expect(write.headers.get('x-accepted-github-permissions')).toBe('artifact_metadata=write')

    const labels = await call(
      emulator,
      'POST',
      '/repos/acme/web/labels',
      { name: 'x' },
      {
        headers: { authorization: 'Bearer reader' }
      }
    )
    expect(labels.status).toBe(403)
    expect(labels.headers.get('x-accepted-github-permissions')).toBe(
      'issues=write; pull_requests=write'
    )
    // write implies read, and either label permission will do
    const read = await call(emulator, 'GET', '/repos/acme/web/labels', undefined, {
      headers: { authorization: 'Bearer labeler' }
    })
    expect(read.status).toBe(200)
  })

  test('a token limited to some repositories sees 404 for the others', async () => {
    const other = await call(emulator, 'GET', '/repos/acme/api/labels', undefined, {
      headers: { authorization: 'Bearer one-repo' }
    })
    expect(other.status).toBe(404)
  })

  test('bodies that are not JSON objects get 400', async () => {
    const path = '/orgs/acme/artifacts/metadata/deployment-record'
    const broken = await call(emulator, 'POST', path, '{"name":')
    expect(broken.status).toBe(400)
    expect(broken.json.message).toBe('Problems parsing JSON')
    const array = await call(emulator, 'POST', path, [RECORD])
    expect(array.status).toBe(400)
    expect(array.json.message).toBe('Body should be a JSON object')
  })

  test('the /api/v3 prefix serves the same API and keeps the prefix in links', async () => {
    emulator.seed({ labels: { 'acme/web': [{ name: 'one' }, { name: 'two' }] } })
    const answer = await call(emulator, 'GET', '/api/v3/repos/acme/web/labels?per_page=1')
    expect(answer.status).toBe(200)
    expect(answer.json).toHaveLength(1)
    expect(answer.headers.get('link')).toContain(`<${emulator.url}/api/v3/repos/acme/web/labels?`)
    expect(answer.json[0].url).toBe(`${emulator.url}/api/v3/repos/acme/web/labels/one`)
  })

  test('requests are recorded with raw target, headers, parsed body and timings', async () => {
    const before = performance.timeOrigin + performance.now()
    await call(emulator, 'POST', '/orgs/acme/artifacts/metadata/deployment-record?x=1', RECORD)
    await call(emulator, 'POST', '/repos/acme/web/labels', 'not json')
    const [first, second] = emulator.requests
    expect(first).toMatchObject({
      seq: 1,
      method: 'POST',
      url: '/orgs/acme/artifacts/metadata/deployment-record?x=1',
      path: '/orgs/acme/artifacts/metadata/deployment-record',
      body: RECORD,
      status: 200
    })
    expect(first?.headers['x-github-api-version']).toBe('2026-03-10')
    expect(first?.arrivedAt).toBeGreaterThanOrEqual(before)
    expect(first?.finishedAt).toBeGreaterThanOrEqual(first?.arrivedAt ?? Infinity)
    expect(second?.arrivedAt).toBeGreaterThanOrEqual(first?.finishedAt ?? Infinity)
    expect(second).toMatchObject({ seq: 2, body: 'not json', status: 400 })
  })

  test('reset clears requests, faults and data', async () => {
    await call(emulator, 'POST', '/repos/acme/web/labels', { name: 'gone' })
    emulator.addFault({ fault: { kind: 'status', status: 500 } })
    emulator.reset()
    expect(emulator.requests).toHaveLength(0)
    expect(emulator.state.labels['acme/web']).toEqual([])
    expect((await call(emulator, 'GET', '/repos/acme/web/labels')).status).toBe(200)
  })

  test('control endpoints need no token and are not recorded', async () => {
    await call(emulator, 'GET', '/repos/acme/web/labels')
    const listed = await fetch(`${emulator.url}/_emulator/requests`).then(r => r.json())
    expect(listed).toHaveLength(1)
    const added = await fetch(`${emulator.url}/_emulator/faults`, {
      method: 'POST',
      body: JSON.stringify({
        path: '/repos/acme/web/labels',
        fault: { kind: 'status', status: 502 }
      })
    })
    expect(added.status).toBe(201)
    expect((await call(emulator, 'GET', '/repos/acme/web/labels')).status).toBe(502)
    await fetch(`${emulator.url}/_emulator/reset`, { method: 'POST' })
    expect(emulator.requests).toHaveLength(0)
  })
})

describe('secondary rate limit', () => {
  const path = '/repos/acme/web/labels'

  // Each half is safe from the machine's load: a gap far longer than any delay for the refusal,
  // a wait far longer than the gap for the write that follows.
  test('a write sooner than minWriteGapMs after the previous write gets 403 with retry-after', async () => {
    const emulator = await startEmulator({ minWriteGapMs: 600_000 })
    try {
      expect((await call(emulator, 'POST', path, { name: 'a' })).status).toBe(201)
      // reads are never limited
      expect((await call(emulator, 'GET', path)).status).toBe(200)
      const tooSoon = await call(emulator, 'POST', path, { name: 'b' })
      expect(tooSoon.status).toBe(403)
      expect(tooSoon.json.message).toContain('secondary rate limit')
      expect(tooSoon.headers.get('retry-after')).toBe('60')
    } finally {
      await emulator.close()
    }
  })

  test('a write once minWriteGapMs has passed is accepted', async () => {
    const emulator = await startEmulator({ minWriteGapMs: 30 })
    try {
      expect((await call(emulator, 'POST', path, { name: 'a' })).status).toBe(201)
      await sleep(200)
      expect((await call(emulator, 'POST', path, { name: 'b' })).status).toBe(201)
    } finally {
      await emulator.close()
    }
  })
})
