// Over 300 lines: the single-artifact job's records, storage and answers against one emulator.
import {
  DIGEST,
  smallestWriteGap,
  TOKEN,
  withEmulator,
  writesOf
} from '../../__fixtures__/emulator.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import type { Emulator } from '../../emulator/index.js'
import { parseInputs, type RawInputs } from '../../src/step/parse-inputs.js'
import { failureReport, toOutputs } from '../../src/step/report.js'
import { run, USER_AGENT } from '../../src/step/run.js'

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator()
})
afterAll(async () => emulator.close())
beforeEach(() => emulator.reset())

const release = (over: RawInputs = {}): RawInputs => ({
  token: TOKEN,
  'api-url': emulator.url,
  repository: 'acme/web',
  digest: DIGEST,
  name: 'ghcr.io/acme/web',
  version: '1.4.2',
  environment: 'production',
  'physical-environment': 'eu-west-1',
  cluster: 'prod-eu-1',
  tags: 'team=web',
  'runtime-risks': 'internet-exposed',
  'registry-url': 'https://ghcr.io',
  'artifact-url': 'https://ghcr.io/acme/web',
  'registry-repository': 'acme/web',
  ...over
})
// Backoff waits are real in these tests: pin the jitter to its low end to keep them short.
const fast = { random: () => 0, log: new MemoryLog() }

test('records a storage record, then a deployment record, with the exact wire contract', async () => {
  const result = await run(parseInputs(release(), {}), fast)

  expect(result.failures).toEqual([])
  const writes = writesOf(emulator.requests)
  expect(writes.map(w => `${w.method} ${w.path}`)).toEqual([
    'POST /orgs/acme/artifacts/metadata/storage-record',
    'POST /orgs/acme/artifacts/metadata/deployment-record'
  ])
  for (const w of writes) {
    expect(w.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2026-03-10',
      'user-agent': USER_AGENT,
      'content-type': 'application/json; charset=utf-8'
    })
  }
  expect(USER_AGENT).toMatch(/^record-deployment\/\d+\.\d+\.\d+$/)
  expect(writes[0]?.body).toEqual({
    name: 'ghcr.io/acme/web',
    digest: DIGEST,
    version: '1.4.2',
    registry_url: 'https://ghcr.io',
    artifact_url: 'https://ghcr.io/acme/web',
    repository: 'acme/web',
    status: 'active',
    github_repository: 'web',
    return_records: true
  })
  expect(writes[1]?.body).toEqual({
    name: 'ghcr.io/acme/web',
    digest: DIGEST,
    version: '1.4.2',
    status: 'deployed',
    logical_environment: 'production',
    physical_environment: 'eu-west-1',
    cluster: 'prod-eu-1',
    deployment_name: 'web',
    tags: { team: 'web' },
    runtime_risks: ['internet-exposed'],
    github_repository: 'web',
    return_records: true
  })
  expect(smallestWriteGap(emulator.requests)).toBeGreaterThanOrEqual(1000)

  const outputs = toOutputs(result)
  const deployment = JSON.parse(outputs['deployment-records'] ?? '')
  expect(deployment).toHaveLength(1)
  expect(deployment[0]).toMatchObject({
    digest: DIGEST,
    logical_environment: 'production',
    cluster: 'prod-eu-1'
  })
  expect(outputs['deployment-record-ids']).toBe(String(deployment[0].id))
  const storage = JSON.parse(outputs['storage-records'] ?? '')
  expect(storage[0]).toMatchObject({
    digest: DIGEST,
    registry_url: 'https://ghcr.io',
    status: 'active'
  })
  expect(outputs['storage-record-ids']).toBe(String(storage[0].id))
})

test('storage-path and storage-status go into the storage write as given', async () => {
  // Found by breaking the code on purpose: dropping `path` or fixing `status` passed every test.
  const result = await run(
    parseInputs(
      release({
        environment: '',
        'physical-environment': '',
        cluster: '',
        tags: '',
        'runtime-risks': '',
        'storage-path': 'acme/web/1.4.2',
        'storage-status': 'eol'
      }),
      {}
    ),
    fast
  )
  expect(result.failures).toEqual([])
  expect(writesOf(emulator.requests).map(w => w.body)).toEqual([
    {
      name: 'ghcr.io/acme/web',
      digest: DIGEST,
      version: '1.4.2',
      registry_url: 'https://ghcr.io',
      artifact_url: 'https://ghcr.io/acme/web',
      repository: 'acme/web',
      path: 'acme/web/1.4.2',
      status: 'eol',
      github_repository: 'web',
      return_records: true
    }
  ])
  expect(emulator.state.storageRecords['acme']).toEqual([
    expect.objectContaining({ path: 'acme/web/1.4.2', status: 'eol' })
  ])
})

