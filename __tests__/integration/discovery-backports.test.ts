/**
 * Issue 43, through the bundled action as the runner starts it, on both paths (git with the
 * history, compare without): a backport labels its original too, whichever merge button merged
 * it; a pull request merging one release line forward carries what it merges; commits that
 * belong to no pull request are one warning; an organisation's squash-merged branches cost one
 * list, not a question each.
 */
import { join } from 'node:path'
import {
  dir,
  emulator,
  labeled,
  pushTag,
  useDiscoveryWorld
} from '../../__fixtures__/discovery-run.js'
import { warnings, type Project } from '../../__fixtures__/discovery-run.js'
import { git as gitIn, writeRepository, type HistoryCommit } from '../../__fixtures__/history.js'

useDiscoveryWorld('discovery-backports')

const BUTTON = 'noreply@github.com'
const BOTH = [
  ['with the history (git)', true],
  ['without it (compare)', false]
] as const
const START: HistoryCommit = { id: 'start', message: 'Start', parents: [] }
/** Originals merged into main long before (2020), so a copy of their commit comes after. */
const ORIGINAL = { base_ref: 'main', merged_at: '2020-01-01T00:00:00Z' }
const onRelease = (n: number, title: string) => ({
  number: n,
  base_ref: '3.14',
  title,
  head_ref: `backport-${n}`
})
const reads = () => emulator.requests.filter(r => r.method === 'GET').map(r => r.path)

describe('a backport labels its original too', () => {
  // The 3.14 line: v3.14.0 then backports, squash-merged as the bots name them.
  const project: Project = {
    history: [
      START,
      {
        id: 'b1',
        message: '[PR #100/8a3e7b21 backport][3.14] Fix the parser (#101)',
        parents: ['start'],
        pulls: [101],
        committer: BUTTON
      },
      {
        id: 'b2',
        message: 'Fix the cache (cherry-pick #200 for 3.14) (#201)',
        parents: ['b1'],
        pulls: [201],
        committer: BUTTON
      },
      {
        id: 'b3',
        message: '[3.14] Fix the docs (#301)',
        parents: ['b2'],
        pulls: [301],
        committer: BUTTON
      }
    ],
    pulls: [
      { number: 100, ...ORIGINAL },
      { number: 200, ...ORIGINAL },
      { number: 300, ...ORIGINAL },
      onRelease(101, '[PR #100/8a3e7b21 backport][3.14] Fix the parser'),
      onRelease(201, 'Fix the cache (cherry-pick #200 for 3.14)'),
      { ...onRelease(301, '[3.14] Fix the docs'), body: 'Backport of #300' }
    ],
    tags: { 'v3.14.0': 'start', 'v3.14.1': 'b3' }
  }

  test.each(BOTH)(
    "patchback's, a cherry-pick bot's and `Backport of #N`: originals #100, #200 and #300, %s",
    async (_n, git) => {
      const run = await pushTag('bots', project, 'v3.14.1', git)
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      expect(labeled()).toEqual([100, 101, 200, 201, 300, 301])
      expect(run.stdout).toContain(
        'tag v3.14.1: #101 is a backport of #100, #201 is a backport of #200, #301 is a backport of #300'
      )
      expect(run.outputs['pull-requests']).toBe('100,101,200,201,300,301')
      expect(run.summary).toContain('#101 of #100, #201 of #200, #301 of #300')
    }
  )

  // The same fix backported three ways onto 3.14: squash (`[3.14] … (#N) (#B)`), a merge commit
  // over the cherry-pick of N's commit, and a rebase merge (N's subject, committed after N merged).
  const buttons: Project = {
    history: [
      START,
      {
        id: 's',
        message: '[3.14] Fix the parser (#10) (#11)',
        parents: ['start'],
        pulls: [11],
        committer: BUTTON
      },
      { id: 'pick', message: 'Fix the cache (#20)', parents: ['s'], pulls: [21] },
      {
        id: 'm',
        message: 'Merge pull request #21 from acme/backport-20-to-3.14\n\n[3.14] Fix the cache',
        parents: ['s', 'pick'],
        pulls: [21]
      },
      {
        id: 'r',
        message: 'Fix the docs (#30)',
        parents: ['m'],
        pulls: [31],
        committer: BUTTON
      }
    ],
    pulls: [
      { number: 10, ...ORIGINAL },
      { number: 20, ...ORIGINAL },
      { number: 30, ...ORIGINAL },
      onRelease(11, '[3.14] Fix the parser (#10)'),
      onRelease(21, '[3.14] Fix the cache'),
      onRelease(31, '[3.14] Fix the docs')
    ],
    tags: { 'v3.14.0': 'start', 'v3.14.1': 'r' }
  }

  test.each(BOTH)(
    'squash, merge commit and rebase merge give the same targets, %s',
    async (_n, git) => {
      const run = await pushTag('buttons', buttons, 'v3.14.1', git)
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      expect(labeled()).toEqual([10, 11, 20, 21, 30, 31])
      expect(run.stdout).toContain(
        '#11 is a backport of #10, #21 is a backport of #20, #31 is a backport of #30'
      )
    }
  )

  test.each(BOTH)(
    'a commit picked with `git cherry-pick -x` and pushed without a pull request labels the original, %s',
    async (_n, git) => {
      const picked: Project = {
        history: [
          START,
          { id: 'orig', message: 'Fix the crash', parents: ['start'], pulls: [40] },
          {
            id: 'p',
            message: 'Fix the crash\n\n(cherry picked from commit ORIG)',
            parents: ['start']
          }
        ],
        pulls: [{ number: 40, ...ORIGINAL }],
        tags: { 'v3.14.0': 'start', 'v3.14.1': 'p' }
      }
      // The pick names its original's sha, which only the written repository knows.
      const run = await pushTag('pick-x', withSha(picked), 'v3.14.1', git)
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      expect(labeled()).toEqual([40])
    }
  )
})

