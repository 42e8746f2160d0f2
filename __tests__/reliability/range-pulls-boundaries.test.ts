/**
 * The boundaries of labels/range-pulls.ts, read in process on the compare path against the
 * emulator: the commit lookups at their limit and one over, the squash question's gate (one
 * commit: no question; two: one question; two pull requests from one branch: still one), and the
 * line between a subject that quotes a pull request and one a branch took along.
 */
import { join } from 'node:path'
import { client, dir, emulator, useHistoryWorld } from '../../__fixtures__/history.js'
import { seedCommits, writeRepository, type HistoryCommit } from '../../__fixtures__/history.js'
import type { SeedPull } from '../../emulator/index.js'
import { discoverPullRequests, MAX_COMMIT_LOOKUPS } from '../../src/labels/discover.js'
import { MAX_BACKPORT_READS } from '../../src/labels/references.js'

useHistoryWorld('range-pulls-boundaries')

const BUTTON = 'noreply@github.com'
let runs = 0

/** Seeds `commits` (the first is the base, tagged v0) and discovers the range v0..head by compare. */
async function discover(
  commits: HistoryCommit[],
  pulls: SeedPull[],
  /** after the seed: faults, by the commits' shas */
  faults?: (shas: Record<string, string>) => void
) {
  const shas = writeRepository(join(dir, `r${runs++}`), commits, commits.at(-1)?.id as string)
  emulator.reset()
  emulator.seed({
    pulls: { 'acme/web': pulls },
    commits: { 'acme/web': seedCommits(commits, shas) },
    refs: { 'acme/web': { v0: shas[commits[0]?.id as string] as string } }
  })
  faults?.(shas)
  const found = await discoverPullRequests(client, {
    eventName: 'release',
    payload: {},
    sha: shas[commits.at(-1)?.id as string] as string,
    ref: 'refs/tags/v1',
    owner: 'acme',
    repo: 'web',
    since: 'v0'
  })
  const gets = emulator.requests.filter(r => r.method === 'GET').map(r => r.path)
  return { found, gets }
}

/** `count` main-line commits that name no pull request, after the base. */
const plain = (count: number): HistoryCommit[] => [
  { id: 'base', message: 'Start', parents: [] },
  ...Array.from({ length: count }, (_, i) => ({
    id: `c${i}`,
    message: `Change ${i}`,
    parents: [i === 0 ? 'base' : `c${i - 1}`]
  }))
]
const lookups = (gets: string[]) => gets.filter(p => /\/commits\/[0-9a-f]+\/pulls$/.test(p)).length

test.each([
  [MAX_COMMIT_LOOKUPS, 0],
  [MAX_COMMIT_LOOKUPS + 1, 1]
])(
  '%i commits that name no pull request: at most the limit looked up, %i left and said',
  async (count, left) => {
    const { found, gets } = await discover(plain(count), [])
    expect(lookups(gets)).toBe(MAX_COMMIT_LOOKUPS)
    const warning = found.warnings.find(w => w.includes('not looked up'))
    if (left === 0) expect(warning).toBeUndefined()
    else expect(warning).toContain(`${left} commit that names no pull request was not looked up`)
  },
  60_000
) // room for a loaded machine, not a timed assertion

describe('the squash question: asked only of a pull request of more than one commit, once per branch', () => {
  const squash = (n: number, parent: string): HistoryCommit => ({
    id: `s${n}`,
    message: `Change ${n} (#${n})`,
    parents: [parent],
    committer: BUTTON
  })
  const start: HistoryCommit = { id: 'base', message: 'Start', parents: [] }
  const work: HistoryCommit = { id: 'w', message: 'Work', parents: ['base'] }
  const questions = (gets: string[]) => gets.filter(p => p === '/repos/acme/web/pulls').length

  test('one commit: no question', async () => {
    const { found, gets } = await discover(
      [start, work, squash(5, 'base')],
      [{ number: 5, head_ref: 'feature', commits: [] }]
    )
    expect(found.numbers).toEqual([5])
    expect(questions(gets)).toBe(0)
  })

  test('two commits: one question; two pull requests from one branch: still one', async () => {
    const commits = [start, work, squash(5, 'base'), squash(6, 's5')]
    const { found, gets } = await discover(commits, [
      { number: 5, head_ref: 'feature', commits: ['unknown-1', 'unknown-2'] },
      { number: 6, head_ref: 'feature', commits: ['unknown-1', 'unknown-2'] }
    ])
    expect(found.numbers).toEqual([5, 6])
    expect(questions(gets)).toBe(1)
  })
})