test('running the same deployment twice updates the one record (the upsert rule)', async () => {
  const first = await run(
    parseInputs(release({ 'registry-url': '', 'artifact-url': '', 'registry-repository': '' }), {}),
    fast
  )
  const second = await run(
    parseInputs(
      release({
        'registry-url': '',
        'artifact-url': '',
        'registry-repository': '',
        version: '1.4.3'
      }),
      {}
    ),
    fast
  )
  expect(second.deploymentRecords[0]?.id).toBe(first.deploymentRecords[0]?.id)
  expect(emulator.state.deploymentRecords['acme']).toHaveLength(1)
})

test('dry run reads, sends no write, and says create then update (a storage record is always created)', async () => {
  const dry = await run(parseInputs(release({ 'dry-run': 'true' }), {}), fast)
  expect(writesOf(emulator.requests)).toEqual([])
  expect(dry.failures).toEqual([])
  expect(dry.preview.map(p => `${p.method} ${p.path} ${p.effect}`)).toEqual([
    'POST /orgs/acme/artifacts/metadata/storage-record create',
    'POST /orgs/acme/artifacts/metadata/deployment-record create'
  ])
  expect(emulator.requests.every(r => r.method === 'GET')).toBe(true)

  await run(parseInputs(release(), {}), fast)
  const again = await run(parseInputs(release({ 'dry-run': 'true' }), {}), fast)
  // The service creates a storage record per write (no upsert rule); the deployment record is upserted.
  expect(again.preview.map(p => p.effect)).toEqual(['create', 'update'])
  expect(JSON.parse(toOutputs(again).planned ?? '')[1]).toMatchObject({
    method: 'POST',
    path: '/orgs/acme/artifacts/metadata/deployment-record',
    body: { deployment_name: 'web', logical_environment: 'production' }
  })
})

test('a transient failure of a write is retried, the record exists once and writes stay 1 s apart', async () => {
  emulator.addFault({
    method: 'POST',
    path: '/orgs/acme/artifacts/metadata/deployment-record',
    fault: { kind: 'status', status: 502 }
  })
  const result = await run(
    parseInputs(release({ 'registry-url': '', 'artifact-url': '', 'registry-repository': '' }), {}),
    fast
  )
  expect(result.failures).toEqual([])
  expect(writesOf(emulator.requests).map(w => w.status)).toEqual([502, 200])
  expect(smallestWriteGap(emulator.requests)).toBeGreaterThanOrEqual(1000)
  expect(emulator.state.deploymentRecords['acme']).toHaveLength(1)
})

test('a connection reset and a truncated body are retried', async () => {
  emulator.addFault({
    method: 'POST',
    path: '/orgs/acme/artifacts/metadata/storage-record',
    fault: { kind: 'reset' }
  })
  emulator.addFault({
    method: 'POST',
    path: '/orgs/acme/artifacts/metadata/storage-record',
    fault: { kind: 'truncate' }
  })
  const result = await run(
    parseInputs(
      release({
        environment: '',
        'physical-environment': '',
        cluster: '',
        tags: '',
        'runtime-risks': ''
      }),
      {}
    ),
    fast
  )
  expect(result.failures).toEqual([])
  expect(writesOf(emulator.requests)).toHaveLength(3)
  expect(result.storageRecords).toHaveLength(1)
})

test('an answer that never comes is cut by the request timeout and retried', async () => {
  emulator.addFault({
    method: 'POST',
    path: '/orgs/acme/artifacts/metadata/storage-record',
    fault: { kind: 'hang' }
  })
  const result = await run(
    parseInputs(
      release({
        environment: '',
        'physical-environment': '',
        cluster: '',
        tags: '',
        'runtime-risks': ''
      }),
      {}
    ),
    {
      ...fast,
      requestTimeoutMs: 300
    }
  )
  expect(result.failures).toEqual([])
  expect(result.storageRecords).toHaveLength(1)
})

