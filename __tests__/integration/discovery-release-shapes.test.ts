/**
 * Release conventions a break round brought in, through the bundled action on both paths: k3s's
 * second builds of one version (`+k3s2`), Composer's `alpha3` then `RC1`, JBoss's `6.4.0.CR1` then
 * `6.4.0.Final`, a first final release after its pre-releases, bors's rollups, and a fork that
 * merges its upstream (whose squash commits number the upstream's pull requests).
 */
import { labeled, pushTag, useDiscoveryWorld, warnings } from '../../__fixtures__/discovery-run.js'
import type { Project } from '../../__fixtures__/discovery-run.js'
import type { HistoryCommit } from '../../__fixtures__/history.js'

useDiscoveryWorld('discovery-release-shapes')

const BUTTON = 'noreply@github.com'
const BOTH = [
  ['with the history (git)', true],
  ['without it (compare)', false]
] as const
const START: HistoryCommit = { id: 'start', message: 'Start', parents: [] }
const line = (n: number): HistoryCommit[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `p${i + 1}`,
    message: `Change ${i + 1} (#${i + 1})`,
    parents: [i === 0 ? 'start' : `p${i}`],
    pulls: [i + 1],
    committer: BUTTON
  }))
const five = (tags: Record<string, string>): Project => ({
  history: [START, ...line(5)],
  pulls: [1, 2, 3, 4, 5].map(number => ({ number, head_ref: `f-${number}` })),
  tags
})

test.each(BOTH)(
  'k3s: v1.28.3+k3s2 starts at v1.28.3+k3s1, its first build, %s',
  async (_n, git) => {
    const project = five({ 'v1.28.2+k3s1': 'start', 'v1.28.3+k3s1': 'p3', 'v1.28.3+k3s2': 'p5' })
    const run = await pushTag('k3s', project, 'v1.28.3+k3s2', git)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(run.stdout).toContain('tag v1.28.3+k3s2: previous release v1.28.3+k3s1 by version order')
    expect(labeled()).toEqual([4, 5])
  }
)

test.each(BOTH)(
  'Composer: 2.0.0-RC1 starts at 2.0.0-alpha3, whatever the case, %s',
  async (_n, git) => {
    const project = five({
      '1.10.0': 'start',
      '2.0.0-alpha1': 'p1',
      '2.0.0-alpha3': 'p3',
      '2.0.0-RC1': 'p5'
    })
    const run = await pushTag('composer', project, '2.0.0-RC1', git)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(labeled()).toEqual([4, 5])
  }
)

test.each(BOTH)(
  'JBoss: 6.4.0.Final starts at 6.3.0.Final, 6.4.0.CR1 skipped, %s',
  async (_n, git) => {
    const project = five({ '6.3.0.Final': 'start', '6.4.0.CR1': 'p3', '6.4.0.Final': 'p5' })
    const run = await pushTag('jboss', project, '6.4.0.Final', git)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(run.stdout).toContain('tag 6.4.0.Final: previous release 6.3.0.Final by version order')
    expect(run.stdout).toContain('release: 6.4.0.CR1')
    expect(labeled()).toEqual([1, 2, 3, 4, 5])
  }
)

test.each(BOTH)(
  'a first final release after its pre-releases warns that nothing comes below it, %s',
  async (_n, git) => {
    const project = five({ 'v1.0.0-beta.1': 'p2', 'v1.0.0-rc.1': 'p4', 'v1.0.0': 'p5' })
    const run = await pushTag('first-final', project, 'v1.0.0', git)
    expect(run.code).toBe(0)
    expect(labeled()).toEqual([])
    expect(warnings(run)).toEqual([
      '::warning::tag v1.0.0: found no pull requests, because v1.0.0 is the first final release ' +
        'of the form v1.2.3 (below it only pre-releases, skipped: v1.0.0-beta.1, v1.0.0-rc.1): ' +
        'set `since` to the ref or sha to start from (the first commit, for everything it ships)'
    ])
  }
)

test.each(BOTH)(
  "bors's rollups: 1.76.0 labels #11, #12 and the rollup #20, %s",
  async (_n, git) => {
    const project: Project = {
      history: [
        START,
        { id: 'a1', message: 'Make the parser faster', parents: ['start'], pulls: [11] },
        { id: 'b1', message: 'Fix a typo in the docs', parents: ['start'], pulls: [12] },
        {
          id: 'r1',
          message: 'Rollup merge of #11 - alice:parser, r=bob\n\nMake the parser faster',
          parents: ['start', 'a1'],
          pulls: [11]
        },
        {
          id: 'r2',
          message: 'Rollup merge of #12 - carol:typo, r=bob\n\nFix a typo',
          parents: ['r1', 'b1'],
          pulls: [12]
        },
        {
          id: 'auto',
          message: 'Auto merge of #20 - bors:rollup-abc, r=bob\n\nRollup of 2 pull requests',
          parents: ['start', 'r2'],
          pulls: [20]
        }
      ],
      pulls: [
        { number: 11, head_ref: 'parser', base_ref: 'rollup-abc' },
        { number: 12, head_ref: 'typo', base_ref: 'rollup-abc' },
        { number: 20, head_ref: 'rollup-abc' }
      ],
      tags: { '1.75.0': 'start', '1.76.0': 'auto' }
    }
    const run = await pushTag('rollup', project, '1.76.0', git)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(labeled()).toEqual([11, 12, 20])
  }
)

test.each(BOTH)(
  "a fork merging its upstream: the upstream's (#N) are not our old pull requests, %s",
  async (_n, git) => {
    // Our #1..#20 are old pull requests of ours; upstream's squash commits number its own.
    const upstream: HistoryCommit[] = Array.from({ length: 40 }, (_, i) => ({
      id: `u${i + 1}`,
      message: `Upstream change (#${i + 1})`,
      parents: [i === 0 ? 'start' : `u${i}`],
      committer: BUTTON
    }))
    const project: Project = {
      history: [
        START,
        ...upstream,
        { id: 'ours', message: 'Our tweak (#499)', parents: ['start'], committer: BUTTON },
        {
          id: 'sync',
          message: 'Merge pull request #500 from acme/merge-upstream\n\nSync upstream',
          parents: ['ours', 'u40'],
          committer: BUTTON
        }
      ],
      pulls: [
        ...Array.from({ length: 20 }, (_, i) => ({ number: i + 1, head_ref: `old-${i + 1}` })),
        { number: 499, head_ref: 'tweak' },
        { number: 500, head_ref: 'merge-upstream' }
      ],
      tags: { 'v1.0.0': 'start', 'v1.1.0': 'sync' }
    }
    const run = await pushTag('upstream-sync', project, 'v1.1.0', git)
    expect(run.code).toBe(0)
    expect(labeled()).toEqual([499, 500])
  }
)
