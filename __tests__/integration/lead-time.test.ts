/**
 * Lead time for changes (`lead-time`, and the summary's line under the labels) through the bundled
 * action and the bundled command line, against the emulator. The step's own clock is the
 * machine's: the process starts with it pinned (__fixtures__/pinned-clock.mjs) to DEPLOYED, so
 * the seconds are exact as long as the step reaches its start within a second. Requests are
 * counted in the emulator's log: the lead time costs none.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { TOKEN, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import { DAY, HOUR, LABEL, REPO, hex, mergedBefore } from '../../__fixtures__/lead-time.js'
import { pinnedClock, squashMerged } from '../../__fixtures__/lead-time.js'
import type { Emulator } from '../../emulator/index.js'
import { projectRoot, runAction } from '../../scripts/run-action.js'

const exec = promisify(execFile)
const R = '/repos/acme/web'

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator()
})
afterAll(async () => emulator.close())
beforeEach(() => emulator.reset())

/** v1.0.0..head: #12, #14 and #15 squash-merged 1 d, 1 h and 3 d before the deployment. */
function seedRange(): string {
  const merged: Array<[number, number]> = [
    [12, DAY],
    [14, HOUR],
    [15, 3 * DAY]
  ]
  emulator.seed({ ...squashMerged(merged), refs: { [REPO]: { 'v1.0.0': hex(1) } } })
  return hex(merged.length + 1)
}

const THREE = {
  count: 3,
  median_seconds: 86400,
  p90_seconds: 3 * DAY,
  max_seconds: 3 * DAY,
  pull_requests: [
    { number: 12, merged_at: mergedBefore(DAY), seconds: DAY },
    { number: 14, merged_at: mergedBefore(HOUR), seconds: HOUR },
    { number: 15, merged_at: mergedBefore(3 * DAY), seconds: 3 * DAY }
  ]
}
const LINE = 'Shipped 3 pull requests: lead time median 1 d, 90th percentile 3 d (longest #15, 3 d)'

async function deployRange(dryRun: boolean) {
  const head = seedRange()
  return runAction(
    { labels: LABEL, since: 'v1.0.0', ...(dryRun ? { 'dry-run': 'true' } : {}) },
    pinnedClock,
    { context: { token: TOKEN, apiUrl: emulator.url, eventName: 'workflow_dispatch', sha: head } }
  )
}

const requestsOf = (emulator: Emulator) => emulator.requests.map(r => `${r.method} ${r.path}`)

/** The step on a push, for the pull requests given as numbers. */
const labelNumbers = (numbers: string) =>
  runAction({ labels: LABEL, 'pull-requests': numbers }, pinnedClock, {
    context: { token: TOKEN, apiUrl: emulator.url, eventName: 'push' }
  })

test('three merged pull requests labeled, merged 1 h, 1 d and 3 d before: lead-time and the summary line say so, no extra request', async () => {
  const run = await deployRange(false)

  expect(run.code).toBe(0)
  expect(JSON.parse(run.outputs['lead-time'] ?? '')).toEqual(THREE)
  expect(run.summary).toContain(`\n${LINE}\n`)
  // under the labels: after the table of what was labeled
  expect(run.summary.indexOf(LINE)).toBeGreaterThan(run.summary.indexOf('| #15 |'))
  // What labeling the range costs anyway: its compare page, each pull request's read (it carries
  // `merged_at` and the labels), one write each. Nothing else.
  expect(requestsOf(emulator)).toEqual([
    `GET ${R}/compare/v1.0.0...${hex(4)}`,
    `GET ${R}/pulls/12`,
    `GET ${R}/pulls/14`,
    `GET ${R}/pulls/15`,
    `POST ${R}/issues/12/labels`,
    `POST ${R}/issues/14/labels`,
    `POST ${R}/issues/15/labels`
  ])
})

test('a dry run sets lead-time and the summary line too, for the pull requests it would label', async () => {
  const run = await deployRange(true)

  expect(run.code).toBe(0)
  expect(writesOf(emulator.requests)).toEqual([])
  expect(JSON.parse(run.outputs['lead-time'] ?? '')).toEqual(THREE)
  expect(run.summary).toContain(`\n${LINE}\n`)
  expect(requestsOf(emulator)).toHaveLength(1 + 3)
})