describe('a backport that names no number finds its original by title', () => {
  test.each(BOTH)(
    'a manual `[3.14] Title (#13138)` labels #12988, merged into main with that title, %s',
    async (_n, git) => {
      const title = 'Keep websocket compression state across control frames'
      const project: Project = {
        history: [
          START,
          {
            id: 'b',
            message: `[3.14] ${title} (#13138)`,
            parents: ['start'],
            pulls: [13138],
            committer: BUTTON
          }
        ],
        pulls: [
          { number: 12988, title, ...ORIGINAL },
          // same words, not merged: never the original
          { number: 12990, title, merged: false },
          onRelease(13138, `[3.14] ${title}`)
        ],
        tags: { 'v3.14.1': 'start', 'v3.14.2': 'b' }
      }
      const run = await pushTag('by-title', project, 'v3.14.2', git)
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      expect(labeled()).toEqual([12988, 13138])
      expect(run.stdout).toContain('#13138 is a backport of #12988')
      expect(reads().filter(p => p === '/search/issues')).toHaveLength(1)
    }
  )

  test.each(BOTH)(
    'a hand-picked commit without a number labels the merged pull request of its title, never a sibling backport nor for a bump, %s',
    async (_n, git) => {
      const title = 'Wait forever on very large timeout'
      const project: Project = {
        history: [
          START,
          { id: 'pick', message: title, parents: ['start'] },
          { id: 'bump', message: 'Bump the serde version to 1.0.200', parents: ['pick'] },
          {
            id: 'b',
            message: '[PR #12350/7eb05774 backport][3.13] Fix octal tests (#12401)',
            parents: ['bump'],
            pulls: [12401],
            committer: BUTTON
          }
        ],
        pulls: [
          { number: 953, title, ...ORIGINAL },
          // the original's own backport onto another line: a sibling, never an original
          { number: 960, title: `[0.7] ${title}`, base_ref: '0.7' },
          { number: 12350, title: 'Fix octal tests', ...ORIGINAL },
          {
            number: 12351,
            title: '[PR #12350/7eb05774 backport][3.14] Fix octal tests',
            base_ref: '3.14'
          },
          onRelease(12401, '[PR #12350/7eb05774 backport][3.13] Fix octal tests')
        ],
        tags: { 'v0.8.14': 'start', 'v0.8.15': 'b' }
      }
      const run = await pushTag('pick-by-title', project, 'v0.8.15', git)
      expect(run.code).toBe(0)
      expect(labeled()).toEqual([953, 12350, 12401])
      // the bump alone belongs to no pull request; only the pick's title was searched
      expect(warnings(run)).toEqual([
        expect.stringContaining('1 commit of the range belongs to no pull request')
      ])
      expect(reads().filter(p => p === '/search/issues')).toHaveLength(1)
    }
  )

  test.each(BOTH)(
    'a release pull request of picks (bors `Merge #964`, "Prepare for the next release") labels the originals of their titles, %s',
    async (_n, git) => {
      const picks = [
        'Wait forever on very large timeout',
        'Make `scope()` function soft-deprecated'
      ]
      const project: Project = {
        history: [
          START,
          { id: 'p1', message: picks[0] as string, parents: ['start'], pulls: [964] },
          { id: 'p2', message: picks[1] as string, parents: ['p1'], pulls: [964] },
          { id: 'prep', message: 'Prepare for the next release', parents: ['p2'], pulls: [964] },
          {
            id: 'bors',
            message: 'Merge #964\n\n964: Prepare for the next release r=taiki-e a=taiki-e',
            parents: ['start', 'prep'],
            pulls: [964]
          }
        ],
        pulls: [
          { number: 953, title: picks[0], ...ORIGINAL },
          { number: 954, title: picks[1], ...ORIGINAL },
          {
            number: 964,
            title: 'Prepare for the next release',
            base_ref: 'v0.8',
            head_ref: 'v0.8-release'
          }
        ],
        tags: { 'crossbeam-utils-0.8.14': 'start', 'crossbeam-utils-0.8.15': 'bors' }
      }
      const run = await pushTag('release-of-picks', project, 'crossbeam-utils-0.8.15', git)
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      expect(labeled()).toEqual([953, 954, 964])
    }
  )

  test.each(BOTH)(
    "a pick carrying the forward merge's number labels the original of its title, %s",
    async (_n, git) => {
      const title = 'taskdump: remove crate disambiguators from output'
      const project: Project = {
        history: [
          START,
          {
            id: 'pick',
            message: `${title} (#8288)`,
            parents: ['start'],
            pulls: [8288],
            committer: BUTTON
          }
        ],
        pulls: [
          { number: 8264, title, ...ORIGINAL },
          {
            number: 8288,
            title: "Merge 'tokio-1.51.4' into 'tokio-1.52.x'",
            base_ref: 'tokio-1.52.x',
            head_ref: 'forward-1.51.4'
          }
        ],
        tags: { 'tokio-1.52.3': 'start', 'tokio-1.52.4': 'pick' }
      }
      const run = await pushTag('pick-title', project, 'tokio-1.52.4', git)
      expect(run.code).toBe(0)
      expect(labeled()).toEqual([8264, 8288])
    }
  )
})

