/**
 * The outputs, as later steps and jobs read them: every output action.yml declares is set on
 * every path (bad input, an unexpected error, a cancel), and all of them together stay within
 * GitHub's 1 MB per job, cut at an item boundary with a count of what was left out. The bundled
 * action runs through the launcher against the emulator.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { TOKEN, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'
import { projectRoot, runAction, type ActionRun } from '../../scripts/run-action.js'
import { silentLog } from '../../src/client/log.js'
import { parseInputs } from '../../src/step/parse-inputs.js'
import { toOutputs } from '../../src/step/report.js'
import { resultAfterBug, RunStopped } from '../../src/shared/result.js'
import { run } from '../../src/step/run.js'

const STORAGE = '/orgs/acme/artifacts/metadata/storage-record'
/** GitHub: "Outputs can be a maximum of 1 MB per job ... Size is approximated based on UTF-16". */
const ONE_MB = 1_000_000
const utf16Bytes = (text: string) => 2 * text.length
/** What the runner takes from GITHUB_OUTPUT, counted as GitHub counts it: names and values. */
const outputsSize = (outputs: Record<string, string>) =>
  Object.entries(outputs).reduce((n, [name, value]) => n + utf16Bytes(name) + utf16Bytes(value), 0)

/** The outputs action.yml declares, and whether its description says the value is JSON. */
const declared = Object.entries(
  (
    parse(readFileSync(join(projectRoot(), 'action.yml'), 'utf8')) as {
      outputs: Record<string, { description: string }>
    }
  ).outputs
).map(([name, { description }]) => ({
  name,
  json: /JSON (array|object)/.exec(description)?.[1] as 'array' | 'object' | undefined
}))

/** `lead-time` when nothing shipped: the count, so a later step reads `count` without a check. */
const NO_LEAD_TIME = {
  count: 0,
  median_seconds: null,
  p90_seconds: null,
  max_seconds: null,
  pull_requests: []
}

/**
 * Every declared output is there, and each is what `fromJSON` or a plain read expects when empty
 * (but those of `except`, checked by the test).
 */
function expectEveryOutputEmpty(run: ActionRun, ...except: string[]) {
  expect(Object.keys(run.outputs).sort()).toEqual(declared.map(o => o.name).sort())
  for (const { name, json } of declared.filter(o => !except.includes(o.name))) {
    const value = run.outputs[name]
    if (name === 'lead-time') expect([name, JSON.parse(value ?? '')]).toEqual([name, NO_LEAD_TIME])
    else if (json === 'array') expect([name, JSON.parse(value ?? '')]).toEqual([name, []])
    else if (json === 'object') expect([name, JSON.parse(value ?? '')]).toEqual([name, {}])
    else expect([name, value]).toEqual([name, ''])
  }
}

let emulator: Emulator
afterEach(async () => emulator?.close())

test('action.yml says which outputs are JSON, and they are the arrays and the count object', () => {
  expect(declared.filter(o => o.json).map(o => `${o.name}: ${o.json}`)).toEqual([
    'deployment-records: array',
    'storage-records: array',
    'errors: array',
    'decommissioned: array',
    'labeled: array',
    'planned: array',
    'failed: array',
    'lead-time: object',
    'truncated: object'
  ])
})

test('bad input: no request, and every output is set, empty', async () => {
  emulator = await withEmulator()
  const run = await runAction({
    token: TOKEN,
    'api-url': emulator.url,
    digest: 'sha512:abc',
    environment: 'production'
  })
  expect(run.code).not.toBe(0)
  expect(run.stdout).toMatch(/::error::The inputs have 2 problems; nothing was sent/)
  expect(emulator.requests).toEqual([])
  expectEveryOutputEmpty(run)
})

test('bad input with an output file that cannot take them: both said in the one failure', async () => {
  emulator = await withEmulator()
  const run = await runAction(
    { token: TOKEN, 'api-url': emulator.url, digest: 'sha512:abc', environment: 'production' },
    { GITHUB_OUTPUT: '/nonexistent-folder/output' }
  )
  expect(run.code).not.toBe(0)
  const errors = run.stdout.split('\n').filter(line => line.startsWith('::error::'))
  expect(errors).toHaveLength(1)
  expect(errors[0]).toMatch(/The inputs have 2 problems; nothing was sent/)
  expect(errors[0]).toMatch(
    /outputs could not be written to GITHUB_OUTPUT \(\/nonexistent-folder\/output\)/
  )
})

