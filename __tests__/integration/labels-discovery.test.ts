// Over 300 lines: discovery's paths (event, git range, compare, linked issues) share one staged repository.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { emulatorClient, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import type { Emulator, SeedCommit } from '../../emulator/index.js'
import type { ServiceClient } from '../../src/client/client.js'
import { applyLabels } from '../../src/labels/apply.js'
import { discoverPullRequests, type DiscoveryContext } from '../../src/labels/discover.js'

const REPO = 'acme/web'
const R = '/repos/acme/web'
const sha = (n: number) => n.toString(16).padStart(2, '0').repeat(20)

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
  client = emulatorClient(emulator, log)
})
afterEach(async () => client.close())

const context = (over: Partial<DiscoveryContext>): DiscoveryContext => ({
  eventName: 'push',
  payload: {},
  sha: sha(9),
  ref: 'refs/heads/main',
  owner: 'acme',
  repo: 'web',
  ...over
})
const discover = (over: Partial<DiscoveryContext>) => discoverPullRequests(client, context(over))
const paths = (method = 'GET') =>
  emulator.requests.filter(r => r.method === method).map(r => r.path)

describe('push', () => {
  const commits: SeedCommit[] = [
    { sha: sha(1), message: 'Start' },
    { sha: sha(2), message: 'Merge pull request #12 from acme/feature\n\nFeature' },
    { sha: sha(3), message: 'Add retries (#14)', pulls: [14] },
    { sha: sha(4), message: 'Tune the pool', pulls: [15] },
    { sha: sha(5), message: 'Fix typo', pulls: [] }
  ]
  const push = { before: sha(1), after: sha(5), commits: [] }

  test('numbers from merge and squash subjects, then the commit lookup for the others', async () => {
    emulator.seed({
      pulls: { [REPO]: [{ number: 12 }, { number: 14 }, { number: 15 }] },
      commits: { [REPO]: commits }
    })

    const found = await discover({ payload: push, sha: sha(5) })

    expect(found).toEqual({
      numbers: [12, 14, 15],
      // `Fix typo` was pushed without a pull request: never silent (issue 43).
      warnings: [
        `push: 1 commit of the range belongs to no pull request (looked up, found in none: ` +
          `${sha(5).slice(0, 7)}). The pull requests that brought them, if any, are not labeled: ` +
          'pick commits with `git cherry-pick -x` (its "cherry picked from commit" line names the ' +
          'original, whose pull request is labeled), or list them in `pull-requests` in a step of ' +
          'their own.'
      ],
      notes: [
        'push: #12 and #14 from commit subjects, #15 from the commit lookup ' +
          `(4 commits, ${sha(1).slice(0, 7)}..${sha(5).slice(0, 7)} read with the compare endpoint)`
      ]
    })
    expect(paths()).toContain(`${R}/compare/${sha(1)}...${sha(5)}`)
    // Only the commits that name no pull request are looked up, the newest first.
    expect(paths().filter(p => p.includes('/commits/'))).toEqual([
      `${R}/commits/${sha(5)}/pulls`,
      `${R}/commits/${sha(4)}/pulls`
    ])
  })

  test('only merged pull requests of the repository count', async () => {
    emulator.seed({
      issues: { [REPO]: [{ number: 7 }] },
      pulls: {
        [REPO]: [{ number: 12 }, { number: 16, merged: false }, { number: 17, merged: false }]
      },
      commits: {
        [REPO]: [
          { sha: sha(1), message: 'Start' },
          { sha: sha(2), message: 'Add retries (#12)' },
          { sha: sha(3), message: 'Draft work (#16)' },
          { sha: sha(4), message: 'Mentions an issue (#7)' },
          { sha: sha(5), message: 'Unmerged branch commit', pulls: [17] },
          { sha: sha(6), message: 'Cherry-picked from a fork' }
        ]
      }
    })
    // The lookup also answers pull requests of other repositories that carry the commit.
    emulator.addFault({
      method: 'GET',
      path: `${R}/commits/${sha(6)}/pulls`,
      fault: {
        kind: 'status',
        status: 200,
        body: [
          {
            number: 40,
            state: 'closed',
            merged_at: '2026-01-01T00:00:00Z',
            url: `${emulator.url}/repos/someone/web-fork/pulls/40`,
            base: { ref: 'main', repo: { full_name: 'someone/web-fork' } }
          }
        ]
      }
    })

    const found = await discover({ payload: { ...push, after: sha(6) }, sha: sha(6) })

    expect(found.numbers).toEqual([12])
    // Four commits tie to no merged pull request of acme/web (an unmerged one, an issue, a fork's).
    expect(found.warnings).toEqual([
      expect.stringContaining('push: 4 commits of the range belong to no pull request')
    ])
    expect(found.notes[1]).toMatch(/left out #16 and #7: .*not merged pull requests of acme\/web/)
  })

  test('a new branch uses the commits of the event; an unreadable range falls back to them', async () => {
    emulator.seed({ pulls: { [REPO]: [{ number: 12 }] } })
    const pushed = [{ id: sha(7), message: 'Add retries (#12)' }]

    const created = await discover({
      payload: { before: '0'.repeat(40), after: sha(7), commits: pushed }
    })
    expect(created.numbers).toEqual([12])

    const forced = await discover({ payload: { before: sha(8), after: sha(7), commits: pushed } })
    expect(forced.numbers).toEqual([12])
    expect(forced.notes[0]).toMatch(/compare endpoint .*404.*using the commits the event lists/)
  })
})

test('pull_request events: that pull request, if it belongs to the repository', async () => {
  const event = (full_name: string) =>
    context({
      eventName: 'pull_request_target',
      payload: { number: 21, pull_request: { number: 21, base: { repo: { full_name } } } }
    })
  expect((await discoverPullRequests(client, event('acme/web'))).numbers).toEqual([21])
  const other = await discoverPullRequests(client, event('acme/api'))
  expect(other.numbers).toEqual([])
  expect(other.warnings[0]).toMatch(/belongs to acme\/api/)
  expect(emulator.requests).toEqual([])
})

describe('ranges (tags, releases, dispatch, deployment)', () => {
  let dir: string
  let repoDir: string
  const shas: Record<string, string> = {}
  const git = (cwd: string, ...args: string[]) =>
    execFileSync(
      'git',
      [
        '-c',
        'user.name=Test',
        '-c',
        'user.email=test@example.com',
        '-c',
        'commit.gpgsign=false',
        ...args
      ],
      { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } }
    ).trim()
  const commit = (name: string, message: string) => {
    git(repoDir, 'commit', '-q', '--allow-empty', '-m', message)
    shas[name] = git(repoDir, 'rev-parse', 'HEAD')
  }

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'labels-git-'))
    repoDir = join(dir, 'full')
    git(dir, 'init', '-q', '-b', 'main', repoDir)
    commit('start', 'Start')
    git(repoDir, 'tag', 'v1.0.0')
    git(repoDir, 'checkout', '-q', '-b', 'feature')
    commit('feature', 'Feature work')
    git(repoDir, 'checkout', '-q', 'main')
    commit('hotfix', 'Hotfix on main (#11)')
    git(
      repoDir,
      'merge',
      '-q',
      '--no-ff',
      'feature',
      '-m',
      'Merge pull request #12 from acme/feature'
    )
    shas['merge'] = git(repoDir, 'rev-parse', 'HEAD')
    commit('squash', 'Add retries (#14)')
    commit('plain', 'Tune the pool')
    git(repoDir, 'tag', '-a', '-m', 'v1.1.0', 'v1.1.0')
    git(dir, 'clone', '-q', '--depth', '1', `file://${repoDir}`, join(dir, 'shallow'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  /** The service's copy of the same history (linear, as compare sees the first parents). */
  const seedService = () =>
    emulator.seed({
      pulls: { [REPO]: [{ number: 11 }, { number: 12 }, { number: 14 }, { number: 15 }] },
      commits: {
        [REPO]: [
          { sha: shas['start'] as string, message: 'Start' },
          { sha: shas['hotfix'] as string, message: 'Hotfix on main (#11)' },
          { sha: shas['merge'] as string, message: 'Merge pull request #12 from acme/feature' },
          { sha: shas['squash'] as string, message: 'Add retries (#14)' },
          { sha: shas['plain'] as string, message: 'Tune the pool', pulls: [15] }
        ]
      },
      refs: { [REPO]: { 'v1.0.0': shas['start'] as string } }
    })

  test('a tag push reads the range from the previous tag with git when the checkout has it', async () => {
    seedService()
    const found = await discover({
      ref: 'refs/tags/v1.1.0',
      sha: shas['plain'],
      payload: { before: '0'.repeat(40), after: shas['plain'] },
      workspace: repoDir
    })

    expect(found.warnings).toEqual([])
    expect(found.numbers).toEqual([11, 12, 14, 15])
    expect(found.notes[0]).toBe(
      'tag v1.1.0: previous release v1.0.0 by version order (the highest final release of the ' +
        'form v1.2.3 below v1.1.0, of 2 tags listed with git)'
    )
    expect(found.notes[1]).toMatch(
      /^tag v1\.1\.0: #11, #12 and #14 from commit subjects, #15 from the commit lookup \(5 commits, v1\.0\.0\.\.[0-9a-f]{7} read with git\)$/
    )
    expect(paths().some(p => p.includes('/compare/'))).toBe(false)
    // Every commit is read, the feature branch's own too; #12's merge commit accounts for it,
    // so it is not looked up.
    expect(paths().filter(p => p.includes('/commits/'))).toEqual([
      `${R}/commits/${shas['plain']}/pulls`
    ])
  })

  test('`since` sets the start of the range (release event, git)', async () => {
    seedService()
    const found = await discover({
      eventName: 'release',
      ref: 'refs/tags/v1.1.0',
      sha: shas['plain'],
      since: shas['merge'],
      workspace: repoDir
    })
    expect(found.numbers).toEqual([14, 15])
    expect(found.notes[0]).toMatch(/read with git/)
    expect(paths().some(p => p.includes('/compare/'))).toBe(false)
  })

  test('without the history (shallow checkout), `since` is read with the compare endpoint', async () => {
    seedService()
    const found = await discover({
      eventName: 'workflow_dispatch',
      sha: shas['plain'],
      since: 'v1.0.0',
      workspace: join(dir, 'shallow')
    })
    expect(found.warnings).toEqual([])
    expect(found.numbers).toEqual([11, 12, 14, 15])
    expect(paths()).toContain(`${R}/compare/v1.0.0...${shas['plain']}`)
    expect(found.notes[0]).toMatch(/read with the compare endpoint/)
  })

  test('no history and no `since`: a warning that says how to fix it, no requests', async () => {
    for (const workspace of [join(dir, 'shallow'), undefined]) {
      const found = await discover({
        eventName: 'deployment',
        sha: shas['plain'] as string,
        workspace
      })
      expect(found.numbers).toEqual([])
      expect(found.warnings).toEqual([expect.stringMatching(/fetch-depth: 0.*`since`/)])
    }
    expect(emulator.requests).toEqual([])
  })

  test('no tag before the commit: a warning asking for `since`', async () => {
    const found = await discover({ eventName: 'release', sha: shas['start'], workspace: repoDir })
    expect(found.numbers).toEqual([])
    expect(found.warnings).toEqual([expect.stringMatching(/no tag comes before .*set `since`/)])
  })

  test('an unreadable range (unknown `since`) is a warning that names the fix', async () => {
    seedService()
    const found = await discover({
      eventName: 'workflow_dispatch',
      sha: shas['plain'],
      since: 'v0.9.9'
    })
    expect(found.numbers).toEqual([])
    expect(found.warnings).toEqual([
      expect.stringMatching(/v0\.9\.9\.\.\..*404.*fetch-depth: 0.*`since`/s)
    ])
  })
})