/** #12 merged 2 d ago, #14 4 h ago, #20 an issue, #21 open (not merged), #22 closed unmerged. */
function seedNumbers() {
  emulator.seed({
    labels: { [REPO]: [{ name: LABEL, color: '0e8a16' }] },
    issues: { [REPO]: [{ number: 20 }] },
    pulls: {
      [REPO]: [
        { number: 12, merged_at: mergedBefore(2 * DAY), labels: [LABEL] },
        { number: 14, merged_at: mergedBefore(4 * HOUR) },
        { number: 21, merged: false },
        { number: 22, merged: false, state: 'closed' }
      ]
    }
  })
}

/** seedNumbers' lead time: #12 and #14 (#12 already carried the label: it shipped all the same). */
const TWO = {
  count: 2,
  median_seconds: 4 * HOUR,
  p90_seconds: 2 * DAY,
  max_seconds: 2 * DAY,
  pull_requests: [
    { number: 12, merged_at: mergedBefore(2 * DAY), seconds: 2 * DAY },
    { number: 14, merged_at: mergedBefore(4 * HOUR), seconds: 4 * HOUR }
  ]
}

test('pull requests given as numbers count when merged; an issue and unmerged pull requests do not; one read each, as before', async () => {
  seedNumbers()

  const run = await labelNumbers('12,14,20,21,22')

  expect(run.code).toBe(0)
  expect(run.outputs['pull-requests']).toBe('12,14,20,21,22')
  expect(JSON.parse(run.outputs['lead-time'] ?? '')).toEqual(TWO)
  expect(run.summary).toContain(
    'Shipped 2 pull requests: lead time median 4 h, 90th percentile 2 d (longest #12, 2 d)'
  )
  // each target's one read (the issue: its labels and `merged_at`), then the writes it needs
  expect(requestsOf(emulator)).toEqual([
    `GET ${R}/issues/12`,
    `GET ${R}/issues/14`,
    `POST ${R}/issues/14/labels`,
    `GET ${R}/issues/20`,
    `POST ${R}/issues/20/labels`,
    `GET ${R}/issues/21`,
    `POST ${R}/issues/21/labels`,
    `GET ${R}/issues/22`,
    `POST ${R}/issues/22/labels`
  ])
})

test('no merged pull request: lead-time is the count 0, and the summary has no line for it', async () => {
  emulator.seed({ issues: { [REPO]: [{ number: 20 }] } })

  const run = await labelNumbers('20')

  expect(run.code).toBe(0)
  expect(JSON.parse(run.outputs['lead-time'] ?? '')).toEqual({
    count: 0,
    median_seconds: null,
    p90_seconds: null,
    max_seconds: null,
    pull_requests: []
  })
  expect(run.summary).not.toContain('Shipped')
})

test("the command line's JSON carries lead-time", async () => {
  seedNumbers()

  const { stdout } = await exec(
    process.execPath,
    [
      join(projectRoot(), 'dist', 'cli.js'),
      '--labels',
      LABEL,
      '--pull-requests',
      '12,14,20',
      '--dry-run',
      'true'
    ],
    {
      env: {
        PATH: process.env['PATH'] ?? '',
        GITHUB_TOKEN: TOKEN,
        GITHUB_API_URL: emulator.url,
        GITHUB_REPOSITORY: REPO,
        ...pinnedClock
      }
    }
  )

  const outputs = JSON.parse(stdout) as Record<string, unknown>
  expect(outputs['lead-time']).toEqual(TWO)
}, 30_000)

test('a pull request whose labeling failed does not count', async () => {
  emulator.seed({
    labels: { [REPO]: [{ name: LABEL, color: '0e8a16' }] },
    pulls: {
      [REPO]: [
        { number: 12, merged_at: mergedBefore(DAY) },
        { number: 13, merged_at: mergedBefore(HOUR), locked: true }
      ]
    }
  })

  const run = await labelNumbers('12,13')

  expect(run.code).toBe(1)
  expect(run.outputs['pull-requests']).toBe('12')
  expect(JSON.parse(run.outputs['lead-time'] ?? '')).toEqual({
    count: 1,
    median_seconds: DAY,
    p90_seconds: DAY,
    max_seconds: DAY,
    pull_requests: [{ number: 12, merged_at: mergedBefore(DAY), seconds: DAY }]
  })
  expect(run.summary).toContain('Shipped 1 pull request: lead time 1 d (#12)')
})
