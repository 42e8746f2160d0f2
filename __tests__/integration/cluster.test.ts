// Over 300 lines: the set and job protocols' cases against one emulator.
import { writeFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TOKEN, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import { ScaledClock } from '../../__fixtures__/scaled-clock.js'
import type { Emulator, EmulatorOptions } from '../../emulator/index.js'
import { runAction } from '../../scripts/run-action.js'
import { parseInputs, type RawInputs } from '../../src/step/parse-inputs.js'
import { toOutputs } from '../../src/step/report.js'
import { run } from '../../src/step/run.js'

const digest = (n: number) => 'sha256:' + n.toString(16).padStart(64, '0')
const item = (n: number) => ({
  name: `ghcr.io/acme/svc-${n}`,
  digest: digest(n),
  deployment_name: `prod-svc-${n}-app`
})
const items = (n: number, from = 1) => Array.from({ length: n }, (_, i) => item(from + i))
const clusterPath = '/orgs/acme/artifacts/metadata/deployment-record/cluster/prod-eu-1'

let emulator: Emulator
afterEach(async () => emulator?.close())
async function start(options: EmulatorOptions = {}) {
  emulator = await withEmulator({ jobStepMs: 30, ...options })
  return emulator
}
const raw = (over: RawInputs = {}): RawInputs => ({
  token: TOKEN,
  'api-url': emulator.url,
  repository: 'acme/web',
  cluster: 'prod-eu-1',
  environment: 'production',
  'physical-environment': 'eu-west-1',
  deployments: JSON.stringify(items(3)),
  ...over
})
async function go(over: RawInputs = {}) {
  const log = new MemoryLog()
  const clock = new ScaledClock(100)
  const result = await run(parseInputs(raw(over), {}), { log, clock, random: () => 0 })
  return { result, log, clock, outputs: toOutputs(result) }
}

test('sync: one set request with every deployment; the records come back', async () => {
  await start()
  const { result, outputs } = await go()
  expect(result.failures).toEqual([])
  const writes = writesOf(emulator.requests)
  expect(writes.map(w => `${w.method} ${w.path}`)).toEqual([`POST ${clusterPath}`])
  expect(writes[0]?.body).toEqual({
    logical_environment: 'production',
    physical_environment: 'eu-west-1',
    deployments: items(3).map(i => ({ ...i, github_repository: 'web' })),
    return_records: true
  })
  expect(JSON.parse(outputs['deployment-records'] ?? '')).toHaveLength(3)
  expect(outputs['deployment-record-ids']?.split(',')).toHaveLength(3)
  expect(outputs['errors']).toBe('[]')
  expect(outputs['job-id']).toBe('')
})

test('partial-success: skipped deployments go to errors and to one warning per cause; the step succeeds', async () => {
  await start({ attestedDigests: [digest(1), digest(2)] })
  // The workflow repository belongs to another owner: no github_repository default, so an
  // unattested digest has nothing to fall back on.
  const { result, log, outputs } = await go({
    'partial-success': 'true',
    repository: 'other/site',
    org: 'acme'
  })

  expect(writesOf(emulator.requests)[0]?.body).toMatchObject({ partial_success: true })
  expect(result.failures).toEqual([])
  expect(JSON.parse(outputs['deployment-records'] ?? '')).toHaveLength(2)
  const errors = JSON.parse(outputs['errors'] ?? '')
  expect(errors).toEqual([
    expect.objectContaining({
      cause: expect.any(String),
      deployment: expect.objectContaining({ deployment_name: 'prod-svc-3-app' })
    })
  ])
  const warnings = log.lines.filter(l => l.level === 'warning')
  expect(warnings).toHaveLength(1)
  expect(warnings[0]?.message).toMatch(/prod-svc-3-app .* was not recorded: /)
})

test('without partial-success a rejection fails the step with the service message; nothing is recorded', async () => {
  await start({ tokens: { [TOKEN]: { permissions: 'all', repositories: ['acme/web'] } } })
  const list = [item(1), { ...item(2), github_repository: 'secret-repo' }]
  const { result } = await go({ deployments: JSON.stringify(list) })
  expect(result.failures).toHaveLength(1)
  expect(result.failures[0]?.message).toMatch(/POST .*cluster\/prod-eu-1 failed with 404/)
  expect(emulator.state.deploymentRecords['acme'] ?? []).toHaveLength(0)
})

test('job: created, polled with conditional requests to completed; job-id and job-status set', async () => {
  await start({ jobStepMs: 40 })
  const { result, outputs, clock } = await go({ 'cluster-mode': 'job' })
  expect(result.failures).toEqual([])
  const writes = writesOf(emulator.requests)
  expect(writes.map(w => `${w.method} ${w.path} ${w.status}`)).toEqual([
    `POST ${clusterPath}/jobs 202`
  ])
  expect(writes[0]?.body).not.toHaveProperty('partial_success')
  const polls = emulator.requests.filter(r => r.method === 'GET')
  expect(polls.length).toBeGreaterThanOrEqual(1)
  expect(polls.slice(1).every(p => typeof p.headers['if-none-match'] === 'string')).toBe(true)
  expect(clock.sleeps[0]).toBe(2000)
  expect(outputs['job-id']).toMatch(/^\d+$/)
  expect(outputs['job-status']).toBe('completed')
  expect(emulator.state.deploymentRecords['acme']).toHaveLength(3)
})

test('x-poll-interval is honoured', async () => {
  await start({ jobStepMs: 40, pollIntervalSeconds: 7 })
  const { clock, result } = await go({ 'cluster-mode': 'job' })
  expect(result.jobStatus).toBe('completed')
  const pollSleeps = clock.sleeps.slice(1)
  expect(pollSleeps.length).toBeGreaterThan(0)
  expect(pollSleeps.every(s => s === 7000)).toBe(true)
})

test('a failed job fails the step; job-id and job-status are still set', async () => {
  await start()
  emulator.seed({ failNextJob: true })
  const { result, outputs } = await go({ 'cluster-mode': 'job' })
  expect(outputs['job-status']).toBe('failed')
  expect(outputs['job-id']).toMatch(/^\d+$/)
  expect(result.failures[0]?.message).toMatch(/job \d+ for cluster prod-eu-1 failed/)
})

test('a job that outlasts job-timeout fails and names the job id', async () => {
  await start({ jobStepMs: 60_000 })
  const { result, outputs } = await go({ 'cluster-mode': 'job', 'job-timeout': '20' })
  expect(result.failures[0]?.message).toMatch(
    new RegExp(
      `job ${outputs['job-id']} for cluster prod-eu-1 did not finish within job-timeout \\(20 s\\)`
    )
  )
  expect(outputs['job-status']).toMatch(/pending|processing/)
})

test('409: another job on the cluster is waited for, then the job goes through', async () => {
  await start({ jobStepMs: 250 })
  const first = await fetch(`${emulator.url}${clusterPath}/jobs`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'user-agent': 'test',
      'content-type': 'application/json'
    },
    body: JSON.stringify({ logical_environment: 'production', deployments: items(1, 10) })
  })
  expect(first.status).toBe(202)
  const { result, log } = await go({ 'cluster-mode': 'job' })
  expect(result.failures).toEqual([])
  expect(result.jobStatus).toBe('completed')
  const creations = writesOf(emulator.requests).filter(r => r.path.endsWith('/jobs'))
  expect(creations.map(c => c.status)).toContain(409)
  expect(creations.at(-1)?.status).toBe(202)
  expect(log.text()).toMatch(/A job is already in progress for cluster prod-eu-1; trying again in/)
})

