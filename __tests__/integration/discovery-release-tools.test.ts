/**
 * What a release shipped, as release tools count it, through the bundled action as the runner
 * starts it, on both paths (git with the history, compare without): a final release after its
 * release candidates counts from the previous final release; two-number and date tags are
 * versions; a hotfix branch cut from `develop` owns only its own commits; a range from the
 * previous release that holds no commit warns.
 */
import { useDiscoveryWorld } from '../../__fixtures__/discovery-run.js'
import { labeled, pushTag, warnings, type Project } from '../../__fixtures__/discovery-run.js'
import type { HistoryCommit } from '../../__fixtures__/history.js'

useDiscoveryWorld('discovery-release-tools')

const BUTTON = 'noreply@github.com'
const BOTH = [
  ['with the history (git)', true],
  ['without it (compare)', false]
] as const

/** `start`, then squash-merged pull requests `numbers` on main, one commit each (`p<n>`). */
function squashes(numbers: number[], from = 'start'): HistoryCommit[] {
  return numbers.map((n, i) => ({
    id: `p${n}`,
    message: `Change ${n} (#${n})`,
    parents: [i === 0 ? from : `p${numbers[i - 1]}`],
    pulls: [n],
    committer: BUTTON
  }))
}
const START: HistoryCommit = { id: 'start', message: 'Start', parents: [] }
const pullsOf = (numbers: number[]) => numbers.map(number => ({ number, head_ref: `f-${number}` }))

describe('a final release after its release candidates counts from the previous final release', () => {
  test.each(BOTH)(
    'tagged on its release candidate commit, %s: every pull request since v1.0.0',
    async (_n, withHistory) => {
      const project: Project = {
        history: [START, ...squashes([1, 2, 3, 4])],
        pulls: pullsOf([1, 2, 3, 4]),
        tags: { 'v1.0.0': 'start', 'v1.1.0-rc.1': 'p2', 'v1.1.0-rc.2': 'p4', 'v1.1.0': 'p4' }
      }
      const run = await pushTag('final-on-rc', project, 'v1.1.0', withHistory)
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      expect(labeled()).toEqual([1, 2, 3, 4])
      expect(run.stdout).toContain(
        'tag v1.1.0: previous release v1.0.0 by version order (the highest final release of the form v1.2.3 below v1.1.0'
      )
      expect(run.stdout).toContain(
        'tag v1.1.0: pre-releases skipped, as a final release counts from the previous final ' +
          'release: v1.1.0-rc.1, v1.1.0-rc.2'
      )
    }
  )

  test.each(BOTH)(
    'one "prepare release" commit after its release candidate, %s: that one and all before',
    async (_n, withHistory) => {
      const project: Project = {
        history: [START, ...squashes([1, 2, 3, 4, 5])],
        pulls: pullsOf([1, 2, 3, 4, 5]),
        tags: { 'v1.0.0': 'start', 'v1.1.0-rc.1': 'p4', 'v1.1.0': 'p5' }
      }
      const run = await pushTag('final-after-rc', project, 'v1.1.0', withHistory)
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      expect(labeled()).toEqual([1, 2, 3, 4, 5])
    }
  )

  test.each(BOTH)(
    'the release candidate itself, %s: from the previous tag, release candidate or final',
    async (_n, withHistory) => {
      const project: Project = {
        history: [START, ...squashes([1, 2, 3, 4])],
        pulls: pullsOf([1, 2, 3, 4]),
        tags: { 'v1.0.0': 'start', 'v1.1.0-rc.1': 'p2', 'v1.1.0-rc.2': 'p4' }
      }
      const run = await pushTag('rc-2', project, 'v1.1.0-rc.2', withHistory)
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      expect(labeled()).toEqual([3, 4])
      expect(run.stdout).toContain('tag v1.1.0-rc.2: previous release v1.1.0-rc.1 by version order')
    }
  )
})

