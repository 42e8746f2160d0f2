// Over 300 lines: one test per finding of issue 22 beside the load test, sharing the rate-limit front.
// Many jobs at once on one token (issue 22): a matrix against a front with a shared limit, and one
// test per way concurrency made the step's words untrue. Every run is the bundled action started
// as the runner starts it, against the emulator over loopback; waits are the service's real ones,
// kept short (retry-after of 1-2 s, job-timeout of a few seconds).
import { TOKEN, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import { startRateLimitFront, type RateLimitFront } from '../../__fixtures__/rate-limit-front.js'
import { ScaledClock } from '../../__fixtures__/scaled-clock.js'
import type { Emulator, EmulatorOptions } from '../../emulator/index.js'
import { runAction, type ActionRun } from '../../scripts/run-action.js'
import { parseInputs } from '../../src/step/parse-inputs.js'
import { jest } from '@jest/globals'
import { run } from '../../src/step/run.js'

jest.setTimeout(60_000)

const REPO = 'acme/web'
const R = `/repos/${REPO}`
const CLUSTER = 'prod-eu-1'
const jobsPath = `/orgs/acme/artifacts/metadata/deployment-record/cluster/${CLUSTER}/jobs`
const digest = (n: number) => 'sha256:' + n.toString(16).padStart(64, '0')
const item = (n: number) => ({
  name: `ghcr.io/acme/svc-${n}`,
  digest: digest(n),
  deployment_name: `svc-${n}`
})

let emulator: Emulator
let front: RateLimitFront | undefined
afterEach(async () => {
  await front?.close()
  front = undefined
  await emulator?.close()
})
async function start(options: EmulatorOptions = {}) {
  emulator = await withEmulator({ jobStepMs: 50, ...options })
  return emulator
}

const runnerEnv = (url: string) => ({
  GITHUB_REPOSITORY: REPO,
  GITHUB_API_URL: url,
  GITHUB_SHA: 'f'.repeat(40),
  GITHUB_EVENT_NAME: 'workflow_dispatch'
})
const action = (inputs: Record<string, string>, url = emulator.url) =>
  runAction({ token: TOKEN, 'api-url': '', ...inputs }, runnerEnv(url))
const labelsOn = (n: number) => emulator.state.issues[REPO]?.find(i => i.number === n)?.labels ?? []
/** A job of the cluster busy for a long while, created by another pipeline before the step. */
async function occupyCluster(): Promise<void> {
  const answer = await fetch(`${emulator.url}${jobsPath}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'user-agent': 'another-pipeline',
      'content-type': 'application/json'
    },
    body: JSON.stringify({ logical_environment: 'production', deployments: [item(99)] })
  })
  expect(answer.status).toBe(202)
}
const LOST = /answer to creating the job (for cluster \S+ )?was lost/
const labeledOf = (run: ActionRun) =>
  JSON.parse(run.outputs['labeled'] ?? '[]') as Array<{
    number: number
    added: string[]
    removed: string[]
    gone?: string[]
  }>

describe('a matrix on one token against a shared limit', () => {
  test('4 runs at once: nothing lost or duplicated, exact labels, no false lost answer, writes counted', async () => {
    await start({ jobStepMs: 150 })
    emulator.seed({
      pulls: {
        [REPO]: [
          { number: 12, labels: ['deployed:staging', 'keep'] },
          { number: 13, labels: ['deployed:staging'] }
        ]
      }
    })
    // 3 writes a second for every run together, 3 requests in flight: each run alone would
    // never meet it (1 write a second, one request at a time); four at once do.
    front = await startRateLimitFront(emulator.url, {
      writesPerWindow: 3,
      windowMs: 1000,
      maxInFlight: 3,
      retryAfterSeconds: 1,
      spentAtStart: 4
    })
    const RUNS = 4
    const runs = await Promise.all(
      Array.from({ length: RUNS }, (_, i) =>
        action(
          {
            cluster: CLUSTER,
            environment: 'production',
            'cluster-mode': 'job',
            'job-timeout': '60',
            deployments: JSON.stringify([item(i + 1)]),
            labels: 'deployed:production',
            'remove-labels': 'deployed:staging',
            'pull-requests': '12,13'
          },
          (front as RateLimitFront).url
        )
      )
    )
    const counts = (front as RateLimitFront).counts
    for (const r of runs)
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' })
    // The limit was met, both ways it answers: the test exercised what it names.
    expect(counts.refusedWithRetryAfter).toBeGreaterThan(0)
    expect(counts.refusedWithReset).toBeGreaterThan(0)

    // Nothing lost or duplicated: one record per run's deployment, each once.
    const records = emulator.state.deploymentRecords['acme'] ?? []
    expect(records.map(r => r.deployment_name).sort()).toEqual(['svc-1', 'svc-2', 'svc-3', 'svc-4'])
    for (const r of runs) expect(r.outputs['job-status']).toBe('completed')
    // Exact labels.
    expect(labelsOn(12).sort()).toEqual(['deployed:production', 'keep'])
    expect(labelsOn(13)).toEqual(['deployed:production'])
    // No false "lost answer": nothing here loses an answer.
    for (const r of runs) expect(r.stdout).not.toMatch(LOST)
    // Removals claimed = removals made: one per pull request, whichever run made it.
    const claimed = runs.flatMap(r => labeledOf(r).flatMap(l => l.removed))
    expect(claimed).toHaveLength(2)
    // Writes: what the runs say they sent is what arrived at the front.
    const said = runs.reduce((sum, r) => {
      const m = /(\d+) reads and (\d+) writes were sent/.exec(r.summary)
      return sum + Number(m?.[2] ?? NaN)
    }, 0)
    expect(said).toBe(counts.writesArrived)
    expect(counts.writesPassed).toBe(writesOf(emulator.requests).length)
  })
})

describe('cluster jobs queued on one cluster', () => {
  test("a rate-limit refusal followed by another job's 409 is not a lost answer", async () => {
    await start({ jobStepMs: 60_000 })
    await occupyCluster()
    emulator.addFault({
      method: 'POST',
      path: jobsPath,
      fault: {
        kind: 'status',
        status: 403,
        headers: { 'retry-after': '1' },
        body: { message: 'You have exceeded a secondary rate limit.' }
      }
    })
    const r = await action({
      cluster: CLUSTER,
      environment: 'production',
      'cluster-mode': 'job',
      'job-timeout': '4',
      deployments: JSON.stringify([item(1)])
    })
    expect(r.code).toBe(1)
    expect(r.stdout).not.toMatch(LOST)
    expect(r.stdout).not.toMatch(/cannot be confirmed|most likely/)
    expect(r.stdout).toMatch(/another job kept cluster prod-eu-1 busy/)
  })

  test('no job is created at the job-timeout deadline without being followed', async () => {
    await start({ jobStepMs: 50 })
    // Busy for the first two tries, free from the third: the old schedule (2 s, then 3 s cut to
    // what was left of 3 s) made that third try exactly at the deadline.
    emulator.addFault({
      method: 'POST',
      path: jobsPath,
      times: 2,
      fault: { kind: 'status', status: 409, body: { message: 'A job is already in progress' } }
    })
    const r = await action({
      cluster: CLUSTER,
      environment: 'production',
      'cluster-mode': 'job',
      'job-timeout': '3',
      deployments: JSON.stringify([item(1)])
    })
    const created = emulator.requests.filter(q => q.method === 'POST' && q.status === 202)
    // Every job the step created was followed: polled, and named with its final status.
    for (const job of created) {
      const id = (job.response as { job_id: number }).job_id
      expect(
        emulator.requests.some(q => q.method === 'GET' && q.path === `${jobsPath}/${id}`)
      ).toBe(true)
      expect(r.outputs['job-id']).toBe(String(id))
      expect(r.outputs['job-status']).toBe('completed')
    }
    if (created.length === 0) expect(r.stdout).toMatch(/busy .*so no job was created/)
  })

  test('a rate-limit wait that eats job-timeout creates no job after it', async () => {
    await start({ jobStepMs: 30 })
    emulator.addFault({
      method: 'POST',
      path: jobsPath,
      fault: {
        kind: 'status',
        status: 403,
        headers: { 'retry-after': '5' },
        body: { message: 'You have exceeded a secondary rate limit.' }
      }
    })
    const inputs = parseInputs(
      {
        token: TOKEN,
        'api-url': emulator.url,
        repository: REPO,
        cluster: CLUSTER,
        environment: 'production',
        'cluster-mode': 'job',
        'job-timeout': '4',
        deployments: JSON.stringify([item(1)])
      },
      {}
    )
    const result = await run(inputs, { clock: new ScaledClock(100), log: new MemoryLog() })
    expect(emulator.requests.filter(q => q.method === 'POST').map(q => q.status)).toEqual([403])
    expect(result.failures[0]?.message).toMatch(/so no job was created/)
  })

  test('a busy cluster is tried again within 10 s, with jitter, not on the poll schedule', async () => {
    await start({ jobStepMs: 30 })
    const sleepsWith = async (random: () => number) => {
      emulator.reset()
      emulator.addFault({
        method: 'POST',
        path: jobsPath,
        times: 8,
        fault: { kind: 'status', status: 409, body: { message: 'A job is already in progress' } }
      })
      const clock = new ScaledClock(200)
      const inputs = parseInputs(
        {
          token: TOKEN,
          'api-url': emulator.url,
          repository: REPO,
          cluster: CLUSTER,
          environment: 'production',
          'cluster-mode': 'job',
          'job-timeout': '600',
          deployments: JSON.stringify([item(1)])
        },
        {}
      )
      const result = await run(inputs, { clock, random, log: new MemoryLog() })
      expect(result.jobStatus).toBe('completed')
      // The waits between the 9 creation tries: the pacer's (under 1 s) left out.
      return clock.sleeps.filter(ms => ms >= 1000).slice(0, 8)
    }
    const low = await sleepsWith(() => 0)
    const high = await sleepsWith(() => 0.999)
    expect(low).toHaveLength(8)
    expect(Math.max(...low, ...high)).toBeLessThanOrEqual(10_000)
    expect(low).not.toEqual(high)
  })
})

describe('rate limits', () => {
  test('four refusals asking 1 s each do not end the step (max-retries 3); the line says the limit is shared', async () => {
    await start()
    emulator.seed({ pulls: { [REPO]: [{ number: 12 }, { number: 13 }] } })
    emulator.addFault({
      method: 'POST',
      path: `${R}/issues/12/labels`,
      times: 4,
      fault: {
        kind: 'status',
        status: 403,
        headers: { 'retry-after': '1' },
        body: { message: 'You have exceeded a secondary rate limit.' }
      }
    })
    const r = await action({ labels: 'deployed:production', 'pull-requests': '12,13' })
    expect(r.code).toBe(0)
    expect(labelsOn(12)).toEqual(['deployed:production'])
    expect(labelsOn(13)).toEqual(['deployed:production'])
    expect(r.stdout).toMatch(
      /secondary rate limit is shared by every job and step that uses this token/
    )
  })

  test('after a rate-limit wait the target is read again: what another job added is not sent again', async () => {
    await start()
    emulator.seed({ pulls: { [REPO]: [{ number: 12 }] } })
    emulator.addFault({
      method: 'POST',
      path: `${R}/issues/12/labels`,
      fault: {
        kind: 'status',
        status: 403,
        headers: { 'retry-after': '2' },
        body: { message: 'You have exceeded a secondary rate limit.' }
      }
    })
    const running = action({ labels: 'deployed:production', 'pull-requests': '12' })
    // Another job of the matrix adds the label while this one waits.
    const refused = () => emulator.requests.some(q => q.method === 'POST' && q.status === 403)
    while (!refused()) await new Promise(resolve => setTimeout(resolve, 10))
    const other = await fetch(`${emulator.url}${R}/issues/12/labels`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'user-agent': 'another-job',
        'content-type': 'application/json'
      },
      body: JSON.stringify({ labels: ['deployed:production'] })
    })
    expect(other.status).toBe(200)
    const r = await running
    expect(r.code).toBe(0)
    const ours = emulator.requests.filter(
      q => q.method === 'POST' && q.headers['user-agent'] !== 'another-job'
    )
    expect(ours.map(q => q.status)).toEqual([403])
    expect(labeledOf(r)).toEqual([{ number: 12, added: [], removed: [] }])
    expect(r.stdout).toMatch(/added meanwhile by another job; not sent again/)
  })
})

describe('labels say what this run changed', () => {
  test('a DELETE answered 404 is "already gone", not "removed": outputs, log and summary', async () => {
    await start()
    emulator.seed({ pulls: { [REPO]: [{ number: 12, labels: ['deployed:staging'] }] } })
    // Another job takes it off between this run's read and its DELETE.
    emulator.addFault({
      method: 'DELETE',
      path: `${R}/issues/12/labels/deployed:staging`,
      fault: { kind: 'status', status: 404, body: { message: 'Label does not exist' } }
    })
    const r = await action({
      labels: 'deployed:production',
      'remove-labels': 'deployed:staging',
      'pull-requests': '12'
    })
    expect(r.code).toBe(0)
    expect(labeledOf(r)).toEqual([
      { number: 12, added: ['deployed:production'], removed: [], gone: ['deployed:staging'] }
    ])
    expect(r.stdout).toMatch(/labeled \(\+deployed:production, deployed:staging already gone\)/)
    expect(r.stdout).not.toMatch(/-deployed:staging/)
    expect(r.summary).toMatch(
      /\| #12 \| `deployed:production` \| `deployed:staging` already gone \|/
    )
  })

  test('a labels-only run that fails is not titled "Deployment recorded in part"', async () => {
    await start()
    emulator.seed({ pulls: { [REPO]: [{ number: 12 }, { number: 13 }] } })
    emulator.addFault({
      method: 'POST',
      path: `${R}/issues/13/labels`,
      fault: { kind: 'status', status: 422, body: { message: 'Validation Failed' } }
    })
    const r = await action({ labels: 'deployed:production', 'pull-requests': '12,13' })
    expect(r.code).toBe(1)
    expect(r.summary).not.toMatch(/Deployment recorded/)
    expect(r.summary).toMatch(/^## Labels applied in part$/m)
  })
})