describe('a (#N) on a merged branch: a quote, or a commit taken along', () => {
  const history = (into: string): { commits: HistoryCommit[]; pulls: SeedPull[] } => ({
    commits: [
      { id: 'base', message: 'Start', parents: [] },
      { id: 'b1', message: 'Follow up on the old change (#1)', parents: ['base'] },
      {
        id: 'merge',
        message: 'Merge pull request #7 from acme/feature\n\nFeature',
        parents: ['base', 'b1'],
        committer: BUTTON
      }
    ],
    pulls: [
      { number: 1, base_ref: into, head_ref: 'old' },
      { number: 7, head_ref: 'feature' }
    ]
  })

  test('N went into the branch the merge went into (main): a quote, left out with a note', async () => {
    const { commits, pulls } = history('main')
    const { found } = await discover(commits, pulls)
    expect(found.numbers).toEqual([7])
    expect(found.notes.join('\n')).toContain('left out #1: a commit subject on the branch of #7')
  })

  test('N went into a third branch (dev): taken along, counted', async () => {
    const { commits, pulls } = history('dev')
    const { found } = await discover(commits, pulls)
    expect(found.numbers).toEqual([1, 7])
  })
})

describe("the git-flow question is not asked of a bot's branch nor of a fork's", () => {
  const merged = (head: string, fork: boolean) => ({
    commits: [
      { id: 'base', message: 'Start', parents: [] },
      { id: 'b1', message: 'Bump a dependency', parents: ['base'], committer: BUTTON },
      {
        id: 'merge',
        message: `Merge pull request #7 from someone/${head}\n\nBump`,
        parents: ['base', 'b1'],
        committer: BUTTON
      }
    ],
    pulls: [{ number: 7, head_ref: head, ...(fork ? { head_repo: 'someone/web' } : {}) }]
  })
  const questions = (gets: string[]) => gets.filter(p => p === '/repos/acme/web/pulls').length

  test.each([
    ['dependabot/npm/x-1.2.3', false, 0],
    ['renovate/x', false, 0],
    ['main', true, 0],
    ['feature', false, 1]
  ])('a branch %s (from a fork: %s): %i questions', async (head, fork, asked) => {
    const { commits, pulls } = merged(head, fork)
    const { found, gets } = await discover(commits, pulls)
    expect(found.numbers).toEqual([7])
    expect(questions(gets)).toBe(asked)
  })
})

describe('a commit lookup that fails', () => {
  const lookupOf = (shas: Record<string, string>) => `/repos/acme/web/commits/${shas['c0']}/pulls`

  test('with a 500: a warning, and the run goes on', async () => {
    const { found } = await discover(plain(2), [], shas =>
      emulator.addFault({
        method: 'GET',
        path: lookupOf(shas),
        fault: { kind: 'status', status: 500, body: { message: 'boom' } }
      })
    )
    expect(found.warnings.join('\n')).toContain('could not look up the pull request of commit')
  })

  test("answered by something other than the API (a portal's 404 page): the run stops", async () => {
    await expect(
      discover(plain(2), [], shas =>
        emulator.addFault({
          method: 'GET',
          path: lookupOf(shas),
          fault: {
            kind: 'status',
            status: 404,
            headers: { 'content-type': 'text/html' },
            body: '<html><body>Sign in to the portal</body></html>'
          }
        })
      )
    ).rejects.toThrow()
  })
})