describe('two-number and date tags are versions', () => {
  const project: Project = {
    history: [START, ...squashes([1, 2, 3, 4])],
    pulls: pullsOf([1, 2, 3, 4]),
    // v6.1.0.0.1 names no version (five numbers) and sorts between v6.1 and v6.1.1.
    tags: { 'v6.0.6': 'start', 'v6.1': 'p2', 'v6.1.0.0.1': 'p3', 'v6.1.1': 'p4' }
  }

  test.each(BOTH)('v6.1.1 starts at v6.1, %s', async (_n, withHistory) => {
    const run = await pushTag('two-numbers', project, 'v6.1.1', withHistory)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(labeled()).toEqual([3, 4])
    expect(run.stdout).toContain('tag v6.1.1: previous release v6.1 by version order')
    expect(run.stdout).toContain(
      'tag v6.1.1: passed over as no version (two to four numbers after the prefix): v6.1.0.0.1'
    )
  })

  test.each(BOTH)('v6.1 starts at v6.0.6, %s', async (_n, withHistory) => {
    const run = await pushTag('two-numbers-minor', project, 'v6.1', withHistory)
    expect(run.code).toBe(0)
    expect(labeled()).toEqual([1, 2])
    expect(run.stdout).toContain('tag v6.1: previous release v6.0.6 by version order')
  })

  test.each(BOTH)('2022.06.22.1 starts at 2022.06.22, %s', async (_n, withHistory) => {
    const dates: Project = {
      history: [START, ...squashes([1, 2, 3])],
      pulls: pullsOf([1, 2, 3]),
      tags: { '2022.06.21': 'start', '2022.06.22': 'p1', '2022.06.22.1': 'p3' }
    }
    const run = await pushTag('dates', dates, '2022.06.22.1', withHistory)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(labeled()).toEqual([2, 3])
    expect(run.stdout).toContain('tag 2022.06.22.1: previous release 2022.06.22 by version order')
  })
})

/**
 * Git-flow: #1 squash-merged into develop, #2 merged into it with a merge commit, #3 squashed;
 * the release #10 merges develop into main. Then #4 goes into develop, and a hotfix branch is
 * started from develop (so it holds #4's commit), fixed, and merged into main by #11. The hotfix
 * owns what it adds over main (its fix and #4's commit, which keeps its own pull request); the
 * release owns develop's commits up to it.
 */
const GIT_FLOW: Project = {
  history: [
    START,
    { id: 'd1', message: 'Add search (#1)', parents: ['start'], committer: BUTTON },
    { id: 'f2', message: 'Work on the export', parents: ['d1'] },
    {
      id: 'd2',
      message: 'Merge pull request #2 from acme/export\n\nAdd the export',
      parents: ['d1', 'f2'],
      committer: BUTTON
    },
    { id: 'd3', message: 'Fix the login (#3)', parents: ['d2'], committer: BUTTON },
    {
      id: 'release',
      message: 'Merge pull request #10 from acme/develop\n\nRelease 1.1',
      parents: ['start', 'd3'],
      committer: BUTTON
    },
    { id: 'd4', message: 'Add filters (#4)', parents: ['d3'], committer: BUTTON },
    // The service's lookup ties the fix to the hotfix's pull request, as it ties a branch's commits.
    { id: 'h1', message: 'Fix the crash', parents: ['d4'], pulls: [11] },
    {
      id: 'hotfix',
      message: 'Merge pull request #11 from acme/hotfix/crash\n\nFix the crash',
      parents: ['release', 'h1'],
      committer: BUTTON
    }
  ],
  pulls: [
    { number: 1, base_ref: 'develop', head_ref: 'search' },
    { number: 2, base_ref: 'develop', head_ref: 'export' },
    { number: 3, base_ref: 'develop', head_ref: 'login' },
    { number: 4, base_ref: 'develop', head_ref: 'filters' },
    { number: 10, head_ref: 'develop' },
    { number: 11, head_ref: 'hotfix/crash' }
  ],
  tags: { 'v1.0.0': 'start', 'v1.1.0': 'release', 'v1.1.1': 'hotfix' }
}

describe('a hotfix branch cut from develop leaves every pull request of the release labeled', () => {
  test.each(BOTH)('from the previous release, %s', async (_n, withHistory) => {
    const run = await pushTag('hotfix', GIT_FLOW, 'v1.1.1', withHistory, { since: 'v1.0.0' })
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(labeled()).toEqual([1, 2, 3, 4, 10, 11])
  })

  test.each(BOTH)('the hotfix alone, %s: its fix and #4, taken from develop', async (_n, git) => {
    const run = await pushTag('hotfix-alone', GIT_FLOW, 'v1.1.1', git)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(run.stdout).toContain('tag v1.1.1: previous release v1.1.0 by version order')
    expect(labeled()).toEqual([4, 11])
  })
})

