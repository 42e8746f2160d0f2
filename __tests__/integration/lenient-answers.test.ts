// Answers the service may give that the action used to refuse: each test here failed before
// the readers in src/service/ were made to read only what the action reports.
import { DIGEST, TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import { ScaledClock } from '../../__fixtures__/scaled-clock.js'
import type { Emulator } from '../../emulator/index.js'
import { ServiceClient } from '../../src/client/client.js'
import { parseInputs, type RawInputs } from '../../src/step/parse-inputs.js'
import { renderSummary, toOutputs } from '../../src/step/report.js'
import { run } from '../../src/step/run.js'
import { pullsForCommit } from '../../src/service/pulls.js'

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator({ jobStepMs: 20 })
})
afterAll(async () => emulator.close())
beforeEach(() => emulator.reset())

const STORAGE = '/orgs/acme/artifacts/metadata/storage-record'
const CLUSTER = '/orgs/acme/artifacts/metadata/deployment-record/cluster/prod-eu-1'

const storageOnly = (over: RawInputs = {}): RawInputs => ({
  token: TOKEN,
  'api-url': emulator.url,
  repository: 'acme/web',
  digest: DIGEST,
  name: 'ghcr.io/acme/web',
  'registry-url': 'https://ghcr.io',
  'registry-repository': 'acme/web',
  ...over
})
const cluster = (over: RawInputs = {}): RawInputs => ({
  token: TOKEN,
  'api-url': emulator.url,
  repository: 'acme/web',
  cluster: 'prod-eu-1',
  environment: 'production',
  deployments: JSON.stringify([
    { name: 'ghcr.io/acme/a', digest: DIGEST, deployment_name: 'prod-a' }
  ]),
  ...over
})
async function go(raw: RawInputs) {
  const log = new MemoryLog()
  const result = await run(parseInputs(raw, {}), {
    log,
    clock: new ScaledClock(100),
    random: () => 0
  })
  return { result, log, outputs: toOutputs(result) }
}

/** The description's own example of a created storage record: it has no `id`. */
const storageExample = {
  name: 'ghcr.io/acme/web',
  digest: DIGEST,
  artifact_url: null,
  registry_url: 'https://ghcr.io',
  repository: null,
  status: 'active',
  created_at: '2023-10-01T12:00:00Z',
  updated_at: '2023-10-01T12:00:00Z'
}

test('a storage record answered without id is recorded: no id in the ids output, the record in storage-records', async () => {
  emulator.addFault({
    method: 'POST',
    path: STORAGE,
    fault: {
      kind: 'status',
      status: 200,
      body: { total_count: 1, storage_records: [storageExample] }
    }
  })
  const { result, outputs, log } = await go(storageOnly())
  expect(result.failures).toEqual([])
  expect(result.done).toEqual(['storage record for ghcr.io/acme/web at https://ghcr.io'])
  expect(outputs['storage-record-ids']).toBe('')
  expect(JSON.parse(outputs['storage-records'] ?? '')).toEqual([storageExample])
  // Absent and null are what the description allows: nothing to warn about.
  expect(log.lines.filter(l => l.level === 'warning')).toEqual([])
  expect(renderSummary(result, 'acme')).toContain('| Storage record | `ghcr.io/acme/web` |')
})

test('a 2xx write with an odd body is reported as done, and the body becomes a warning', async () => {
  emulator.addFault({
    method: 'POST',
    path: STORAGE,
    fault: {
      kind: 'status',
      status: 200,
      body: {
        total_count: 'one',
        storage_records: [{ id: 'x7', name: 7, status: 'active' }, 'odd']
      }
    }
  })
  const { result, outputs, log } = await go(storageOnly())
  expect(result.failures).toEqual([])
  expect(result.done).toHaveLength(1)
  // Whatever fields were there with the expected type are kept.
  expect(JSON.parse(outputs['storage-records'] ?? '')).toEqual([{ status: 'active' }])
  expect(outputs['storage-record-ids']).toBe('')
  const warnings = log.lines.filter(l => l.level === 'warning').map(l => l.message)
  expect(warnings).toHaveLength(1)
  expect(warnings[0]).toMatch(/storage record .*accepted.*unexpected/s)
})

