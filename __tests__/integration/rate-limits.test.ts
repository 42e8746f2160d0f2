// Labels past GitHub's documented limits, against the emulator enforcing them on a clock 1000 times
// faster than real (an hour in 3.6 s): nothing is lost, the writes are paced inside the limits, and
// the requests are counted. The client runs in the test process on the emulator's clock; its
// requests go over real sockets.
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import type { Emulator, Limits } from '../../emulator/index.js'
import { ServiceClient } from '../../src/client/client.js'
import type { Clock } from '../../src/client/clock.js'
import { applyLabels } from '../../src/labels/apply.js'
import type { LabelInputs } from '../../src/labels/inputs.js'

const SCALE = 1000
const REPO = 'acme/web'

/** The emulator's scaled clock: a sleep of N ms takes N / SCALE real ms. */
function clockOf(limits: Limits): Clock {
  return {
    now: () => limits.now(),
    sleep: async ms => {
      const until = limits.now() + ms
      while (limits.now() < until)
        await new Promise(resolve =>
          setTimeout(resolve, Math.max(1, (until - limits.now()) / SCALE))
        )
    }
  }
}

function pulls(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    number: i + 1,
    title: `Change ${i + 1}`,
    merged: true
  }))
}

let emulator: Emulator
afterEach(async () => emulator.close())

async function label(count: number, budgetMinutes?: number) {
  emulator = await withEmulator({
    limits: { clockScale: SCALE },
    seed: { pulls: { [REPO]: pulls(count) } }
  })
  const limits = emulator.limits as Limits
  const log = new MemoryLog()
  const client = new ServiceClient({
    baseUrl: emulator.url,
    token: TOKEN,
    apiVersion: '2026-03-10',
    maxRetries: 3,
    userAgent: 'record-deployment-test',
    random: () => 0,
    clock: clockOf(limits),
    requestTimeoutMs: 30_000, // real milliseconds: undici's timers are not scaled here
    log,
    ...(budgetMinutes !== undefined ? { timeBudgetMinutes: budgetMinutes } : {})
  })
  const inputs: LabelInputs = {
    labels: ['deployed:production'],
    removeLabels: [],
    pullRequests: Array.from({ length: count }, (_, i) => i + 1),
    labelLinkedIssues: false
  }
  const started = limits.now()
  try {
    const result = await applyLabels(client, {
      owner: 'acme',
      repo: 'web',
      inputs,
      discovery: {
        eventName: 'workflow_dispatch',
        payload: {},
        sha: 'c'.repeat(40),
        ref: 'refs/heads/main',
        owner: 'acme',
        repo: 'web'
      },
      dryRun: false,
      log
    })
    return { result, log, limits, minutes: (limits.now() - started) / 60_000, client }
  } finally {
    await client.close()
  }
}

const labeledOnService = () =>
  (emulator.state.issues[REPO] ?? []).filter(i => i.labels.includes('deployed:production')).length
const posts = () => emulator.requests.filter(r => r.method === 'POST').length
const gets = () => emulator.requests.filter(r => r.method === 'GET').length

test('600 pull requests under the documented limits: all labeled, paced past the hour, requests counted', async () => {
  const { result, log, limits, minutes } = await label(600)
  expect(result.failures).toEqual([])
  expect(result.labeled).toHaveLength(600)
  expect(labeledOnService()).toBe(600)
  // One read and one write each; a write the service refused (latency between two clocks) is
  // read again and sent once more after its wait, and counted: nothing else.
  expect(gets()).toBe(600 + limits.refused.secondary)
  expect(posts()).toBe(600 + limits.refused.secondary)
  expect(limits.refused.secondary).toBeLessThanOrEqual(20) // at 1000x a 1 s margin is 1 ms of real latency
  expect(limits.refused.primary).toBe(0)
  // The 501st write waited for the first to leave the hour's window.
  expect(minutes).toBeGreaterThan(60)
  expect(log.text()).toMatch(
    /Labels: 600 writes and 600 reads to send; GitHub's 500 content-creating requests an hour sets the pace: about 1 h \d+ min, expected to end about \d\d:\d\d UTC \(within the step's time budget of 330 minutes\)/
  )
  // Whether the writes outrun the hour, and so wait, depends on each request's real time on the
  // scaled clock (a loaded machine makes them slow enough not to): every pacing wait over a
  // minute says when it resumes (the exact line, on a fake clock: client-pacing.test.ts).
  for (const line of log.text().split('\n')) {
    const held = /are reached by this run's writes; .*held back in (\d+) s/.exec(line)
    if (held && Number(held[1]) > 60) expect(line).toMatch(/resuming at \d\d:\d\d:\d\d UTC/)
  }
  expect(log.text()).toMatch(/Progress: \d+ of 600 writes done, \d+ left; expected to end about/)
}, 60_000)

test('a budget too short for the release: what is left is named with the pull-requests value that finishes it', async () => {
  const { result, limits } = await label(510, 50)
  expect(labeledOnService()).toBe(500)
  expect(result.labeled).toHaveLength(500)
  // The 501st was held back, never sent; the rest not sent either; one line says how to finish.
  const unsent = result.failures.filter(f => f.notSent)
  expect(unsent.map(f => f.what)).toEqual(
    Array.from({ length: 10 }, (_, i) => `issue or pull request #${501 + i}`)
  )
  expect(unsent[0]?.message).toMatch(
    /POST \/repos\/acme\/web\/issues\/501\/labels not sent: GitHub's 500 content-creating requests an hour are reached by this run's writes; the next may go at \d\d:\d\d UTC; waiting .* would pass the step's time budget \(`time-budget`: 50 minutes/
  )
  const rerun = result.failures.find(f => f.rerun !== undefined)
  expect(rerun?.rerun).toBe(
    `pull-requests: ${Array.from({ length: 10 }, (_, i) => 501 + i).join(',')}`
  )
  expect(posts()).toBe(500 + limits.refused.secondary)
}, 60_000)
