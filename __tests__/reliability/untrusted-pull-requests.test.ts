/**
 * Issue 38: a pull request's description is its author's text. With `label-linked-issues`, the
 * issues it names are read and labeled only once it is merged, and at most
 * MAX_LINKED_ISSUES.perPull for one pull request and MAX_LINKED_ISSUES.perRun in all; past
 * either a warning names the pull request and what was left out. Requests are counted.
 */
import { TOKEN, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import { FakeClock } from '../../__fixtures__/fake-clock.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import type { Emulator } from '../../emulator/index.js'
import { ServiceClient } from '../../src/client/client.js'
import { applyLabels } from '../../src/labels/apply.js'
import type { DiscoveryContext } from '../../src/labels/discover.js'
import { MAX_LINKED_ISSUES } from '../../src/labels/references.js'

const REPO = 'acme/web'
const R = '/repos/acme/web'

let emulator: Emulator
let client: ServiceClient
let log: MemoryLog
beforeAll(async () => {
  emulator = await withEmulator()
})
afterAll(async () => emulator.close())
beforeEach(() => {
  emulator.reset()
  log = new MemoryLog()
  // The 1 s between writes passes on a fake clock: dozens of labels written, no waiting.
  client = new ServiceClient({
    baseUrl: emulator.url,
    token: TOKEN,
    apiVersion: '2026-03-10',
    maxRetries: 0,
    userAgent: 'record-deployment-test',
    random: () => 0,
    clock: new FakeClock(),
    log
  })
})
afterEach(async () => client.close())

/** `fixes #from` ... `fixes #to`, one a line. */
const fixes = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `fixes #${from + i}`).join('\n')
const issues = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ number: from + i }))

const pullRequestTarget = (number: number): DiscoveryContext => ({
  eventName: 'pull_request_target',
  payload: { number, pull_request: { number, base: { repo: { full_name: REPO } } } },
  sha: 'c'.repeat(40),
  ref: 'refs/heads/main',
  owner: 'acme',
  repo: 'web'
})

const label = (pullRequests: 'auto' | number[], discovery = pullRequestTarget(12)) =>
  applyLabels(client, {
    owner: 'acme',
    repo: 'web',
    inputs: {
      labels: ['deployed:preview'],
      removeLabels: [],
      pullRequests,
      labelLinkedIssues: true
    },
    discovery,
    dryRun: false,
    log
  })

/** The issues read other than the pull requests themselves. */
const issueReads = (pulls: number[]) =>
  emulator.requests.filter(r => {
    const n = /^\/repos\/acme\/web\/issues\/(\d+)$/.exec(r.path)?.[1]
    return r.method === 'GET' && n !== undefined && !pulls.includes(Number(n))
  }).length

describe('label-linked-issues reads what a pull request body names only within bounds', () => {
  test('an open pull request on pull_request_target naming 1,500 issues: none is read, only the pull request is labeled', async () => {
    emulator.seed({
      issues: { [REPO]: issues(1, 1500) },
      pulls: { [REPO]: [{ number: 1512, merged: false, body: fixes(1, 1500) }] }
    })

    const result = await label('auto', pullRequestTarget(1512))

    expect(result.failures).toEqual([])
    expect(result.labeled.map(l => l.number)).toEqual([1512])
    expect(issueReads([1512])).toBe(0)
    // The pull request read (to learn it is not merged), its labels read, one write.
    expect(emulator.requests).toHaveLength(3)
    expect(writesOf(emulator.requests).map(w => w.path)).toEqual([`${R}/issues/1512/labels`])
    expect(log.text()).toMatch(/linked issues: not read for #1512, not merged/)
  })

  test('a merged pull request naming 1,500 issues: the first 10 are read and labeled, a warning names it and counts the rest', async () => {
    emulator.seed({
      issues: { [REPO]: issues(1, 1500) },
      pulls: { [REPO]: [{ number: 1512, body: fixes(1, 1500) }] }
    })

    const result = await label([1512])

    expect(MAX_LINKED_ISSUES.perPull).toBe(10)
    expect(result.failures).toEqual([])
    expect(result.labeled.map(l => l.number)).toEqual([1512, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(issueReads([1512])).toBe(10)
    expect(result.warnings).toEqual([
      'pull request #1512 names 1500 issues to close; at most 10 are read per pull request: ' +
        'left out 1490 (#11, #12, #13, #14, #15, ... and 1485 more)'
    ])
    expect(log.lines).toContainEqual({ level: 'warning', message: result.warnings[0] })
  })

  test('merged pull requests naming 70 issues in all: 50 are read, a warning names the pull requests and issues left out', async () => {
    // Seven merged pull requests, #101..#107, each closing ten issues of its own.
    const pulls = Array.from({ length: 7 }, (_, i) => ({
      number: 101 + i,
      body: fixes(i * 10 + 1, i * 10 + 10)
    }))
    emulator.seed({ issues: { [REPO]: issues(1, 70) }, pulls: { [REPO]: pulls } })

    const result = await label(pulls.map(p => p.number))

    expect(MAX_LINKED_ISSUES.perRun).toBe(50)
    expect(result.failures).toEqual([])
    expect(issueReads(pulls.map(p => p.number))).toBe(50)
    expect(result.labeled.map(l => l.number).filter(n => n <= 70)).toHaveLength(50)
    expect(result.warnings).toEqual([
      'at most 50 linked issues are read per run: left out 20 ' +
        '(#51, #52, #53, #54, #55, ... and 5 more of pull request #106; #61, #62, #63, #64, #65, ... and 5 more of pull request #107)'
    ])
  })
})
