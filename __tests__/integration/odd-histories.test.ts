// Over 300 lines: each odd history is built with git and served to both paths.
/**
 * README's promises on which pull requests a range holds, tried as a new user's repository has
 * them, through the bundled action as the runner starts it: subjects in the odd forms real
 * histories carry (a squash title that itself ends in `(#N)`, a revert by pull request, a revert
 * of a revert pushed directly, empty commits, a cherry-pick, an octopus merge, main merged into a
 * feature branch), read with git (`fetch-depth: 0`, the previous tag an annotated one) and with
 * the compare endpoint (`since` an annotated tag); and a real `git clone --depth 1` (the default
 * checkout) with and without `since`.
 */
import { join } from 'node:path'
import { dir, emulator, useDiscoveryWorld } from '../../__fixtures__/discovery-run.js'
import { labeled, runLabels, warnings } from '../../__fixtures__/discovery-run.js'
import {
  git,
  seedCommits,
  writeRepository,
  type HistoryCommit
} from '../../__fixtures__/history.js'
import type { SeedPull } from '../../emulator/index.js'
import type { ActionRun } from '../../scripts/run-action.js'

const REPO = 'acme/web'

useDiscoveryWorld('odd-histories')

const CACHE = 'Fix the cache (#9) (#12)'
/**
 * After v1.0.0 (#3 and #9 shipped in it, both merged pull requests of the repository):
 * - #12 squash-merged; its title ends in the issue it fixed, so its subject ends `(#9) (#12)`;
 * - #13 reverts it by pull request; the revert is reverted again by a direct push (no number);
 * - an empty commit pushed to trigger a deploy (no pull request);
 * - #22 merged with a merge commit; its branch merged `main` in between;
 * - #18, merged into `release/1.0`, cherry-picked onto `main` by hand (`-x`);
 * - #16 and #17 rebase-merged into `hotfix-a` and `hotfix-b`, then both branches merged into
 *   `main` by one octopus merge pushed by hand;
 * - #24 squash-merged as an empty commit.
 * A reviewer lists #12, #13, #16, #17, #18, #22 and #24; not #3 or #9.
 */
const HISTORY: HistoryCommit[] = [
  { id: 'start', message: 'Start', parents: [] },
  { id: 'cache', message: CACHE, parents: ['start'], pulls: [12] },
  { id: 'ipv6-1', message: 'Start IPv6', parents: ['cache'], pulls: [22] },
  { id: 'revert', message: `Revert "${CACHE}" (#13)`, parents: ['cache'], pulls: [13] },
  { id: 'rerevert', message: `Revert "Revert "${CACHE}""`, parents: ['revert'], pulls: [] },
  { id: 'trigger', message: 'Trigger deploy', parents: ['rerevert'], pulls: [] },
  {
    id: 'ipv6-main',
    message: "Merge branch 'main' into ipv6",
    parents: ['ipv6-1', 'trigger'],
    pulls: [22]
  },
  { id: 'ipv6-2', message: 'Finish IPv6', parents: ['ipv6-main'], pulls: [22] },
  {
    id: 'merge22',
    message: 'Merge pull request #22 from acme/ipv6\n\nIPv6',
    parents: ['trigger', 'ipv6-2'],
    pulls: [22]
  },
  {
    id: 'pick',
    message: 'Fix the crash (#18)\n\n(cherry picked from commit ' + 'ab'.repeat(20) + ')',
    parents: ['merge22'],
    pulls: []
  },
  { id: 'fix-a', message: 'Fix A', parents: ['pick'], pulls: [16] },
  { id: 'fix-b', message: 'Fix B', parents: ['pick'], pulls: [17] },
  {
    id: 'octopus',
    message: "Merge branches 'hotfix-a' and 'hotfix-b'",
    parents: ['pick', 'fix-a', 'fix-b'],
    pulls: []
  },
  { id: 'bump', message: 'Bump the version (#24)', parents: ['octopus'], pulls: [24] }
]
const PULLS: SeedPull[] = [
  { number: 3 },
  { number: 9 },
  { number: 12, head_ref: 'cache' },
  { number: 13, head_ref: 'revert-12' },
  { number: 16, base_ref: 'hotfix-a', head_ref: 'fix-a' },
  { number: 17, base_ref: 'hotfix-b', head_ref: 'fix-b' },
  { number: 18, base_ref: 'release/1.0', head_ref: 'fix-crash' },
  { number: 22, head_ref: 'ipv6' },
  { number: 24, head_ref: 'bump' }
]
const REVIEWER = [12, 13, 16, 17, 18, 22, 24]
/** The re-revert and the deploy trigger were pushed without a pull request: one warning says so. */
const PUSHED = [
  expect.stringMatching(/2 commits of the range belong to no pull request .*`git cherry-pick -x`/)
]