/**
 * `ORIG` in a message stands for the sha of commit `orig`: a scratch write of the history up to
 * it gives the sha every later write gives (same content, same dates).
 */
function withSha(project: Project): Project {
  const upTo = project.history.slice(0, project.history.findIndex(c => c.id === 'orig') + 1)
  const shas = writeRepository(join(dir, `scratch-${scratch++}`), upTo, 'orig')
  const sha = shas['orig'] as string
  return {
    ...project,
    history: project.history.map(c => ({ ...c, message: c.message.replace('ORIG', sha) }))
  }
}
let scratch = 0

describe('a pull request that merges one release line into another carries what it merges', () => {
  test.each(BOTH)(
    "`Merge 'tokio-1.51.4' into 'tokio-1.52.x' (#8288)`, squash-merged: #8264 and #8280 too, %s",
    async (_n, git) => {
      const project: Project = {
        history: [
          START,
          { id: 'lts1', message: 'Fix the timer (#8264)', parents: ['start'], committer: BUTTON },
          {
            id: 'lts2',
            message: 'chore: prepare tokio v1.51.4 (#8280)',
            parents: ['lts1'],
            committer: BUTTON
          },
          {
            id: 'fwd',
            message: "Merge 'tokio-1.51.4' into 'tokio-1.52.x' (#8288)",
            parents: ['start'],
            pulls: [8288],
            committer: BUTTON
          }
        ],
        pulls: [
          { number: 8264, base_ref: 'tokio-1.51.x' },
          { number: 8280, base_ref: 'tokio-1.51.x' },
          {
            number: 8288,
            base_ref: 'tokio-1.52.x',
            head_ref: 'forward-1.51.4',
            commits: [] as string[]
          }
        ],
        tags: { 'tokio-1.52.1': 'start', 'tokio-1.51.4': 'lts2', 'tokio-1.52.2': 'fwd' }
      }
      // #8288's commits are the 1.51.x line's, as the service lists them.
      const fill = (repoDir: string) => {
        const shas = ['tokio-1.51.4^', 'tokio-1.51.4'].map(ref => gitIn(repoDir, 'rev-parse', ref))
        const fwd = project.pulls.find(p => p.number === 8288)
        if (fwd) fwd.commits = shas
      }
      const run = await pushTag('forward', project, 'tokio-1.52.2', git, {}, fill)
      expect(run.code).toBe(0)
      expect(labeled()).toEqual([8264, 8280, 8288])
      expect(reads().filter(p => p === '/repos/acme/web/pulls/8288/commits')).toHaveLength(1)
    }
  )
})