test('a 409 that lasts past job-timeout fails, saying so', async () => {
  await start({ jobStepMs: 60_000 })
  await fetch(`${emulator.url}${clusterPath}/jobs`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'user-agent': 'test',
      'content-type': 'application/json'
    },
    body: JSON.stringify({ logical_environment: 'production', deployments: items(1, 10) })
  })
  const { result } = await go({ 'cluster-mode': 'job', 'job-timeout': '10' })
  expect(result.failures[0]?.message).toMatch(/another job kept cluster prod-eu-1 busy/)
})

test('x-poll-interval of 0 is raised to 1 s between polls', async () => {
  await start({ jobStepMs: 40, pollIntervalSeconds: 0 })
  const { clock, result } = await go({ 'cluster-mode': 'job' })
  expect(result.jobStatus).toBe('completed')
  const pollSleeps = clock.sleeps.slice(1)
  expect(pollSleeps.length).toBeGreaterThan(0)
  expect(pollSleeps.every(s => s === 1000)).toBe(true)
})

test('a job whose creation answer was lost: the 409 from our own job is said so, the same deployments go again, job-id set, each record once', async () => {
  await start({ jobStepMs: 100 })
  emulator.addFault({ method: 'POST', path: `${clusterPath}/jobs`, fault: { kind: 'lose-answer' } })
  const { result, outputs, log } = await go({ 'cluster-mode': 'job' })
  expect(result.failures).toEqual([])
  const creations = writesOf(emulator.requests).filter(r => r.path.endsWith('/jobs'))
  expect(creations[0]).toMatchObject({ status: 202, fault: 'lose-answer' })
  expect(creations.some(c => c.status === 409)).toBe(true)
  expect(creations.at(-1)?.status).toBe(202)
  expect(log.text()).toMatch(
    /the answer to creating the job was lost, and the retry found a job in progress \(409\): most likely the one this step just created/
  )
  expect(log.text()).toMatch(/submitted again after the first answer was lost/)
  expect(outputs['job-id']).toBe(String((creations.at(-1)?.response as { job_id: number }).job_id))
  expect(outputs['job-status']).toBe('completed')
  const records = emulator.state.deploymentRecords['acme'] ?? []
  expect(records).toHaveLength(3)
  expect(new Set(records.map(r => r.deployment_name)).size).toBe(3)
})