function release(
  shas: Record<string, string>,
  inputs: Record<string, string>,
  workspace?: string,
  tag = 'v1.1.0'
): Promise<ActionRun> {
  emulator.reset()
  emulator.seed({
    pulls: { [REPO]: PULLS },
    commits: { [REPO]: seedCommits(HISTORY, shas) },
    tags: {
      [REPO]: {
        'v1.0.0': shas['start'] as string,
        'v1.1.0': shas['bump'] as string,
        latest: shas['bump'] as string
      }
    }
  })
  return runLabels(inputs, {
    eventName: 'release',
    event: { action: 'published', release: { tag_name: tag } },
    sha: shas['bump'],
    ref: `refs/tags/${tag}`,
    ...(workspace ? { workspace } : {})
  })
}

describe('odd subjects and shapes: the pull requests a reviewer lists, on both paths', () => {
  let repoDir: string
  let shas: Record<string, string>
  beforeAll(() => {
    repoDir = join(dir, 'odd')
    shas = writeRepository(repoDir, HISTORY, 'bump')
    // Release tags are annotated, as `gh release create` and most release tools make them.
    git(repoDir, 'tag', '-a', '-m', 'v1.0.0', 'v1.0.0', shas['start'] as string)
    git(repoDir, 'tag', '-a', '-m', 'v1.1.0', 'v1.1.0', shas['bump'] as string)
  })

  test('with the history (fetch-depth: 0): from the previous (annotated) tag, read with git', async () => {
    const run = await release(shas, {}, repoDir)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual(PUSHED)
    expect(run.stdout).toMatch(/v1\.0\.0\.\.[0-9a-f]{7} read with git/)
    expect(emulator.requests.some(r => r.path.includes('/compare/'))).toBe(false)
    expect(labeled()).toEqual(REVIEWER)
    expect(run.outputs['pull-requests']).toBe(REVIEWER.join(','))
  })

  test('without it: `since` an annotated tag, read with the compare endpoint', async () => {
    const run = await release(shas, { since: 'v1.0.0' })
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual(PUSHED)
    expect(run.stdout).toMatch(/read with the compare endpoint/)
    expect(labeled()).toEqual(REVIEWER)
  })
})

describe('the default checkout (a real `git clone --depth 1`)', () => {
  let shallow: string
  let shas: Record<string, string>
  beforeAll(() => {
    const origin = join(dir, 'origin')
    shas = writeRepository(origin, HISTORY, 'bump', { 'v1.0.0': 'start', 'v1.1.0': 'bump' })
    shallow = join(dir, 'shallow')
    git(dir, 'clone', '-q', '--depth', '1', `file://${origin}`, shallow)
  })

  test('without `since`, a version tag: the previous release from the tag list, read with the compare endpoint', async () => {
    const run = await release(shas, {}, shallow)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual(PUSHED)
    expect(run.stdout).toMatch(
      /previous release v1\.0\.0 by version order \(.*of 3 tags listed by the service\)/
    )
    expect(run.stdout).toMatch(/v1\.0\.0\.\.[0-9a-f]{7} read with the compare endpoint/)
    expect(labeled()).toEqual(REVIEWER)
  })

  test('without `since`, a tag that is no version: labels nothing and the warning names `fetch-depth: 0` and `since`', async () => {
    const run = await release(shas, {}, shallow, 'latest')
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([expect.stringMatching(/fetch-depth: 0.*`since`/)])
    expect(labeled()).toEqual([])
    expect(emulator.requests).toEqual([])
  })

  test('with `since`: the compare endpoint finds what the history holds', async () => {
    const run = await release(shas, { since: 'v1.0.0' }, shallow)
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual(PUSHED)
    expect(run.stdout).toMatch(/read with the compare endpoint/)
    expect(labeled()).toEqual(REVIEWER)
  })
})

