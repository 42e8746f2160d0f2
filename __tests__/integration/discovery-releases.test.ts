/**
 * The previous release of a version tag, through the bundled action as the runner starts it:
 * without `since`, the range of tag `v3.19.0` starts at the tag of the highest version below it
 * among tags of its form (`v1.2.3`), from their merge base, on the git path (`fetch-depth: 0`)
 * and on the compare path (tags listed by the service): a project that tags releases on release
 * branches and development tags on `main`, and a project whose 4.x line is merged into 5.x. The
 * log names the tag taken, and a range larger than one release usually is warns.
 */
import { execFileSync } from 'node:child_process'
import { useDiscoveryWorld } from '../../__fixtures__/discovery-run.js'
import { labeled, pushTag, warnings, type Project } from '../../__fixtures__/discovery-run.js'
import { git, type HistoryCommit } from '../../__fixtures__/history.js'

useDiscoveryWorld('discovery-releases')

/**
 * Release branches: `main` carries only development tags (`dev-v3.0.0`, far back); releases
 * are tagged on `release-3.18` and `release-3.19`, cut from main, fixes cherry-picked into them
 * (`git cherry-pick -x`: the subject keeps the `(#N)`). #1 and #2 shipped in 3.18.x (v3.18.0
 * and the cherry-picked #3 in v3.18.6, with #4 merged into release-3.18 alone). Since 3.18 was
 * cut: #3, #5 and #6 on main before 3.19 was cut, and #7, fixed on main after the cut and
 * cherry-picked into release-3.19. A reviewer lists #3, #5, #6 and #7 for v3.19.0 (from the
 * merge base of v3.18.6 and v3.19.0); the nearest tag, dev-v3.0.0, would add #1 and #2.
 */
const pick = (subject: string) => `${subject}\n\n(cherry picked from commit ${'ab'.repeat(20)})`
const RELEASE_BRANCHES: Project = {
  history: [
    { id: 'start', message: 'Start', parents: [] },
    { id: 'm1', message: 'Add search (#1)', parents: ['start'], pulls: [1] },
    { id: 'm2', message: 'Add export (#2)', parents: ['m1'], pulls: [2] },
    { id: 'r18', message: 'Release 3.18.0', parents: ['m2'] },
    { id: 'm3', message: 'Fix the crash (#3)', parents: ['m2'], pulls: [3] },
    { id: 'r18-3', message: pick('Fix the crash (#3)'), parents: ['r18'] },
    { id: 'r18-4', message: 'Fix the 3.18 upgrade (#4)', parents: ['r18-3'], pulls: [4] },
    { id: 'm5', message: 'Add filters (#5)', parents: ['m3'], pulls: [5] },
    { id: 'm6', message: 'Speed up the start (#6)', parents: ['m5'], pulls: [6] },
    { id: 'r19', message: 'Release 3.19.0-rc.1', parents: ['m6'] },
    { id: 'm7', message: 'Fix the filters (#7)', parents: ['m6'], pulls: [7] },
    { id: 'r19-7', message: pick('Fix the filters (#7)'), parents: ['r19'] },
    { id: 'r19-final', message: 'Release 3.19.0', parents: ['r19-7'] }
  ],
  pulls: [
    ...[1, 2, 3, 5, 6, 7].map(number => ({ number })),
    { number: 4, base_ref: 'release-3.18' }
  ],
  tags: {
    'dev-v3.0.0': 'start',
    'v3.18.0': 'r18',
    'v3.18.6': 'r18-4',
    'v3.19.0-rc.1': 'r19',
    'v3.19.0': 'r19-final',
    'v3.20.0-dev': 'm7'
  }
}

describe('release branches: pushing the next version labels exactly the pull requests since the previous version', () => {
  test.each([
    ['with the history (git)', true],
    ['without it (compare, the tag list read from the service)', false]
  ])('%s', async (_name, withHistory) => {
    const run = await pushTag('release-branches', RELEASE_BRANCHES, 'v3.19.0', withHistory)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(run.stdout).toContain(
      'tag v3.19.0: previous release v3.18.6 by version order (the highest final release of the ' +
        'form v1.2.3 below v3.19.0, of 6 tags listed ' +
        (withHistory ? 'with git)' : 'by the service)')
    )
    expect(run.stdout).toContain(
      'tag v3.19.0: pre-releases skipped, as a final release counts from the previous final ' +
        'release: v3.19.0-rc.1'
    )
    // From v3.18.6, the release candidate skipped: all that shipped since 3.18, as release notes list it.
    expect(labeled()).toEqual([3, 5, 6, 7])
  })

  test.each([
    ['with the history (git)', true],
    ['without it (compare)', false]
  ])(
    'the release candidate itself, %s: from the highest tag below it, v3.18.6',
    async (_n, withHistory) => {
      const run = await pushTag('rc', RELEASE_BRANCHES, 'v3.19.0-rc.1', withHistory)
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      expect(run.stdout).toContain(
        'tag v3.19.0-rc.1: previous release v3.18.6 by version order (the highest tag of the form'
      )
      expect(run.stdout).not.toContain('pre-releases skipped')
      expect(labeled()).toEqual([3, 5, 6])
    }
  )

  test.each([
    ['with the history (git)', true],
    ['without it (compare)', false]
  ])(
    'a release without a release candidate, %s: from the previous release branch',
    async (_n, withHistory) => {
      const { 'v3.19.0-rc.1': _rc, ...tags } = RELEASE_BRANCHES.tags
      const run = await pushTag('no-rc', { ...RELEASE_BRANCHES, tags }, 'v3.19.0', withHistory)
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      expect(run.stdout).toContain('tag v3.19.0: previous release v3.18.6 by version order')
      expect(run.stdout).toMatch(withHistory ? /read with git/ : /read with the compare endpoint/)
      expect(labeled()).toEqual([3, 5, 6, 7])
    }
  )
})