describe('subjects that name no merged pull request, and a git-flow question that fails', () => {
  test('a (#N) naming an issue or an unmerged pull request is left out with a note, no squash note', async () => {
    const commits: HistoryCommit[] = [
      { id: 'base', message: 'Start', parents: [] },
      { id: 'a', message: 'Fix the typo (#3)', parents: ['base'], committer: BUTTON },
      { id: 'b', message: 'Add search (#4)', parents: ['a'], committer: BUTTON }
    ]
    const { found } = await discover(commits, [
      { number: 3, state: 'open', merged: false, merged_at: null, head_ref: 'typo' },
      { number: 4, head_ref: 'search' }
    ])
    expect(found.numbers).toEqual([4])
    expect(found.notes.join('\n')).toContain('left out #3')
    expect(found.notes.join('\n')).not.toContain('read as part of the range')
  })

  const gitFlow = (): { commits: HistoryCommit[]; pulls: SeedPull[] } => ({
    commits: [
      { id: 'base', message: 'Start', parents: [] },
      { id: 'd1', message: 'Add search', parents: ['base'], pulls: [1], committer: BUTTON },
      {
        id: 'merge',
        message: 'Merge pull request #10 from acme/develop\n\nRelease',
        parents: ['base', 'd1'],
        committer: BUTTON
      }
    ],
    pulls: [
      { number: 1, base_ref: 'develop', head_ref: 'search' },
      { number: 10, head_ref: 'develop' }
    ]
  })

  test('the question answered 500: the branch is taken as one pull requests went into', async () => {
    const { commits, pulls } = gitFlow()
    const { found } = await discover(commits, pulls, () =>
      emulator.addFault({
        method: 'GET',
        path: '/repos/acme/web/pulls',
        fault: { kind: 'status', status: 500, body: { message: 'boom' } }
      })
    )
    expect(found.numbers).toEqual([1, 10])
  })

  test("the question answered by something other than the API (a portal's 404): the run stops", async () => {
    const { commits, pulls } = gitFlow()
    await expect(
      discover(commits, pulls, () =>
        emulator.addFault({
          method: 'GET',
          path: '/repos/acme/web/pulls',
          fault: {
            kind: 'status',
            status: 404,
            headers: { 'content-type': 'text/html' },
            body: '<html><body>Sign in to the portal</body></html>'
          }
        })
      )
    ).rejects.toThrow()
  })
})

describe('the originals of backports: at most MAX_BACKPORT_READS read in a run, the rest said', () => {
  /** `count` backports squash-merged onto 3.14, each naming its original (`backport of #N`). */
  const backports = (count: number) => {
    const commits: HistoryCommit[] = [{ id: 'base', message: 'Start', parents: [] }]
    const pulls: SeedPull[] = []
    for (let i = 0; i < count; i++) {
      commits.push({
        id: `b${i}`,
        message: `Fix ${i} (backport of #${1000 + i}) (#${2000 + i})`,
        parents: [i === 0 ? 'base' : `b${i - 1}`],
        committer: BUTTON
      })
      pulls.push({ number: 1000 + i }, { number: 2000 + i, base_ref: '3.14' })
    }
    return { commits, pulls }
  }
  const originalReads = (gets: string[]) => gets.filter(p => /\/pulls\/1\d{3}$/.test(p)).length

  test.each([
    [MAX_BACKPORT_READS, 0],
    [MAX_BACKPORT_READS + 1, 1]
  ])(
    '%i backports: every original up to the cap labeled, %i left out and named',
    async (count, left) => {
      const { commits, pulls } = backports(count)
      const { found, gets } = await discover(commits, pulls)
      expect(originalReads(gets)).toBe(MAX_BACKPORT_READS)
      const originals = found.numbers.filter(n => n < 2000)
      expect(originals).toHaveLength(count - left)
      const warning = found.warnings.find(w => w.includes('read in one run'))
      if (left === 0) expect(warning).toBeUndefined()
      else expect(warning).toContain(`left out #${1000 + count - 1}`)
      expect(found.backports).toHaveLength(count - left)
    },
    60_000
  ) // room for a loaded machine, not a timed assertion
})