test('a branch merged by hand (`git flow release finish`) holding rebase-merged pull requests: each of them counts', async () => {
  // #31, #32 and #33 rebase-merged into release/1.1 (one commit each, no number in the
  // subjects), then the branch merged into main by hand: no pull request names the merge.
  const history: HistoryCommit[] = [
    { id: 'start', message: 'Start', parents: [] },
    { id: 'a', message: 'Speed up the start', parents: ['start'], pulls: [31] },
    { id: 'b', message: 'Retry on 502', parents: ['a'], pulls: [32] },
    { id: 'c', message: 'Log the request id', parents: ['b'], pulls: [33] },
    { id: 'finish', message: "Merge branch 'release/1.1'", parents: ['start', 'c'], pulls: [] }
  ]
  const repoDir = join(dir, 'git-flow-finish')
  const shas = writeRepository(repoDir, history, 'finish', { 'v1.0.0': 'start' })
  for (const [workspace, inputs] of [
    [repoDir, {}],
    [undefined, { since: 'v1.0.0' }]
  ] as const) {
    emulator.reset()
    emulator.seed({
      pulls: { [REPO]: [31, 32, 33].map(number => ({ number, base_ref: 'release/1.1' })) },
      commits: { [REPO]: seedCommits(history, shas) },
      refs: { [REPO]: { 'v1.0.0': shas['start'] as string } }
    })
    const run = await runLabels(inputs, {
      eventName: 'workflow_dispatch',
      sha: shas['finish'],
      ...(workspace ? { workspace } : {})
    })
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    expect(labeled()).toEqual([31, 32, 33])
  }
})

describe("a pull request from a fork: the fork's own pull request numbers on its branch are not ours", () => {
  // #23 comes from the fork's `main`, where the contributor had merged the fork's own pull
  // request #3 (merge commit, or squash). Our #3 is an old pull request, merged into our main.
  test.each([
    ['merge commit', 'Merge pull request #3 from contributor/typo-docs\n\nFix typo'],
    ['squash', 'Fix typo in the docs (#3)']
  ])('its %s subject labels #23 only, on both paths', async (_name, forkSubject) => {
    const squash = !forkSubject.startsWith('Merge')
    const history: HistoryCommit[] = [
      { id: 'start', message: 'Start', parents: [] },
      { id: 'typo', message: 'Fix typo in the docs', parents: ['start'], pulls: [23] },
      // The fork's merge of its own #3, or its squash of it (one commit, no merge).
      {
        id: 'fork',
        message: forkSubject,
        parents: squash ? ['start'] : ['start', 'typo'],
        pulls: [23]
      },
      {
        id: 'merge23',
        message: 'Merge pull request #23 from contributor/main\n\nFix typo in the docs',
        parents: ['start', 'fork'],
        pulls: [23]
      }
    ]
    const repoDir = join(dir, `fork-${_name.replace(' ', '-')}`)
    const shas = writeRepository(repoDir, history, 'merge23', { 'v1.0.0': 'start' })
    for (const [workspace, inputs] of [
      [repoDir, {}],
      [undefined, { since: 'v1.0.0' }]
    ] as const) {
      emulator.reset()
      emulator.seed({
        pulls: {
          [REPO]: [{ number: 3 }, { number: 23, head_ref: 'main', head_repo: 'contributor/web' }]
        },
        commits: { [REPO]: seedCommits(history, shas) },
        refs: { [REPO]: { 'v1.0.0': shas['start'] as string } }
      })
      const run = await runLabels(inputs, {
        eventName: 'workflow_dispatch',
        sha: shas['merge23'],
        ...(workspace ? { workspace } : {})
      })
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      expect(labeled()).toEqual([23])
    }
  })
})

describe('`api-url` names the web host (every answer an HTML "Page not found"): discovery says so', () => {
  const history: HistoryCommit[] = [
    { id: 'start', message: 'Start', parents: [] },
    { id: 'retries', message: 'Add retries (#12)', parents: ['start'], pulls: [12] }
  ]
  test.each([
    ['with the history (git): the pull requests the subjects name', true],
    ['without it (compare)', false]
  ])(
    '%s: the step fails pointing at api-url, not at the history or "not merged"',
    async (_n, git) => {
      const repoDir = join(dir, `web-host-${git}`)
      const shas = writeRepository(repoDir, history, 'retries', { 'v1.0.0': 'start' })
      emulator.seed({
        pulls: { [REPO]: [{ number: 12 }] },
        commits: { [REPO]: seedCommits(history, shas) },
        refs: { [REPO]: { 'v1.0.0': shas['start'] as string } }
      })
      emulator.addFault({
        path: /^\/repos\//,
        times: 1000,
        fault: {
          kind: 'status',
          status: 404,
          headers: { 'content-type': 'text/html; charset=utf-8' },
          body: '<!DOCTYPE html>\n<html><head><title>Page not found · GitHub</title></head></html>\n'
        }
      })
      const run = await runLabels(
        { since: 'v1.0.0' },
        {
          eventName: 'workflow_dispatch',
          sha: shas['retries'],
          ...(git ? { workspace: repoDir } : {})
        }
      )
      expect(run.code).toBe(1)
      expect(run.stdout).toMatch(/Something other than the API answered: check that `api-url`/)
      expect(run.stdout).not.toMatch(/fetch-depth|not merged pull requests/)
    }
  )
})