describe('commits that belong to no pull request are never silent', () => {
  test.each(BOTH)(
    'hand-picked commits without a number: one warning names them and says how to attribute them, %s',
    async (_n, git) => {
      const picks: HistoryCommit[] = Array.from({ length: 12 }, (_, i) => ({
        id: `c${i + 1}`,
        message: `Fix ${i + 1}`,
        parents: [i === 0 ? 'start' : `c${i}`]
      }))
      const project: Project = {
        history: [
          START,
          ...picks,
          {
            id: 'pr',
            message: 'Fix the build (#5)',
            parents: ['c12'],
            pulls: [5],
            committer: BUTTON
          },
          { id: 'rel', message: 'Release 2.0.1', parents: ['pr'] }
        ],
        pulls: [{ number: 5 }],
        tags: { 'v2.0.0': 'start', 'v2.0.1': 'rel' }
      }
      const run = await pushTag('numberless', project, 'v2.0.1', git)
      expect(run.code).toBe(0)
      expect(labeled()).toEqual([5])
      const [warning, ...others] = warnings(run)
      expect(others).toEqual([])
      expect(warning).toContain('tag v2.0.1: 12 commits of the range belong to no pull request')
      expect(warning).toContain('... and 2 more')
      expect(warning).toContain('`git cherry-pick -x`')
      expect(warning).toContain('`pull-requests`')
    }
  )
})

describe("an organisation's squash-merged branches cost one list, not a question each", () => {
  test.each(BOTH)(
    '9 pull requests of several commits from branches of the repository: tag pages + compare + 9 + 1, %s',
    async (_n, git) => {
      const history: HistoryCommit[] = [START]
      for (let k = 1; k <= 9; k++)
        history.push({
          id: `p${k}`,
          message: `Change ${k} (#${k})`,
          parents: [k === 1 ? 'start' : `p${k - 1}`],
          committer: BUTTON
        })
      const project: Project = {
        history,
        pulls: Array.from({ length: 9 }, (_, i) => ({
          number: i + 1,
          head_ref: `feature-${i + 1}`,
          commits: ['a', 'b', 'c']
        })),
        tags: { 'v1.0.0': 'start', 'v1.1.0': 'p9' }
      }
      const run = await pushTag('org', project, 'v1.1.0', git, { 'dry-run': 'true' })
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      const got = reads()
      const tagPages = got.filter(p => p.endsWith('/tags')).length
      const compare = got.filter(p => p.includes('/compare/')).length
      // Before: a `pulls?base=` question for each of the nine branches (tag pages + compare + 18).
      expect(got.filter(p => p === '/repos/acme/web/pulls')).toHaveLength(1)
      expect(got).toHaveLength(tagPages + compare + 9 + 1)
      expect(tagPages + compare).toBe(git ? 0 : 2)
    }
  )
})