/**
 * Two release lines: 4.x lives on and is merged into 5.x (`main`) by hand. #10 fixed 4.x before
 * v5.0.0-beta.3 and was merged into main then; after beta.3, #11 (a security fix) and #12 went
 * into 4.x (v4.20.0), 4.x was merged into main again, and #21 and #22 went into main. A
 * reviewer lists #11, #12, #21 and #22 for v5.0.0; the nearest tag (v4.20.0, the other line)
 * would leave out the 4.x fixes merged into 5.x here.
 */
const TWO_LINES: Project = {
  history: [
    { id: 'start', message: 'Start', parents: [] },
    { id: 'a1', message: 'Fix the login (#10)', parents: ['start'], pulls: [10] },
    { id: 'b1', message: 'New API (#20)', parents: ['start'], pulls: [20] },
    { id: 'merge-a1', message: "Merge branch '4.x'", parents: ['b1', 'a1'] },
    { id: 'b2', message: 'New storage (#21)', parents: ['merge-a1'], pulls: [21] },
    { id: 'a2', message: 'Escape the search (#11)', parents: ['a1'], pulls: [11] },
    { id: 'a3', message: 'Fix the export (#12)', parents: ['a2'], pulls: [12] },
    { id: 'merge-a3', message: "Merge branch '4.x'", parents: ['b2', 'a3'] },
    { id: 'b3', message: 'Prepare 5.0.0 (#22)', parents: ['merge-a3'], pulls: [22] }
  ],
  pulls: [
    ...[10, 11, 12].map(number => ({ number, base_ref: '4.x' })),
    ...[20, 21, 22].map(number => ({ number }))
  ],
  tags: {
    'v4.19.0': 'a1',
    'v5.0.0-beta.3': 'merge-a1',
    'v4.20.0': 'a3',
    'v5.0.0': 'b3'
  }
}

describe('two release lines: the 5.x release counts from the previous final release, the 4.x line', () => {
  test.each([
    ['with the history (git)', true],
    ['without it (compare)', false]
  ])('%s', async (_name, withHistory) => {
    const run = await pushTag('two-lines', TWO_LINES, 'v5.0.0', withHistory)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(run.stdout).toContain('tag v5.0.0: previous release v4.20.0 by version order')
    expect(run.stdout).toContain(
      'pre-releases skipped, as a final release counts from the previous final release: v5.0.0-beta.3'
    )
    // Since the previous final release, v4.20.0: 5.x's own work, beta.3's #20 included; the
    // 4.x fixes merged in shipped in v4.20.0 already.
    expect(labeled()).toEqual([20, 21, 22])
  })

  test('pushing v4.20.0 on the 4.x line: from v4.19.0, whatever 5.x holds', async () => {
    const run = await pushTag('two-lines-4', TWO_LINES, 'v4.20.0', true)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(run.stdout).toContain('tag v4.20.0: previous release v4.19.0 by version order')
    expect(labeled()).toEqual([11, 12])
  })
})