test('other events without `since` find nothing and say what to set', async () => {
  const found = await discover({ eventName: 'schedule' })
  expect(found.numbers).toEqual([])
  expect(found.warnings[0]).toMatch(/`schedule`.*`since`.*`pull-requests`/)
})

test('applyLabels: `since` from the inputs drives discovery, and each target is labeled once', async () => {
  emulator.seed({
    pulls: {
      [REPO]: [{ number: 12, labels: ['deployed:production'] }, { number: 14 }]
    },
    commits: {
      [REPO]: [
        { sha: sha(1), message: 'Start' },
        { sha: sha(2), message: 'Merge pull request #12 from acme/x' },
        { sha: sha(3), message: 'Follow-up', pulls: [12] },
        { sha: sha(4), message: 'Add retries (#14)', pulls: [14] }
      ]
    },
    refs: { [REPO]: { 'v1.0.0': sha(1) } }
  })

  const result = await applyLabels(client, {
    owner: 'acme',
    repo: 'web',
    inputs: {
      labels: ['deployed:production'],
      removeLabels: [],
      pullRequests: 'auto',
      since: 'v1.0.0',
      labelLinkedIssues: false
    },
    discovery: context({ eventName: 'workflow_dispatch', sha: sha(4) }),
    dryRun: false,
    log
  })

  expect(result.failures).toEqual([])
  expect(result.labeled).toEqual([
    { number: 12, added: [], removed: [] },
    { number: 14, added: ['deployed:production'], removed: [] }
  ])
  expect(writesOf(emulator.requests).map(w => w.path)).toEqual([`${R}/issues/14/labels`])
  // Their labels came with the answers that found them: no target's labels are read again.
  expect(paths().filter(p => /\/issues\/\d+\/labels$/.test(p))).toEqual([])
  expect(log.text()).toMatch(/info: Labels: workflow_dispatch: #12 and #14 from commit subjects/)
})

test('more commits naming none than lookups: the warning names what was left out and why, not `since`', async () => {
  // 305 main-line commits that name no pull request; the oldest one is #40's.
  const long = (n: number) => n.toString(16).padStart(4, '0').repeat(10)
  const commits: SeedCommit[] = [{ sha: long(1), message: 'Start' }]
  for (let n = 2; n <= 306; n++)
    commits.push({ sha: long(n), message: `Change ${n}`, pulls: n === 2 ? [40] : [] })
  emulator.seed({
    pulls: { [REPO]: [{ number: 40 }] },
    commits: { [REPO]: commits },
    refs: { [REPO]: { 'v1.0.0': long(1) } }
  })

  const found = await discover({ eventName: 'workflow_dispatch', sha: long(306), since: 'v1.0.0' })

  expect(paths().filter(p => p.endsWith('/pulls') && p.includes('/commits/'))).toHaveLength(300)
  expect(found.numbers).toEqual([])
  // One warning for both: the 300 looked up that belong to none, the 5 never looked up.
  expect(found.warnings).toEqual([
    'workflow_dispatch: 300 commits of the range belong to no pull request (looked up, found ' +
      'in none: 0132013, 0131013, 0130013, 012f012, 012e012, 012d012, 012c012, 012b012, 012a012, ' +
      '0129012, ... and 290 more); 5 commits that name no pull request were not looked up (5 on ' +
      'the main line, 0 on merged branches: 0006000, 0005000, 0004000, 0003000, 0002000), because ' +
      'one run looks up at most 300 commits (main-line commits first, then commits of merged ' +
      'branches that no pull request found accounts for). The pull requests that brought them, ' +
      'if any, are not labeled: pick commits with `git cherry-pick -x` (its "cherry picked from ' +
      'commit" line names the original, whose pull request is labeled), or list them in ' +
      '`pull-requests` in a step of their own.'
  ])
})
