/**
 * The break round on issue 43 (backports), through the bundled action on both paths: what a
 * commit or a pull request of the range says must not label an unrelated merged pull request,
 * one that never shipped in the range.
 */
import { join } from 'node:path'
import {
  dir,
  emulator,
  labeled,
  pushTag,
  useDiscoveryWorld,
  warnings,
  type Project
} from '../../__fixtures__/discovery-run.js'
import { writeRepository, type HistoryCommit } from '../../__fixtures__/history.js'

useDiscoveryWorld('discovery-backports-attacks')

const BUTTON = 'noreply@github.com'
const BOTH = [
  ['with the history (git)', true],
  ['without it (compare)', false]
] as const
const START: HistoryCommit = { id: 'start', message: 'Start', parents: [] }
const OLD = { base_ref: 'main', merged_at: '2020-01-01T00:00:00Z' }
const searches = () =>
  emulator.requests.filter(r => r.method === 'GET' && r.path === '/search/issues').length

describe('a title shared by several pull requests, or given by the web editor, names no original', () => {
  test.each(BOTH)(
    'a web edit `Update README.md` pushed to main labels no old pull request of that title, %s',
    async (_n, git) => {
      const project: Project = {
        history: [
          START,
          { id: 'web', message: 'Update README.md', parents: ['start'] },
          {
            id: 'fix',
            message: 'Fix the login redirect (#40)',
            parents: ['web'],
            pulls: [40],
            committer: BUTTON
          }
        ],
        pulls: [
          { number: 5, title: 'Update README.md', ...OLD },
          { number: 40, title: 'Fix the login redirect', base_ref: 'main' }
        ],
        tags: { 'v1.0.0': 'start', 'v1.0.1': 'fix' }
      }
      const run = await pushTag('web-edit', project, 'v1.0.1', git)
      expect(run.code).toBe(0)
      expect(labeled()).toEqual([40])
      expect(warnings(run)).toEqual([
        expect.stringContaining('1 commit of the range belongs to no pull request')
      ])
      expect(searches()).toBe(0)
    }
  )

  test.each(BOTH)(
    'a hand-picked commit whose title two merged pull requests share labels neither, %s',
    async (_n, git) => {
      const title = 'Fix the flaky cache test'
      const project: Project = {
        history: [
          START,
          { id: 'pick', message: title, parents: ['start'] },
          {
            id: 'fix',
            message: '[1.x] Fix the login redirect (#40)',
            parents: ['pick'],
            pulls: [41],
            committer: BUTTON
          }
        ],
        pulls: [
          { number: 5, title, ...OLD },
          { number: 9, title, base_ref: 'main', merged_at: '2021-01-01T00:00:00Z' },
          { number: 40, title: 'Fix the login redirect', ...OLD },
          { number: 41, title: '[1.x] Fix the login redirect (#40)', base_ref: '1.x' }
        ],
        tags: { 'v1.0.0': 'start', 'v1.0.1': 'fix' }
      }
      const run = await pushTag('shared-title', project, 'v1.0.1', git)
      expect(run.code).toBe(0)
      expect(labeled()).toEqual([40, 41])
      expect(warnings(run)).toEqual([
        expect.stringContaining('1 commit of the range belongs to no pull request')
      ])
    }
  )

  test.each(BOTH)(
    'a backport `[1.x] Title` whose title two merged pull requests share labels neither, and says so, %s',
    async (_n, git) => {
      const title = 'Fix the flaky cache test'
      const project: Project = {
        history: [
          START,
          {
            id: 'b',
            message: `[1.x] ${title} (#41)`,
            parents: ['start'],
            pulls: [41],
            committer: BUTTON
          }
        ],
        pulls: [
          { number: 5, title, ...OLD },
          { number: 9, title, base_ref: 'main', merged_at: '2021-01-01T00:00:00Z' },
          { number: 41, title: `[1.x] ${title}`, base_ref: '1.x' }
        ],
        tags: { 'v1.0.0': 'start', 'v1.0.1': 'b' }
      }
      const run = await pushTag('shared-backport-title', project, 'v1.0.1', git)
      expect(run.code).toBe(0)
      expect(labeled()).toEqual([41])
      expect(run.stdout).toContain(
        'Labels: tag v1.0.1: #41 looks like a backport, but #5 and #9 share its title: none is labeled'
      )
    }
  )
})