test('an unexpected error (a bug of ours) still sets every output, empty but `failed`, which names it', async () => {
  emulator = await withEmulator()
  // Planted through Node's own preload: the action's first signal handler throws, after the
  // inputs were read and before anything was sent.
  const plant = fileURLToPath(new URL('../../__fixtures__/plant-bug.mjs', import.meta.url))
  const run = await runAction(
    {
      token: TOKEN,
      'api-url': emulator.url,
      digest: 'ghcr.io/acme/web@sha256:' + 'ab'.repeat(32),
      environment: 'production'
    },
    { NODE_OPTIONS: `--import=${plant}` }
  )
  expect(run.code).not.toBe(0)
  expect(run.stdout).toMatch(/::error::record-deployment stopped on an unexpected error: planted/)
  expectEveryOutputEmpty(run, 'failed')
  expect(JSON.parse(run.outputs['failed'] ?? '')).toEqual([
    {
      what: 'unexpected internal error',
      method: null,
      path: null,
      status: null,
      request_id: null,
      message: 'planted by the test'
    }
  ])
  expect(emulator.requests).toEqual([])
})

test('`failed` names the call that failed: what, method, path, status, request id and message', async () => {
  emulator = await withEmulator()
  emulator.addFault({
    method: 'POST',
    path: STORAGE,
    fault: { kind: 'status', status: 422, body: { message: 'Validation Failed' } }
  })
  const run = await runAction({
    token: TOKEN,
    'api-url': emulator.url,
    digest: 'ghcr.io/acme/web@sha256:' + 'ef'.repeat(32),
    environment: 'production',
    'registry-url': 'https://ghcr.io'
  })
  expect(run.code).not.toBe(0)
  const failed = JSON.parse(run.outputs['failed'] ?? '') as Array<Record<string, unknown>>
  expect(failed).toHaveLength(1)
  expect(failed[0]).toEqual({
    what: expect.stringMatching(/^storage record/),
    method: 'POST',
    path: STORAGE,
    status: 422,
    request_id: expect.stringMatching(/^EMU:/),
    message: expect.stringContaining(
      'POST /orgs/acme/artifacts/metadata/storage-record failed with 422'
    )
  })
  // The deployment record after it was still written, and is in its output.
  expect(JSON.parse(run.outputs['deployment-records'] ?? '')).toHaveLength(1)
})

test('an answer whose message and validation errors are megabytes long: `failed` still names the call, what the service said cut and saying so', async () => {
  emulator = await withEmulator()
  // words, as a service's messages are: a cut falls between them (a cut inside a word leaves the
  // word out, so that no part of a token is quoted: secrets-break.test.ts)
  const huge = 'word '.repeat(1_000_000)
  // and thousands of validation errors, each long
  const validation = Array.from({ length: 5000 }, (_, i) => ({
    resource: 'StorageRecord',
    field: `f${i}`,
    code: 'invalid',
    message: 'yes '.repeat(500)
  }))
  emulator.addFault({
    method: 'POST',
    path: STORAGE,
    fault: { kind: 'status', status: 422, body: { message: huge, errors: validation } }
  })
  const run = await runAction({
    token: TOKEN,
    'api-url': emulator.url,
    digest: 'ghcr.io/acme/web@sha256:' + 'ef'.repeat(32),
    'registry-url': 'https://ghcr.io'
  })
  expect(run.code).not.toBe(0)
  expect(JSON.parse(run.outputs['truncated'] ?? '')).toEqual({})
  const failed = JSON.parse(run.outputs['failed'] ?? '') as Array<{
    status: number
    message: string
  }>
  expect(failed.map(f => f.status)).toEqual([422])
  expect(failed[0]?.message).toMatch(/failed with 422: (word ){200}… \(4999000 more characters\)/)
  expect(failed[0]?.message).toContain('\n  - StorageRecord.f19: invalid: ' + 'yes '.repeat(200))
  expect(failed[0]?.message).toContain('\n  - ... and 4980 more')
  expect(failed[0]?.message.length).toBeLessThan(25_000)
}, 60_000)

/** A deployment record, then labels on #12: the two bug tests plant their bug in the labels job. */
const recordThenLabel = (apiUrl: string) => ({
  token: TOKEN,
  'api-url': apiUrl,
  digest: 'ghcr.io/acme/web@sha256:' + '12'.repeat(32),
  environment: 'production',
  repository: 'acme/web',
  labels: 'deployed',
  'pull-requests': '12'
})