/**
 * The same, with the features rebase-merged into develop (subjects that name no pull request,
 * found by the commit lookup): were the hotfix to own develop's commits, the service would say
 * no pull request went into `hotfix/crash`, and they would count as the hotfix's own.
 */
const REBASED: Project = {
  history: [
    START,
    { id: 'd1', message: 'Add search', parents: ['start'], pulls: [1], committer: BUTTON },
    { id: 'd3', message: 'Fix the login', parents: ['d1'], pulls: [3], committer: BUTTON },
    {
      id: 'release',
      message: 'Merge pull request #10 from acme/develop\n\nRelease 1.1',
      parents: ['start', 'd3'],
      pulls: [10],
      committer: BUTTON
    },
    { id: 'h1', message: 'Fix the crash', parents: ['d3'], pulls: [11] },
    {
      id: 'hotfix',
      message: 'Merge pull request #11 from acme/hotfix/crash\n\nFix the crash',
      parents: ['release', 'h1'],
      pulls: [11],
      committer: BUTTON
    }
  ],
  pulls: [
    { number: 1, base_ref: 'develop', head_ref: 'search' },
    { number: 3, base_ref: 'develop', head_ref: 'login' },
    { number: 10, head_ref: 'develop' },
    { number: 11, head_ref: 'hotfix/crash' }
  ],
  tags: { 'v1.0.0': 'start', 'v1.1.1': 'hotfix' }
}

describe('a hotfix branch cut from develop owns only what it adds over main', () => {
  test.each(BOTH)("rebase-merged features are the release's, %s", async (_n, withHistory) => {
    const run = await pushTag('hotfix-rebased', REBASED, 'v1.1.1', withHistory)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(labeled()).toEqual([1, 3, 10, 11])
  })
})

/**
 * esphome's and prometheus's releases: fixes merged into `dev`, then cherry-picked by hand onto a
 * bump branch merged into the release branch by a pull request. Each fix's `(#N)` counts: N
 * went into `dev`, not into the release branch, so the subject is N's change taken along, not a
 * quote of a pull request whose own commit is on the release branch.
 */
const BUMP: Project = {
  history: [
    START,
    { id: 'd1', message: 'Fix the sensor (#1)', parents: ['start'], committer: BUTTON },
    { id: 'b1', message: 'Fix the sensor (#1)', parents: ['start'] },
    {
      id: 'bump',
      message: 'Merge pull request #5 from acme/bump-1.0.1\n\n1.0.1',
      parents: ['start', 'b1'],
      committer: BUTTON
    }
  ],
  pulls: [
    { number: 1, base_ref: 'dev', head_ref: 'sensor' },
    { number: 5, base_ref: 'release', head_ref: 'bump-1.0.1' }
  ],
  tags: { 'v1.0.0': 'start', 'v1.0.1': 'bump' }
}

describe('a fix cherry-picked from dev onto a release branch counts', () => {
  test.each(BOTH)('by its subject, %s', async (_n, withHistory) => {
    const run = await pushTag('bump', BUMP, 'v1.0.1', withHistory)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(labeled()).toEqual([1, 5])
  })
})

describe('a range from the previous release that holds no commit', () => {
  test.each(BOTH)('warns, naming the tag taken, %s', async (_n, withHistory) => {
    const project: Project = {
      history: [START, ...squashes([1])],
      pulls: pullsOf([1]),
      tags: { 'v1.0.0': 'p1', 'v1.0.1': 'p1' }
    }
    const run = await pushTag('empty', project, 'v1.0.1', withHistory)
    expect(run.code).toBe(0)
    expect(labeled()).toEqual([])
    expect(warnings(run)).toEqual([
      expect.stringMatching(
        /^::warning::tag v1\.0\.1: found no pull requests, because the range from the previous release v1\.0\.0 to [0-9a-f]{7} holds no commit \(v1\.0\.0 already holds it\): if the range should start elsewhere, set `since`/
      )
    ])
  })
})