describe('a revert of a backport ships no original', () => {
  test.each(BOTH)(
    'a squash-merged `Revert "Title (backport #12) (#15)"` onto 1.x labels the revert only, %s',
    async (_n, git) => {
      const project: Project = {
        history: [
          START,
          {
            id: 'revert',
            message: 'Revert "Fix the cache (backport #12) (#15)" (#16)',
            parents: ['start'],
            pulls: [16],
            committer: BUTTON
          }
        ],
        pulls: [
          { number: 12, title: 'Fix the cache', ...OLD },
          {
            number: 15,
            title: 'Fix the cache (backport #12)',
            base_ref: '1.x',
            merged_at: '2021-01-01T00:00:00Z'
          },
          {
            number: 16,
            title: 'Revert "Fix the cache (backport #12) (#15)"',
            base_ref: '1.x',
            head_ref: 'revert-15-mergify/bp/1.x/pr-12',
            body: 'Reverts acme/web#15'
          }
        ],
        tags: { 'v1.0.0': 'start', 'v1.0.1': 'revert' }
      }
      const run = await pushTag('revert', project, 'v1.0.1', git)
      expect(run.code).toBe(0)
      expect(labeled()).toEqual([16])
    }
  )
  test.each(BOTH)(
    'mergify\'s backport of a revert, `Revert "Fix the cache" (backport #12) (#15)`, labels the revert #12 too, %s',
    async (_n, git) => {
      const project: Project = {
        history: [
          START,
          {
            id: 'b',
            message: 'Revert "Fix the cache" (backport #12) (#15)',
            parents: ['start'],
            pulls: [15],
            committer: BUTTON
          }
        ],
        pulls: [
          { number: 12, title: 'Revert "Fix the cache"', ...OLD },
          {
            number: 15,
            title: 'Revert "Fix the cache" (backport #12)',
            base_ref: '1.x',
            head_ref: 'mergify/bp/1.x/pr-12'
          }
        ],
        tags: { 'v1.0.0': 'start', 'v1.0.1': 'b' }
      }
      const run = await pushTag('revert-backported', project, 'v1.0.1', git)
      expect(run.code).toBe(0)
      expect(labeled()).toEqual([12, 15])
    }
  )
})

describe('an original that went into the same branch is no original', () => {
  test.each(BOTH)(
    'a pull request onto main whose body says `backport #12` of a pull request merged into main labels only itself, %s',
    async (_n, git) => {
      const project: Project = {
        history: [
          START,
          {
            id: 'fix',
            message: 'Fix the docs of the cache (#40)',
            parents: ['start'],
            pulls: [40],
            committer: BUTTON
          }
        ],
        pulls: [
          { number: 12, title: 'Fix the cache', ...OLD },
          {
            number: 40,
            title: 'Fix the docs of the cache',
            base_ref: 'main',
            body: 'Like backport #12 did for the code, this fixes the docs.'
          }
        ],
        tags: { 'v1.0.0': 'start', 'v1.0.1': 'fix' }
      }
      const run = await pushTag('same-branch', project, 'v1.0.1', git)
      expect(run.code).toBe(0)
      expect(labeled()).toEqual([40])
    }
  )
})