test('a bug of ours after a record was written, through the bundled action: the outputs and the job summary still show the record, and the bug', async () => {
  emulator = await withEmulator()
  emulator.seed({ pulls: { 'acme/web': [{ number: 12 }] } })
  // Writing the labels job's first log line throws: a bug that escapes that job, after the
  // deployment record was written.
  const plant = fileURLToPath(new URL('../../__fixtures__/plant-bug-on-line.mjs', import.meta.url))
  const run = await runAction(recordThenLabel(emulator.url), {
    NODE_OPTIONS: `--import=${plant}`,
    PLANT_BUG_LINE: 'Labels: '
  })
  expect(run.code).not.toBe(0)
  const ids = run.outputs['deployment-record-ids'] ?? ''
  expect(ids).toMatch(/^\d+$/)
  expect(JSON.parse(run.outputs['failed'] ?? '')).toEqual([
    expect.objectContaining({ what: 'unexpected internal error', message: 'planted by the test' })
  ])
  // The summary says what was written before the bug, and names the bug.
  expect(run.summary).toMatch(/^## Deployment recorded in part$/m)
  expect(run.summary).toMatch(new RegExp(`\\| Deployment record \\|.*\\| ${ids} \\|`))
  expect(run.summary).toContain('unexpected internal error')
})

test('a bug of ours after a record was written: the outputs still hold the record, and `failed` names the bug', async () => {
  emulator = await withEmulator()
  const inputs = parseInputs(recordThenLabel(emulator.url), {})
  // The labels job logs its targets outside any request's error handling: a log that throws
  // there is a bug that escapes the job, after the record was written.
  const log = {
    ...silentLog,
    info: (message: string) => {
      if (message === 'Labels: issue or pull request #12')
        throw new TypeError('planted in the labels job')
    }
  }
  const stopped = await run(inputs, {
    log,
    event: { eventName: '', payload: {}, sha: '', ref: '' }
  }).catch((error: unknown) => error)
  expect(stopped).toBeInstanceOf(RunStopped)
  const outputs = toOutputs(resultAfterBug(stopped).result)
  expect(JSON.parse(outputs['deployment-records'] ?? '')).toHaveLength(1)
  expect(outputs['deployment-record-ids']).toMatch(/^\d+$/)
  expect(JSON.parse(outputs['failed'] ?? '')).toEqual([
    {
      what: 'unexpected internal error',
      method: null,
      path: null,
      status: null,
      request_id: null,
      message: 'planted in the labels job'
    }
  ])
})

test('a cancel before anything was recorded sets every output, empty but `failed`, which names the write cut in flight', async () => {
  emulator = await withEmulator()
  emulator.addFault({ method: 'POST', path: STORAGE, fault: { kind: 'hang' } })
  const run = await runAction(
    {
      token: TOKEN,
      'api-url': emulator.url,
      digest: 'ghcr.io/acme/web@sha256:' + 'cd'.repeat(32),
      environment: 'production',
      'registry-url': 'https://ghcr.io'
    },
    {},
    {
      signals: [
        { signal: 'SIGINT', when: () => emulator.requests.some(r => r.path === STORAGE) },
        { signal: 'SIGTERM', afterMs: 200 }
      ]
    }
  )
  expect(run.code).not.toBe(0)
  expectEveryOutputEmpty(run, 'failed')
  const failed = JSON.parse(run.outputs['failed'] ?? '') as unknown[]
  expect(failed).toEqual([
    expect.objectContaining({ method: 'POST', path: STORAGE, status: null, request_id: null })
  ])
})

describe('within GitHub limits', () => {
  const N = 5000
  const digest = (n: number) => 'sha256:' + n.toString(16).padStart(64, '0')
  const items = Array.from({ length: N }, (_, i) => ({
    name: `ghcr.io/acme/service-${i + 1}`,
    digest: digest(i + 1),
    deployment_name: `production-service-${i + 1}-app`,
    version: `1.${i + 1}.0`
  }))
  let workspace: string
  beforeAll(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'outputs-'))
    await writeFile(join(workspace, 'deployments.json'), JSON.stringify(items))
  })
  afterAll(async () => rm(workspace, { recursive: true, force: true }))

  const cluster = (over: Record<string, string>) => ({
    token: TOKEN,
    'api-url': emulator.url,
    cluster: 'prod-eu-1',
    environment: 'production',
    'deployments-file': 'deployments.json',
    'cluster-mode': 'job',
    ...over
  })

  /** Every output fits, and all of them together; the summary fits its own 1 MiB. */
  function expectWithinLimits(run: ActionRun) {
    expect(outputsSize(run.outputs)).toBeLessThanOrEqual(ONE_MB)
    expect(Buffer.byteLength(run.summary)).toBeLessThanOrEqual(1024 * 1024)
  }

  test(`a ${N}-deployment dry run: planned is cut between deployments, still valid JSON, and the rest counted`, async () => {
    emulator = await withEmulator()
    const run = await runAction(cluster({ 'dry-run': 'true' }), {}, { context: { workspace } })
    expect(run.code).toBe(0)
    expect(writesOf(emulator.requests)).toEqual([])
    expectWithinLimits(run)

    const planned = JSON.parse(run.outputs['planned'] ?? '') as Array<{
      method: string
      path: string
      body: { deployments: unknown[] }
      records: Array<{ deployment_name: string }>
    }>
    expect(planned).toHaveLength(1)
    const [request] = planned
    const kept = request?.records.length ?? 0
    // A real part, not a token one: at least a fifth of the 1.7 MB fits.
    expect(kept).toBeGreaterThan(N / 5)
    expect(kept).toBeLessThan(N)
    // The same first deployments in the body and in the effects, in the file's order.
    expect(request?.body.deployments).toEqual(
      items.slice(0, kept).map(i => ({ ...i, github_repository: 'web' }))
    )
    expect(request?.records.map(r => r.deployment_name)).toEqual(
      items.slice(0, kept).map(i => i.deployment_name)
    )
    expect(JSON.parse(run.outputs['truncated'] ?? '')).toEqual({ planned: N - kept })

    const said = `The \`planned\` output holds the first ${kept} of ${N} items: ${N - kept} were left out`
    expect(run.stdout).toContain(`::warning::${said}`)
    expect(run.summary).toContain("### Outputs cut to GitHub's limits")
    expect(run.summary).toContain(said)
  }, 60_000)

  test(`a ${N}-deployment job with every deployment rejected: errors is cut between items and counted`, async () => {
    // No attestation and a workflow repository of another owner: every deployment is rejected.
    emulator = await withEmulator({ attestedDigests: [], jobStepMs: 10, pollIntervalSeconds: 1 })
    const run = await runAction(
      cluster({ 'partial-success': 'true', repository: 'other/site', org: 'acme' }),
      {},
      { context: { workspace, repository: 'other/site' } }
    )
    expect(run.code).toBe(0)
    expectWithinLimits(run)
    const errors = JSON.parse(run.outputs['errors'] ?? '') as Array<{
      cause: string
      deployment: { deployment_name: string }
    }>
    expect(errors.length).toBeGreaterThan(N / 5)
    expect(errors.length).toBeLessThan(N)
    expect(errors.map(e => e.deployment.deployment_name)).toEqual(
      items.slice(0, errors.length).map(i => i.deployment_name)
    )
    expect(JSON.parse(run.outputs['truncated'] ?? '')).toEqual({ errors: N - errors.length })
    expect(run.outputs['job-id']).toMatch(/^\d+$/)
    const said = `The \`errors\` output holds the first ${errors.length} of ${N} items: ${N - errors.length} were left out`
    expect(run.stdout).toContain(`::warning::${said}`)
    expect(run.summary).toContain(said)
  }, 60_000)
})

test('the job summary stays within its 1 MiB: 15000 pull requests not attempted after a refused token', async () => {
  emulator = await withEmulator()
  const numbers = Array.from({ length: 15_000 }, (_, i) => i + 1)
  const run = await runAction({
    token: 'refused-token',
    'api-url': emulator.url,
    repository: 'acme/web',
    labels: 'deployed:production',
    'pull-requests': numbers.join(','),
    'max-retries': '0'
  })
  expect(run.code).not.toBe(0)
  // One request: the refusal repeats for every target, so the rest are not attempted.
  expect(emulator.requests).toHaveLength(1)
  expect(Buffer.byteLength(run.summary)).toBeLessThanOrEqual(1024 * 1024)
  expect(run.summary).toContain('### Failed')
  expect(run.summary).toMatch(/- \*\*issue or pull request `#2`\*\*: not attempted/)
  // the cut list says where the rest are
  expect(run.summary).toContain('- ... and 14900 more in the `failed` output and the log')
  // The failure report in the log still names every one.
  expect(run.stdout).toContain('issue or pull request #15000')
})
