/**
 * A release pull request squash-merged from `develop`, through the bundled action as the runner
 * starts it: features #11 and #12 squash-merged into `develop`, then #20 (`develop` -> `main`)
 * squash-merged too, so that `main`'s range is one commit. Its message, GitHub's default for a
 * squash merge, lists the commits it carried; their pull requests are read from `#20`'s commits
 * (`pulls/20/commits`) on both paths. A message that names none of them (the title alone) has
 * them read too when the service says pull requests were merged into `develop`.
 */
import { join } from 'node:path'
import { dir, emulator, useDiscoveryWorld } from '../../__fixtures__/discovery-run.js'
import { labeled, runLabels, tagPush, warnings } from '../../__fixtures__/discovery-run.js'
import { seedCommits, writeRepository, type HistoryCommit } from '../../__fixtures__/history.js'
import type { ActionRun } from '../../scripts/run-action.js'

const REPO = 'acme/web'
const R = '/repos/acme/web'
const BUTTON = 'noreply@github.com'

useDiscoveryWorld('discovery-squash-release')

const history = (message: string): HistoryCommit[] => [
  { id: 'start', message: 'Start', parents: [] },
  { id: 'search', message: 'Add search (#11)', parents: ['start'], pulls: [11], committer: BUTTON },
  {
    id: 'login',
    message: 'Fix the login (#12)',
    parents: ['search'],
    pulls: [12],
    committer: BUTTON
  },
  { id: 'release', message, parents: ['start'], pulls: [20], committer: BUTTON }
]
const DEFAULT_MESSAGE = 'Release 1.1 (#20)\n\n* Add search (#11)\n\n* Fix the login (#12)'

async function pushTag(
  name: string,
  message: string,
  withHistory: boolean,
  /** whether #11 and #12 went into develop (else into branches of their own, as if unrelated) */
  intoDevelop = true
): Promise<ActionRun> {
  const commits = history(message)
  const repoDir = join(dir, `${name}-${withHistory ? 'git' : 'compare'}`)
  const tags = { 'v1.0.0': 'start', 'v1.1.0': 'release' }
  const shas = writeRepository(repoDir, commits, 'release', tags)
  emulator.seed({
    pulls: {
      [REPO]: [
        { number: 11, base_ref: intoDevelop ? 'develop' : 'main', head_ref: 'search' },
        { number: 12, base_ref: intoDevelop ? 'develop' : 'main', head_ref: 'login' },
        {
          number: 20,
          head_ref: 'develop',
          commits: [shas['search'] as string, shas['login'] as string]
        }
      ]
    },
    commits: { [REPO]: seedCommits(commits, shas) },
    tags: { [REPO]: { 'v1.0.0': shas['start'] as string, 'v1.1.0': shas['release'] as string } }
  })
  return runLabels(
    {},
    {
      eventName: 'release',
      event: { action: 'published', release: { tag_name: 'v1.1.0' } },
      sha: shas['release'],
      ref: 'refs/tags/v1.1.0',
      ...(withHistory ? { workspace: repoDir } : {})
    }
  )
}

describe('a release squash-merged from develop labels the pull requests it carried', () => {
  test.each([
    ['with the history (git)', true],
    ['without it (compare)', false]
  ])('%s: #11, #12 and #20', async (_name, withHistory) => {
    const run = await pushTag('squash-release', DEFAULT_MESSAGE, withHistory)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(labeled()).toEqual([11, 12, 20])
    expect(run.stdout).toContain(
      'tag v1.1.0: the commits of #20 (squash-merged from a branch other pull requests were ' +
        'merged into) read as part of the range'
    )
    const reads = emulator.requests.filter(r => r.method === 'GET').map(r => r.path)
    // #20's commits, one page; its branch's own subjects show #11 and #12: no question asked.
    expect(reads.filter(p => p === `${R}/pulls/20/commits`)).toHaveLength(1)
    expect(reads.filter(p => p === `${R}/pulls`)).toEqual([])
  })

  test.each([
    ['with the history (git)', true],
    ['without it (compare)', false]
  ])(
    'a squash message that names none of them (the pull request title only), %s: #11, #12 and #20, from one question about develop',
    async (_name, withHistory) => {
      const run = await pushTag('squash-title', 'Release 1.1 (#20)', withHistory)
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      expect(labeled()).toEqual([11, 12, 20])
      const reads = emulator.requests.filter(r => r.method === 'GET').map(r => r.path)
      // One list for the run (which branches did closed pull requests go into? develop), then
      // #20's commits, once each.
      expect(reads.filter(p => p === `${R}/pulls`)).toHaveLength(1)
      expect(emulator.requests.find(r => r.path === `${R}/pulls`)?.url).toContain('state=closed')
      expect(reads.filter(p => p === `${R}/pulls/20/commits`)).toHaveLength(1)
    }
  )

  test('a title-only squash from a branch no pull request went into: the release alone, after one question', async () => {
    const run = await pushTag('squash-lone', 'Release 1.1 (#20)', false, false)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(labeled()).toEqual([20])
    const reads = emulator.requests.filter(r => r.method === 'GET').map(r => r.path)
    expect(reads.filter(p => p === `${R}/pulls`)).toHaveLength(1)
    expect(reads.some(p => p.endsWith('/commits') && p.includes('/pulls/'))).toBe(false)
  })
})