test('the dry run reads storage records without id', async () => {
  emulator.addFault({
    method: 'GET',
    path: `/orgs/acme/artifacts/${DIGEST}/metadata/storage-records`,
    fault: { kind: 'status', status: 200, body: { storage_records: [storageExample] } }
  })
  const { result } = await go(storageOnly({ 'dry-run': 'true' }))
  expect(result.failures).toEqual([])
  expect(result.preview.map(p => p.effect)).toEqual(['create'])
})

test('a cluster job whose errors carry `deployment: null` keeps its job-id and status', async () => {
  emulator.addFault({
    method: 'POST',
    path: `${CLUSTER}/jobs`,
    fault: {
      kind: 'status',
      status: 202,
      body: { job_id: 77, errors: [{ cause: 'not_found', deployment: null }] }
    }
  })
  emulator.addFault({
    method: 'GET',
    path: `${CLUSTER}/jobs/77`,
    fault: {
      kind: 'status',
      status: 200,
      body: {
        job_id: 77,
        status: 'completed',
        total_count: 0,
        errors: [{ cause: 'not_found', deployment: null }]
      }
    }
  })
  const { result, outputs, log } = await go(
    cluster({ 'cluster-mode': 'job', 'partial-success': 'true' })
  )
  expect(result.failures).toEqual([])
  expect(outputs['job-id']).toBe('77')
  expect(outputs['job-status']).toBe('completed')
  expect(JSON.parse(outputs['errors'] ?? '')).toEqual([{ cause: 'not_found', deployment: null }])
  expect(log.text()).toContain('Deployment ? (?@?…) was not recorded: not_found')
})

test('a cluster job whose status cannot be read still reports its job-id', async () => {
  emulator.addFault({
    method: 'POST',
    path: `${CLUSTER}/jobs`,
    fault: { kind: 'status', status: 202, body: { job_id: 78 } }
  })
  emulator.addFault({
    method: 'GET',
    path: `${CLUSTER}/jobs/78`,
    fault: { kind: 'status', status: 404, body: { message: 'Not Found' } }
  })
  const { result, outputs } = await go(cluster({ 'cluster-mode': 'job' }))
  expect(result.failures).toHaveLength(1)
  expect(outputs['job-id']).toBe('78')
})

test.each([
  [
    403,
    {
      cause: 'artifact metadata write permission required on one or more repositories',
      repositories: [123, 345]
    },
    'artifact metadata write permission required on one or more repositories (repositories: 123, 345)'
  ],
  [
    404,
    { cause: 'One or more repositories do not exist', repositories: ['repoA', 'repoB'] },
    'One or more repositories do not exist (repositories: repoA, repoB)'
  ]
])(
  'a cluster %i whose message is an object is rendered readably',
  async (status, message, text) => {
    emulator.addFault({
      method: 'POST',
      path: CLUSTER,
      fault: { kind: 'status', status, body: { message } }
    })
    const { result } = await go(cluster())
    expect(result.failures).toHaveLength(1)
    expect(result.failures[0]?.message).toContain(`POST ${CLUSTER} failed with ${status}: ${text}`)
  }
)

test('commits/{sha}/pulls answering 409 (an empty repository) means no pull requests', async () => {
  const sha = 'a'.repeat(40)
  emulator.addFault({
    method: 'GET',
    path: `/repos/acme/web/commits/${sha}/pulls`,
    fault: { kind: 'status', status: 409, body: { message: 'Git Repository is empty.' } }
  })
  const client = new ServiceClient({
    baseUrl: emulator.url,
    token: TOKEN,
    apiVersion: '2026-03-10',
    maxRetries: 0,
    userAgent: 'test'
  })
  try {
    await expect(pullsForCommit(client, 'acme', 'web', sha)).resolves.toEqual([])
  } finally {
    await client.close()
  }
})