describe("Kubernetes' and prow's cherry picks label their originals", () => {
  test.each(BOTH)(
    '`Automated cherry pick of #119834: …` and `This is an automated cherry-pick of #119900`, merged with merge commits onto release-1.28: both originals, %s',
    async (_n, git) => {
      const project: Project = {
        history: [
          START,
          { id: 'c1', message: 'Fix the kubelet restart', parents: ['start'], pulls: [120500] },
          {
            id: 'm1',
            message:
              'Merge pull request #120500 from alice/automated-cherry-pick-of-#119834-upstream-release-1.28\n\n' +
              'Automated cherry pick of #119834: Fix the kubelet restart',
            parents: ['start', 'c1'],
            pulls: [120500]
          },
          { id: 'c2', message: 'Fix the proxy timeout', parents: ['m1'], pulls: [120600] },
          {
            id: 'm2',
            message:
              'Merge pull request #120600 from k8s-infra-cherrypick-robot/cherry-pick-119900-to-release-1.28\n\n' +
              '[release-1.28] Fix the proxy timeout',
            parents: ['m1', 'c2'],
            pulls: [120600]
          }
        ],
        pulls: [
          {
            number: 119834,
            title: 'Fix the kubelet restart',
            base_ref: 'master',
            merged_at: '2020-01-01T00:00:00Z'
          },
          {
            number: 119900,
            title: 'Proxy: time out idle streams',
            base_ref: 'master',
            merged_at: '2020-01-01T00:00:00Z'
          },
          {
            number: 120500,
            title: 'Automated cherry pick of #119834: Fix the kubelet restart',
            base_ref: 'release-1.28',
            head_ref: 'automated-cherry-pick-of-#119834-upstream-release-1.28',
            body: 'Cherry pick of #119834 on release-1.28.\n\n#119834: Fix the kubelet restart'
          },
          {
            number: 120600,
            title: '[release-1.28] Fix the proxy timeout',
            base_ref: 'release-1.28',
            head_ref: 'cherry-pick-119900-to-release-1.28',
            body: 'This is an automated cherry-pick of #119900\n\n/assign bob'
          }
        ],
        tags: { 'v1.28.3': 'start', 'v1.28.4': 'm2' }
      }
      const run = await pushTag('kubernetes', project, 'v1.28.4', git)
      expect(run.code).toBe(0)
      expect(labeled()).toEqual([119834, 119900, 120500, 120600])
      expect(run.stdout).toContain(
        '#120500 is a backport of #119834, #120600 is a backport of #119900'
      )
      expect(searches()).toBe(0)
    }
  )
})

describe("a `cherry picked from` line naming someone else's commit of the same branch", () => {
  test.each(BOTH)(
    'a pull request onto main whose commit says it was picked from a commit of #12 (merged into main) labels only itself, %s',
    async (_n, git) => {
      const project = withSha({
        history: [
          {
            id: 'orig',
            message: 'Fix the cache (#12)',
            parents: [],
            pulls: [12],
            committer: BUTTON
          },
          { id: 'start', message: 'Start', parents: ['orig'] },
          {
            id: 'c',
            message: 'Tidy the cache\n\n(cherry picked from commit ORIG)',
            parents: ['start'],
            pulls: [40]
          },
          {
            id: 'm',
            message: 'Merge pull request #40 from mallory/tidy\n\nTidy the cache',
            parents: ['start', 'c'],
            pulls: [40]
          }
        ],
        pulls: [
          { number: 12, title: 'Fix the cache', ...OLD },
          { number: 40, title: 'Tidy the cache', base_ref: 'main', head_ref: 'tidy' }
        ],
        tags: { 'v1.0.0': 'start', 'v1.0.1': 'm' }
      })
      const run = await pushTag('picked-same-branch', project, 'v1.0.1', git)
      expect(run.code).toBe(0)
      expect(labeled()).toEqual([40])
    }
  )
})

describe("Django's `Backport of <sha> from main` names the original's commit", () => {
  test.each(BOTH)(
    'a commit pushed to stable/5.0.x without a pull request labels the pull request of the commit it names, with no search, %s',
    async (_n, git) => {
      const project = withSha({
        history: [
          {
            id: 'orig',
            message: 'Fixed #35000 -- Made the cache thread-safe.',
            parents: [],
            pulls: [17000]
          },
          { id: 'start', message: '[5.0.x] Bumped version for 5.0.1 release.', parents: ['orig'] },
          {
            id: 'pick',
            message:
              '[5.0.x] Fixed #35000 -- Made the cache thread-safe.\n\nBackport of ORIG from main.',
            parents: ['start']
          }
        ],
        pulls: [{ number: 17000, title: 'Fixed #35000 -- Made cache thread-safe', ...OLD }],
        tags: { '5.0.1': 'start', '5.0.2': 'pick' }
      })
      const run = await pushTag('django', project, '5.0.2', git)
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      expect(labeled()).toEqual([17000])
      expect(searches()).toBe(0)
    }
  )
})

/** `ORIG` in a message stands for the sha of commit `orig` (the first): a scratch write gives it. */
function withSha(project: Project): Project {
  const shas = writeRepository(
    join(dir, `scratch-${scratch++}`),
    project.history.slice(0, 1),
    'orig'
  )
  const sha = shas['orig'] as string
  return {
    ...project,
    history: project.history.map(c => ({ ...c, message: c.message.replace('ORIG', sha) }))
  }
}
let scratch = 0