describe('a squash of a squash, and a release squash commit that is also cherry-picked', () => {
  /**
   * Features #11 and #12 squash-merged into `develop`; #20 (`develop` -> `release`)
   * squash-merged; #30 (`release` -> `main`) squash-merged too. #30's default message lists #20's
   * commit, whose own message lists #11 and #12: each level's commits are read once.
   */
  test.each([
    ['with the history (git)', true],
    ['without it (compare)', false]
  ])('%s: #11, #12, #20 and #30, each pull request commit list read once', async (_n, git) => {
    const candidate = 'Release candidate 1.1 (#20)\n\n* Add search (#11)\n\n* Fix the login (#12)'
    const commits: HistoryCommit[] = [
      { id: 'start', message: 'Start', parents: [] },
      { id: 'search', message: 'Add search (#11)', parents: ['start'], committer: BUTTON },
      { id: 'login', message: 'Fix the login (#12)', parents: ['search'], committer: BUTTON },
      { id: 'rc', message: candidate, parents: ['start'], committer: BUTTON },
      {
        id: 'final',
        message: `Release 1.1 (#30)\n\n* ${candidate.replace(/\n\n\*/g, '\n\n  *')}`,
        parents: ['start'],
        committer: BUTTON
      }
    ]
    const repoDir = join(dir, `squash-of-squash-${git ? 'git' : 'compare'}`)
    const shas = writeRepository(repoDir, commits, 'final', {
      'v1.0.0': 'start',
      'v1.1.0': 'final'
    })
    const sha = (id: string) => shas[id] as string
    emulator.seed({
      pulls: {
        [REPO]: [
          { number: 11, base_ref: 'develop', head_ref: 'search' },
          { number: 12, base_ref: 'develop', head_ref: 'login' },
          {
            number: 20,
            base_ref: 'release',
            head_ref: 'develop',
            commits: [sha('search'), sha('login')]
          },
          { number: 30, head_ref: 'release', commits: [sha('rc')] }
        ]
      },
      commits: { [REPO]: seedCommits(commits, shas) },
      tags: { [REPO]: { 'v1.0.0': sha('start'), 'v1.1.0': sha('final') } }
    })
    const run = await runLabels({}, tagPush('v1.1.0', sha('final'), git ? repoDir : undefined))
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(labeled()).toEqual([11, 12, 20, 30])
    const reads = emulator.requests.filter(r => r.method === 'GET').map(r => r.path)
    expect(reads.filter(p => p === `${R}/pulls/30/commits`)).toHaveLength(1)
    expect(reads.filter(p => p === `${R}/pulls/20/commits`)).toHaveLength(1)
  })

  /**
   * #20's squash commit on `main`, and the same commit cherry-picked into `release-1.1` (its
   * subject keeps `(#20)`), merged back into `main` by #25: both name #20, its commits are read once.
   */
  test('a release squash commit and its cherry-pick in one range: #20 read once', async () => {
    const release = `Release 1.1 (#20)\n\n* Add search (#11)\n\n* Fix the login (#12)`
    const commits: HistoryCommit[] = [
      { id: 'start', message: 'Start', parents: [] },
      { id: 'search', message: 'Add search (#11)', parents: ['start'], committer: BUTTON },
      { id: 'login', message: 'Fix the login (#12)', parents: ['search'], committer: BUTTON },
      { id: 'release', message: release, parents: ['start'], committer: BUTTON },
      {
        id: 'pick',
        message: `${release}\n\n(cherry picked from commit ${'ab'.repeat(20)})`,
        parents: ['start']
      },
      {
        id: 'back',
        message: 'Merge pull request #25 from acme/release-1.1\n\nRelease 1.1 back',
        parents: ['release', 'pick'],
        committer: BUTTON
      }
    ]
    const repoDir = join(dir, 'squash-picked')
    const shas = writeRepository(repoDir, commits, 'back', { 'v1.0.0': 'start', 'v1.1.0': 'back' })
    const sha = (id: string) => shas[id] as string
    emulator.seed({
      pulls: {
        [REPO]: [
          { number: 11, base_ref: 'develop', head_ref: 'search' },
          { number: 12, base_ref: 'develop', head_ref: 'login' },
          { number: 20, head_ref: 'develop', commits: [sha('search'), sha('login')] },
          { number: 25, head_ref: 'release-1.1' }
        ]
      },
      commits: { [REPO]: seedCommits(commits, shas) },
      tags: { [REPO]: { 'v1.0.0': sha('start'), 'v1.1.0': sha('back') } }
    })
    const run = await runLabels({}, tagPush('v1.1.0', sha('back'), repoDir))
    expect(run.code).toBe(0)
    expect(labeled()).toEqual([11, 12, 20, 25])
    const reads = emulator.requests.filter(r => r.method === 'GET').map(r => r.path)
    expect(reads.filter(p => p === `${R}/pulls/20/commits`)).toHaveLength(1)
  })
})

