/**
 * A storage-record write has no upsert rule (the published description says the endpoint creates
 * a record), so a write sent twice is two records. When the answer to one is lost after it was
 * sent, the bundled action reads the digest's storage records before sending it again, and does
 * not send it again when an equal record is there. Requests are counted from the emulator's log.
 */
import { DIGEST, TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import type { Emulator, Fault } from '../../emulator/index.js'
import { createStorage } from '../../emulator/state.js'
import { runAction } from '../../scripts/run-action.js'

const STORAGE = '/orgs/acme/artifacts/metadata/storage-record'
const LIST = `/orgs/acme/artifacts/${DIGEST}/metadata/storage-records`

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator()
})
afterAll(async () => emulator.close())
beforeEach(() => emulator.reset())

const release = {
  token: TOKEN,
  repository: 'acme/web',
  digest: DIGEST,
  name: 'ghcr.io/acme/web',
  version: '1.4.2',
  'registry-url': 'https://ghcr.io',
  'registry-repository': 'acme/web'
}

async function releaseWith(fault: Fault) {
  emulator.addFault({ method: 'POST', path: STORAGE, fault })
  const step = await runAction({ ...release, 'api-url': emulator.url }, {})
  const requests = emulator.requests
  return {
    step,
    posts: requests.filter(r => r.method === 'POST' && r.path === STORAGE),
    lookups: requests.filter(r => r.method === 'GET' && decodeURIComponent(r.path) === LIST),
    stored: emulator.state.storageRecords['acme'] ?? []
  }
}

test('the service saved it, the answer was lost: one POST, one lookup, one record, its id in the outputs', async () => {
  const { step, posts, lookups, stored } = await releaseWith({ kind: 'lose-answer' })
  expect(step.code).toBe(0)
  expect(posts.map(p => p.fault ?? p.status)).toEqual(['lose-answer'])
  expect(lookups).toHaveLength(1)
  expect(stored).toHaveLength(1)
  expect(stored[0]).toMatchObject({
    digest: DIGEST,
    name: 'ghcr.io/acme/web',
    registry_url: 'https://ghcr.io',
    repository: 'acme/web',
    version: '1.4.2'
  })
  expect(step.outputs['storage-record-ids']).toBe(String(stored[0]?.id))
  expect(step.stdout).toMatch(
    /the service holds it already, so the write took effect; not sent again/
  )
})

test('the connection broke before the service saved it: the lookup finds nothing and the write goes again, once', async () => {
  const { step, posts, lookups, stored } = await releaseWith({ kind: 'reset' })
  expect(step.code).toBe(0)
  expect(posts.map(p => p.fault ?? p.status)).toEqual(['reset', 200])
  expect(lookups).toHaveLength(1)
  // The lookup came between the two writes.
  expect(lookups[0]?.seq).toBeGreaterThan(posts[0]?.seq ?? Infinity)
  expect(lookups[0]?.seq).toBeLessThan(posts[1]?.seq ?? -Infinity)
  expect(stored).toHaveLength(1)
  expect(step.outputs['storage-record-ids']).toBe(String(stored[0]?.id))
})

test.each([
  ['another registry repository', { repository: 'acme/web-mirror' }],
  ['another status', { status: 'eol' }],
  ['another name', { name: 'ghcr.io/acme/web-debug' }]
])('a record of the digest with %s is not taken for the lost write', async (_what, differs) => {
  const other = createStorage(emulator.state, 'acme', {
    name: 'ghcr.io/acme/web',
    version: null,
    digest: DIGEST,
    artifact_url: null,
    registry_url: 'https://ghcr.io',
    repository: 'acme/web',
    path: null,
    status: 'active',
    github_repository: 'web',
    ...differs
  })
  const { step, posts, lookups, stored } = await releaseWith({ kind: 'reset' })
  expect(step.code).toBe(0)
  expect(posts).toHaveLength(2)
  expect(lookups).toHaveLength(1)
  expect(stored).toHaveLength(2)
  expect(stored[1]).toMatchObject({
    name: 'ghcr.io/acme/web',
    repository: 'acme/web',
    status: 'active'
  })
  expect(step.outputs['storage-record-ids']).toBe(String(stored[1]?.id))
  expect(step.outputs['storage-record-ids']).not.toBe(String(other.id))
})

test('a deployment record write whose answer was lost is sent again without a lookup (it is upserted by its key)', async () => {
  emulator.addFault({
    method: 'POST',
    path: '/orgs/acme/artifacts/metadata/deployment-record',
    fault: { kind: 'lose-answer' }
  })
  const step = await runAction(
    {
      token: TOKEN,
      'api-url': emulator.url,
      repository: 'acme/web',
      digest: DIGEST,
      name: 'ghcr.io/acme/web',
      environment: 'production'
    },
    {}
  )
  expect(step.code).toBe(0)
  expect(emulator.requests.filter(r => r.method === 'GET')).toEqual([])
  expect(emulator.requests.filter(r => r.method === 'POST')).toHaveLength(2)
  expect(emulator.state.deploymentRecords['acme']).toHaveLength(1)
})

test('the lookup after a lost answer fails: not sent again blind, the step fails and says it may have been recorded', async () => {
  emulator.addFault({
    method: 'GET',
    path: new RegExp('/metadata/storage-records$'),
    times: 10,
    fault: {
      kind: 'status',
      status: 403,
      body: { message: 'Resource not accessible by integration' }
    }
  })
  const { step, posts, stored } = await releaseWith({ kind: 'lose-answer' })
  expect(step.code).toBe(1)
  // Sent once: a second write might have been a second record.
  expect(posts).toHaveLength(1)
  expect(stored).toHaveLength(1)
  expect(step.stdout).toMatch(
    /the answer was lost after the write was sent, and reading the storage records of sha256:[0-9a-f]{64} to see whether it took effect failed \(GET [^)]*failed with 403[^)]*\); it may have been recorded/
  )
})

test('the lookup after a lost answer is refused for the token (401): the run stops there, the deployment record is not attempted', async () => {
  emulator.addFault({
    method: 'GET',
    path: new RegExp('/metadata/storage-records$'),
    fault: { kind: 'status', status: 401, body: { message: 'Bad credentials' } }
  })
  emulator.addFault({ method: 'POST', path: STORAGE, fault: { kind: 'lose-answer' } })
  const step = await runAction(
    { ...release, environment: 'production', 'api-url': emulator.url },
    {}
  )
  expect(step.code).toBe(1)
  expect(emulator.requests.map(r => `${r.method} ${r.fault ?? r.status}`)).toEqual([
    'POST lose-answer',
    'GET status'
  ])
  expect(emulator.requests[1]?.status).toBe(401)
  expect(step.summary).toMatch(/not attempted/i)
  expect(step.summary).toMatch(/deployment record/)
})

test('a 303 to where the answer is, then that GET lost: the GET is asked again, the write is not sent again', async () => {
  // The 303 says the service took the write; what follows is a read, safe to repeat.
  emulator.addFault({
    method: 'POST',
    path: STORAGE,
    fault: { kind: 'redirect', status: 303, location: `${emulator.url}${LIST}` }
  })
  emulator.addFault({
    method: 'GET',
    path: new RegExp('/metadata/storage-records$'),
    fault: { kind: 'reset' }
  })
  await runAction({ ...release, 'api-url': emulator.url }, {})
  expect(emulator.requests.map(r => `${r.method} ${r.fault ?? r.status}`)).toEqual([
    'POST redirect',
    'GET reset',
    'GET 200'
  ])
})