test('a lost creation answer and a job that outlasts job-timeout: the message says the lost answer, not another pipeline', async () => {
  await start({ jobStepMs: 60_000 })
  emulator.addFault({ method: 'POST', path: `${clusterPath}/jobs`, fault: { kind: 'lose-answer' } })
  const { result } = await go({ 'cluster-mode': 'job', 'job-timeout': '10' })
  expect(result.failures[0]?.message).toMatch(
    /the answer to creating the job for cluster prod-eu-1 was lost, and a job \(most likely that one\) kept the cluster busy/
  )
})

test('404 on the first polls (the job not yet visible) is polled again, not fatal', async () => {
  await start({ jobStepMs: 40 })
  emulator.addFault({
    method: 'GET',
    path: /\/jobs\/\d+$/,
    times: 2,
    fault: { kind: 'status', status: 404, body: { message: 'Not Found' } }
  })
  const { result, outputs, log } = await go({ 'cluster-mode': 'job' })
  expect(result.failures).toEqual([])
  expect(outputs['job-status']).toBe('completed')
  expect(log.text()).toMatch(/Job \d+ is not visible yet \(404\); polling again/)
})

test('polling that fails for good keeps job-id and job-status and names the real cause, not a permission', async () => {
  await start({ jobStepMs: 40 })
  emulator.addFault({
    method: 'GET',
    path: /\/jobs\/\d+$/,
    times: 100,
    fault: { kind: 'status', status: 404, body: { message: 'Not Found' } }
  })
  const { result, outputs } = await go({ 'cluster-mode': 'job' })
  expect(outputs['job-id']).toMatch(/^\d+$/)
  expect(outputs['job-status']).toBe('unknown')
  const message = result.failures[0]?.message ?? ''
  expect(message).toMatch(
    new RegExp(
      `job ${outputs['job-id']} for cluster prod-eu-1 was created, but following it failed: GET .*/jobs/\\d+ answered 404 \\(the job is not visible\\): Not Found`
    )
  )
  expect(message).toMatch(/request id EMU:/)
  expect(message).not.toMatch(/permission/)
})

test('deployments a job rejects at creation are reported; without partial-success the step fails after the job ends', async () => {
  await start({ tokens: { [TOKEN]: { permissions: 'all', repositories: ['acme/web'] } } })
  const list = [item(1), { ...item(2), github_repository: 'secret-repo' }]
  const strict = await go({ 'cluster-mode': 'job', deployments: JSON.stringify(list) })
  expect(JSON.parse(strict.outputs['errors'] ?? '')).toHaveLength(1)
  expect(strict.result.jobStatus).toBe('completed')
  expect(strict.result.failures[0]?.message).toMatch(/1 of 2 deployments were rejected/)
  const lenient = await go({
    'cluster-mode': 'job',
    deployments: JSON.stringify(list),
    'partial-success': 'true'
  })
  expect(lenient.result.failures).toEqual([])
  expect(lenient.log.lines.filter(l => l.level === 'warning')[0]?.message).toMatch(
    /prod-svc-2-app .* unauthorized/
  )
})

test('dry run reads each digest once, sends nothing, and says create or update per deployment', async () => {
  await start()
  await go({ deployments: JSON.stringify(items(2)) })
  emulator.requests.length = 0
  const { result, outputs } = await go({ 'dry-run': 'true', deployments: JSON.stringify(items(3)) })
  expect(writesOf(emulator.requests)).toEqual([])
  expect(
    emulator.requests.filter(r => r.path.includes('/metadata/deployment-records'))
  ).toHaveLength(3)
  expect(result.preview[0]?.records?.map(r => r.effect)).toEqual(['update', 'update', 'create'])
  expect(JSON.parse(outputs['planned'] ?? '')[0]).toMatchObject({
    method: 'POST',
    path: clusterPath
  })
})

test('the bundled action records a 1500-deployment cluster from a file as a job', async () => {
  await start({ jobStepMs: 20 })
  const dir = await mkdtemp(join(tmpdir(), 'cluster-'))
  try {
    await writeFile(join(dir, 'deployments.json'), JSON.stringify(items(1500)))
    const action = await runAction(
      {
        token: TOKEN,
        'deployments-file': 'deployments.json',
        cluster: 'prod-eu-1',
        environment: 'production'
      },
      { GITHUB_REPOSITORY: 'acme/web', GITHUB_API_URL: emulator.url, GITHUB_WORKSPACE: dir }
    )
    expect(action.stderr).toBe('')
    expect(action.code).toBe(0)
    expect(action.outputs['job-status']).toBe('completed')
    expect(emulator.state.deploymentRecords['acme']).toHaveLength(1500)
    expect(action.summary).toMatch(/Cluster job \*\*\d+\*\*: completed/)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}, 30_000)