/**
 * A release that carried 300 squash-merged features: the service lists the first 250 commits
 * of #20 (oldest first), so the 50 newest features are the ones left out, and the warning says so.
 */
test('a release of 300 commits: the 250 the service lists count, the warning names the newer ones left out', async () => {
  const commits: HistoryCommit[] = [{ id: 'start', message: 'Start', parents: [] }]
  const lines: string[] = []
  for (let k = 1; k <= 300; k++) {
    const message = `Feature ${k} (#${100 + k})`
    commits.push({
      id: `f${k}`,
      message,
      parents: [k === 1 ? 'start' : `f${k - 1}`],
      committer: BUTTON
    })
    lines.push(`* ${message}`)
  }
  commits.push({
    id: 'release',
    message: `Release 2.0 (#20)\n\n${lines.join('\n\n')}`,
    parents: ['start'],
    committer: BUTTON
  })
  const shas = writeRepository(join(dir, 'squash-300'), commits, 'release', {
    'v1.0.0': 'start',
    'v2.0.0': 'release'
  })
  const sha = (id: string) => shas[id] as string
  emulator.seed({
    pulls: {
      [REPO]: [
        ...Array.from({ length: 300 }, (_, i) => ({
          number: 101 + i,
          base_ref: 'develop',
          head_ref: `feature-${i + 1}`
        })),
        {
          number: 20,
          head_ref: 'develop',
          commits: Array.from({ length: 300 }, (_, i) => sha(`f${i + 1}`))
        }
      ]
    },
    commits: { [REPO]: seedCommits(commits, shas) },
    tags: { [REPO]: { 'v1.0.0': sha('start'), 'v2.0.0': sha('release') } }
  })
  const run = await runLabels({ 'dry-run': 'true' }, tagPush('v2.0.0', sha('release')))
  expect(run.code).toBe(0)
  const would = (run.stdout.match(/would POST \S+\/issues\/(\d+)\/labels/g) ?? []).map(line =>
    Number(/issues\/(\d+)/.exec(line)?.[1])
  )
  expect(would.sort((a, b) => a - b)).toEqual([
    20,
    ...Array.from({ length: 250 }, (_, i) => 101 + i)
  ])
  expect(warnings(run)).toEqual([
    '::warning::tag v2.0.0: #20 lists 250 commits, the most the service lists for a pull ' +
      'request (its oldest): pull requests only its newer commits name are not labeled; list ' +
      'them in `pull-requests`'
    // 251 pull requests from the previous release, nothing skipped or crossed: no count warning.
  ])
})