test('a missing permission fails with the permission named; the other record is still tried', async () => {
  emulator.addFault({
    method: 'POST',
    path: '/orgs/acme/artifacts/metadata/storage-record',
    fault: {
      kind: 'status',
      status: 403,
      headers: { 'x-accepted-github-permissions': 'artifact_metadata=write' },
      body: { message: 'Resource not accessible by integration' }
    }
  })
  const result = await run(parseInputs(release(), {}), fast)
  expect(writesOf(emulator.requests).map(w => w.status)).toEqual([403, 200])
  expect(result.failures).toHaveLength(1)
  expect(result.failures[0]?.message).toMatch(/artifact-metadata: write/)
  expect(result.deploymentRecords).toHaveLength(1)
  const report = failureReport(result)
  expect(report).toMatch(/Failed: storage record/)
  expect(report).toMatch(/Done: deployment record web/)
  expect(toOutputs(result)['deployment-record-ids']).toBe(String(result.deploymentRecords[0]?.id))
})

test('an unknown organization is a 404 that explains the organization-only rule', async () => {
  const result = await run(parseInputs(release({ org: 'nobody' }), {}), fast)
  expect(result.failures).toHaveLength(2)
  expect(result.failures[0]?.message).toMatch(/404/)
  expect(result.failures[0]?.message).toMatch(/owned by an organization/)
})

test('bad credentials stop the run after the first call', async () => {
  const result = await run(parseInputs(release({ token: 'wrong' }), {}), fast)
  expect(emulator.requests).toHaveLength(1)
  expect(result.failures[0]?.message).toMatch(/401/)
  expect(result.notAttempted).toEqual([expect.stringMatching(/^deployment record web/)])
})

test('an unsupported API version is named', async () => {
  const result = await run(parseInputs(release({ 'api-version': '2099-01-01' }), {}), fast)
  expect(result.failures[0]?.message).toMatch(/400/)
  expect(result.failures[0]?.message).toMatch(/api-version/)
})

test('a 422 from the service lists its validation errors', async () => {
  emulator.addFault({
    method: 'POST',
    path: '/orgs/acme/artifacts/metadata/deployment-record',
    fault: {
      kind: 'status',
      status: 422,
      body: {
        message: 'Validation Failed',
        errors: [{ resource: 'DeploymentRecord', field: 'tags', code: 'invalid' }]
      }
    }
  })
  const result = await run(
    parseInputs(release({ 'registry-url': '', 'artifact-url': '', 'registry-repository': '' }), {}),
    fast
  )
  expect(result.failures[0]?.message).toMatch(/DeploymentRecord\.tags: invalid/)
  expect(writesOf(emulator.requests)).toHaveLength(1)
})

test('a temporary redirect is followed with method and body; the record is written once', async () => {
  emulator.addFault({
    method: 'POST',
    path: '/orgs/acme/artifacts/metadata/deployment-record',
    fault: {
      kind: 'redirect',
      status: 307,
      location: `${emulator.url}/api/v3/orgs/acme/artifacts/metadata/deployment-record`
    }
  })
  const result = await run(
    parseInputs(release({ 'registry-url': '', 'artifact-url': '', 'registry-repository': '' }), {}),
    fast
  )
  expect(result.failures).toEqual([])
  const writes = writesOf(emulator.requests)
  expect(writes.map(w => `${w.status} ${w.path}`)).toEqual([
    '307 /orgs/acme/artifacts/metadata/deployment-record',
    '200 /api/v3/orgs/acme/artifacts/metadata/deployment-record'
  ])
  expect(writes[1]?.body).toEqual(writes[0]?.body)
  expect(smallestWriteGap(emulator.requests)).toBeGreaterThanOrEqual(1000)
})

test('Authorization does not follow a redirect to another origin', async () => {
  const other = await withEmulator()
  try {
    emulator.addFault({
      method: 'POST',
      path: '/orgs/acme/artifacts/metadata/deployment-record',
      fault: {
        kind: 'redirect',
        status: 308,
        location: `${other.url}/orgs/acme/artifacts/metadata/deployment-record`
      }
    })
    const result = await run(
      parseInputs(
        release({ 'registry-url': '', 'artifact-url': '', 'registry-repository': '' }),
        {}
      ),
      fast
    )
    expect(other.requests).toHaveLength(1)
    expect(other.requests[0]?.headers['authorization']).toBeUndefined()
    expect(result.failures[0]?.message).toMatch(/401/)
  } finally {
    await other.close()
  }
})