describe('an unusually large range', () => {
  // v1.0.0 then one pull request merged with a merge commit over 1,000 branch commits; with
  // `crossing`, one of them is another release's commit (`Release 1.5.0`): evidence that v1.0.0
  // is not the previous release.
  const projectOf = (crossing: boolean, release = 'Release 1.5.0'): Project => {
    const history: HistoryCommit[] = [{ id: 'start', message: 'Start', parents: [] }]
    for (let i = 1; i <= 1000; i++) {
      const message = crossing && i === 500 ? release : `Work ${i}`
      history.push({ id: `w${i}`, message, parents: [i === 1 ? 'start' : `w${i - 1}`] })
    }
    history.push({
      id: 'merge',
      message: 'Merge pull request #7 from acme/rewrite\n\nRewrite',
      parents: ['start', 'w1000'],
      pulls: [7]
    })
    return {
      history,
      pulls: [{ number: 7, head_ref: 'rewrite' }],
      tags: { 'v1.0.0': 'start', 'v2.0.0': 'merge' }
    }
  }
  const project = projectOf(true)

  test('more than 1,000 commits from the previous release taken, crossing another release: a warning with the hint to set `since`', async () => {
    const run = await pushTag('large', project, 'v2.0.0', true)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([
      '::warning::tag v2.0.0: the range from v1.0.0 holds 1 pull request and 1001 ' +
        'commits, more than one release usually ships, and it holds the release commit of ' +
        '1.5.0: if v1.0.0 is not the previous release, set `since` to it'
    ])
    expect(labeled()).toEqual([7])
  })

  test('more than 1,000 commits and no evidence the start is wrong (a busy release): no warning', async () => {
    const run = await pushTag('large-busy', projectOf(false), 'v2.0.0', true)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(labeled()).toEqual([7])
  })

  test("more than 1,000 commits holding an older line's release (1.4.x merged forward): no warning", async () => {
    // the range from v1.5.0 to v2.0.0 holds `Release 1.4.7`: a version outside the two ends
    const older = projectOf(true, 'Release 1.4.7')
    const project = { ...older, tags: { 'v1.5.0': 'start', 'v2.0.0': 'merge' } }
    const run = await pushTag('large-older-line', project, 'v2.0.0', true)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(labeled()).toEqual([7])
  })

  test('more than 1,000 commits and a tag the rule passed over as no version: the warning names it', async () => {
    const busy = projectOf(false)
    const project = { ...busy, tags: { ...busy.tags, 'v1.5.0.0.1': 'w500' } }
    const run = await pushTag('large-passed-over', project, 'v2.0.0', true)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([
      '::warning::tag v2.0.0: the range from v1.0.0 holds 1 pull request and 1001 commits, more ' +
        'than one release usually ships, and tag v1.5.0.0.1 was passed over as no version: if ' +
        'v1.0.0 is not the previous release, set `since` to it'
    ])
  })

  test('the same range from `since`: no warning (the range is the one asked for)', async () => {
    const run = await pushTag('large-since', project, 'v2.0.0', true, { since: 'v1.0.0' })
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(labeled()).toEqual([7])
  })
})

describe('odd version tags', () => {
  // v5.0.0-beta.1, then #1, then 5.0.0-beta.2 (no `v`), then #2, then v5.0.0-beta.3.
  const history: HistoryCommit[] = [
    { id: 'start', message: 'Start', parents: [] },
    { id: 'one', message: 'Fix the router (#1)', parents: ['start'], pulls: [1] },
    { id: 'two', message: 'Fix the query parser (#2)', parents: ['one'], pulls: [2] }
  ]
  const project: Project = {
    history,
    pulls: [{ number: 1 }, { number: 2 }],
    tags: { 'v5.0.0-beta.1': 'start', '5.0.0-beta.2': 'one', 'v5.0.0-beta.3': 'two' }
  }

  test.each([
    ['with the history (git)', true],
    ['without it (compare)', false]
  ])(
    'a project that tags with and without `v` (expressjs/express): v5.0.0-beta.3 starts at 5.0.0-beta.2, %s',
    async (_name, withHistory) => {
      const run = await pushTag('v-optional', project, 'v5.0.0-beta.3', withHistory)
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      expect(run.stdout).toContain(
        'tag v5.0.0-beta.3: previous release 5.0.0-beta.2 by version order'
      )
      expect(labeled()).toEqual([2])
    }
  )

  test('tags that point at a tree or a blob are passed over: the previous release is a commit (git)', async () => {
    const tagged: Project = {
      ...project,
      tags: { 'v5.0.0-beta.1': 'start', 'v5.0.0-beta.2': 'one', 'v5.0.0-beta.3': 'two' }
    }
    // Both above v5.0.0-beta.2 in version order, below v5.0.0-beta.3.
    const run = await pushTag('tree-tag', tagged, 'v5.0.0-beta.3', true, {}, repoDir => {
      // Only hash-object reads its input: given to a git that does not read it, the write can
      // meet a closed pipe (EPIPE) on a busy machine.
      const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
        cwd: repoDir,
        input: 'notes\n',
        encoding: 'utf8'
      }).trim()
      git(repoDir, 'tag', 'v5.0.0-beta.2.tree', 'HEAD^{tree}')
      git(repoDir, 'tag', '-a', '-m', 'notes', 'v5.0.0-beta.2.notes', blob)
    })
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(run.stdout).toContain(
      'tag v5.0.0-beta.3: previous release v5.0.0-beta.2 by version order'
    )
    expect(labeled()).toEqual([2])
  })
})
