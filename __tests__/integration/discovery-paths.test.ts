/**
 * `paths` through the bundled action as the runner starts it: a five-service monorepo (web, api,
 * worker, billing, auth) written as a real git repository, one tag form per service. Pushing
 * `web-v1.2.0` with `paths: web/**` starts at `web-v1.1.0` and labels only the pull requests that
 * changed `web/`, on both paths: git with the history (no request for files), and without it the
 * service's list of each pull request's files (one read each, counted).
 */
import { join } from 'node:path'
import { writeRepository, seedCommits, type HistoryCommit } from '../../__fixtures__/history.js'
import {
  emulator,
  dir,
  labeled,
  runLabels,
  tagPush,
  useDiscoveryWorld,
  warnings
} from '../../__fixtures__/discovery-run.js'
import type { SeedPull } from '../../emulator/index.js'

useDiscoveryWorld('discovery-paths')

const REPO = 'acme/shop'
const BUTTON = 'noreply@github.com'
const BOTH = [
  ['with the history (git)', true],
  ['without it (the service lists the files)', false]
] as const

/** Files written by commit `id`: each path holds the id, so a later write of it is a change. */
const touch = (id: string, ...paths: string[]) => Object.fromEntries(paths.map(p => [p, id]))

/**
 * After `web-v1.1.0`: #1 squash-merged (web), #2 squash-merged (api), #3 merged with a merge
 * commit, changing web and api, #4 rebase-merged (worker, two commits), #5 rebase-merged whose
 * first commit changed `web/.env` and whose last changed billing, #6 merged with a merge commit
 * from a branch that merged main in (with #1's web change) and itself changed only billing.
 * `api-v2.3.0` sits between: another service's tag form, never the start.
 */
const HISTORY: HistoryCommit[] = [
  {
    id: 'start',
    message: 'Five services',
    parents: [],
    files: touch(
      'start',
      'web/index.ts',
      'api/index.ts',
      'worker/index.ts',
      'billing/index.ts',
      'auth/index.ts'
    )
  },
  {
    id: 'p1',
    message: 'Web header (#1)',
    parents: ['start'],
    pulls: [1],
    committer: BUTTON,
    files: touch('p1', 'web/header.ts')
  },
  {
    id: 'p2',
    message: 'API sessions (#2)',
    parents: ['p1'],
    pulls: [2],
    committer: BUTTON,
    files: touch('p2', 'api/sessions.ts')
  },
  // #3's branch, cut from `start`, and its merge bringing what the branch changed.
  {
    id: 'f3',
    message: 'Shared types',
    parents: ['start'],
    pulls: [3],
    files: touch('f3', 'web/types.ts', 'api/types.ts')
  },
  {
    id: 'm3',
    message: 'Merge pull request #3 from acme/types\n\nShared types',
    parents: ['p2', 'f3'],
    pulls: [3],
    files: touch('f3', 'web/types.ts', 'api/types.ts')
  },
  {
    id: 'r4a',
    message: 'Queue retries',
    parents: ['m3'],
    pulls: [4],
    committer: BUTTON,
    files: touch('r4a', 'worker/queue.ts')
  },
  {
    id: 'r4b',
    message: 'Queue metrics',
    parents: ['r4a'],
    pulls: [4],
    committer: BUTTON,
    files: touch('r4b', 'worker/metrics.ts')
  },
  {
    id: 'r5a',
    message: 'Invoice link in the web settings',
    parents: ['r4b'],
    pulls: [5],
    committer: BUTTON,
    files: touch('r5a', 'web/.env')
  },
  {
    id: 'r5b',
    message: 'Invoice numbers',
    parents: ['r5a'],
    pulls: [5],
    committer: BUTTON,
    files: touch('r5b', 'billing/invoice.ts')
  },
  // #6's branch, cut from `start`, merged main (with #1's web/header.ts) in, then merged.
  {
    id: 'f6',
    message: 'Tax rates',
    parents: ['start'],
    pulls: [6],
    files: touch('f6', 'billing/tax.ts')
  },
  {
    id: 'u6',
    message: "Merge branch 'main' into tax",
    parents: ['f6', 'p1'],
    files: touch('p1', 'web/header.ts')
  },
  {
    id: 'm6',
    message: 'Merge pull request #6 from acme/tax\n\nTax rates',
    parents: ['r5b', 'u6'],
    pulls: [6],
    files: touch('f6', 'billing/tax.ts')
  },
  {
    id: 'a7',
    message: 'Auth scopes (#7)',
    parents: ['m6'],
    pulls: [7],
    committer: BUTTON,
    files: touch('a7', 'auth/scopes.ts')
  }
]

const TAGS = { 'web-v1.1.0': 'start', 'api-v2.3.0': 'm3', 'web-v1.2.0': 'a7' }

/** What the service lists for each pull request's files (as GitHub shows its diff). */
const PULLS: SeedPull[] = [
  { number: 1, head_ref: 'header', body: 'Fixes #20', files: ['web/header.ts'] },
  { number: 2, head_ref: 'sessions', body: 'Fixes #21', files: ['api/sessions.ts'] },
  { number: 3, head_ref: 'types', body: 'Closes #22', files: ['api/types.ts', 'web/types.ts'] },
  { number: 4, head_ref: 'queue', files: ['worker/metrics.ts', 'worker/queue.ts'] },
  { number: 5, head_ref: 'invoices', files: ['billing/invoice.ts', 'web/.env'] },
  { number: 6, head_ref: 'tax', body: 'Fixes #23', files: ['billing/tax.ts'] },
  { number: 7, head_ref: 'scopes', files: ['auth/scopes.ts'] }
]

const filesReads = () =>
  emulator.requests.filter(r => r.method === 'GET' && /\/pulls\/\d+\/files/.test(r.path)).length

async function deploy(name: string, withHistory: boolean, inputs: Record<string, string>) {
  const repoDir = join(dir, `${name}-${withHistory ? 'git' : 'service'}`)
  const shas = writeRepository(repoDir, HISTORY, TAGS['web-v1.2.0'], TAGS)
  emulator.reset()
  emulator.seed({
    pulls: { [REPO]: PULLS },
    issues: { [REPO]: [20, 21, 22, 23].map(number => ({ number })) },
    commits: { [REPO]: seedCommits(HISTORY, shas) },
    tags: {
      [REPO]: Object.fromEntries(Object.entries(TAGS).map(([t, id]) => [t, shas[id] as string]))
    }
  })
  const run = await runLabels(
    { repository: REPO, ...inputs },
    tagPush('web-v1.2.0', shas[TAGS['web-v1.2.0']], withHistory ? repoDir : undefined)
  )
  return { run, shas }
}

describe('a monorepo deploy with `paths: web/**` labels only pull requests that changed web/', () => {
  test.each(BOTH)(
    'web-v1.2.0 from web-v1.1.0, %s: #1, #3 (web and api), #5 (web/.env in its first commit) and the issues they close',
    async (_name, withHistory) => {
      const { run } = await deploy('web', withHistory, {
        paths: 'web/**',
        'label-linked-issues': 'true'
      })
      expect(run.code).toBe(0)
      expect(warnings(run)).toEqual([])
      expect(run.stdout).toContain('tag web-v1.2.0: previous release web-v1.1.0 by version order')
      // #2 (api), #4 (worker), #6 (billing, though its branch merged #1's web change in) and #7
      // (auth) are left out, and so are #21 and #23, which only they close.
      expect(labeled(REPO)).toEqual([1, 3, 5, 20, 22])
      expect(run.stdout).toContain(
        'paths: #1, #3 and #5 changed files in web/**; left out #2, #4, #6 and #7, which changed none'
      )
      // Git says the files with no request; without the history, one read each.
      expect(filesReads()).toBe(withHistory ? 0 : 7)
      // The summary's count of reads holds them: every GET the service saw.
      const gets = emulator.requests.filter(r => r.method === 'GET').length
      expect(run.summary).toContain(`${gets} reads and 5 writes were sent.`)
      expect(run.stdout).toContain(
        withHistory ? '(files read with git)' : '(files listed by the service: 7 reads)'
      )
    }
  )

  test.each(BOTH)(
    "the same deploy without `paths` labels every service's pull requests, %s, and reads no files",
    async (_name, withHistory) => {
      const { run } = await deploy('all', withHistory, {})
      expect(run.code).toBe(0)
      expect(labeled(REPO)).toEqual([1, 2, 3, 4, 5, 6, 7])
      expect(filesReads()).toBe(0)
    }
  )

  test.each(BOTH)('`!` leaves files out in order, %s', async (_name, withHistory) => {
    // web's dotfiles left out: #5 changed only web/.env there, so it no longer counts; billing
    // taken in after: #5 and #6 count by it.
    const { run } = await deploy('order', withHistory, {
      paths: 'web/**\n!web/.*\nbilling/tax.ts'
    })
    expect(run.code).toBe(0)
    expect(labeled(REPO)).toEqual([1, 3, 6])
  })
})

describe('the pull_request event counts only when its pull request changed a matching file', () => {
  test.each(BOTH)('%s', async (_name, withHistory) => {
    const repoDir = join(dir, `event-${withHistory ? 'git' : 'service'}`)
    const shas = writeRepository(repoDir, HISTORY, 'a7', TAGS)
    const event = (number: number, base: string, head: string) => ({
      number,
      pull_request: {
        number,
        base: { sha: shas[base], ref: 'main', repo: { full_name: REPO } },
        head: { sha: shas[head], ref: `f-${number}` }
      }
    })
    const results: number[][] = []
    // #6 (billing only) and #1 (web), as open pull requests: base `start`, head their branch.
    for (const [number, head] of [
      [6, 'f6'],
      [1, 'p1']
    ] as const) {
      emulator.reset()
      emulator.seed({ pulls: { [REPO]: PULLS.map(p => ({ ...p, merged: false })) } })
      const run = await runLabels(
        { repository: REPO, paths: 'web/**' },
        {
          eventName: 'pull_request',
          event: event(number, 'start', head),
          sha: shas[head],
          ref: `refs/pull/${number}/merge`,
          ...(withHistory ? { workspace: repoDir } : {})
        }
      )
      expect(run.code).toBe(0)
      expect(filesReads()).toBe(withHistory ? 0 : 1)
      results.push(labeled(REPO))
    }
    expect(results).toEqual([[], [1]])
  })
})

test('the service cannot tell: a pull request of more than 3000 files counts with a warning; a 403 names pull-requests: read', async () => {
  const repoDir = join(dir, 'untold')
  const shas = writeRepository(repoDir, HISTORY, 'a7', TAGS)
  emulator.reset()
  // #2 changed 3001 files, its one web file past the 3000 the service lists.
  const many = [...Array.from({ length: 3000 }, (_, i) => `api/generated/f${i}.ts`), 'web/late.ts']
  emulator.seed({
    pulls: { [REPO]: PULLS.map(p => (p.number === 2 ? { ...p, files: many } : p)) },
    commits: { [REPO]: seedCommits(HISTORY, shas) },
    tags: {
      [REPO]: Object.fromEntries(Object.entries(TAGS).map(([t, id]) => [t, shas[id] as string]))
    }
  })
  emulator.addFault({
    method: 'GET',
    path: `/repos/${REPO}/pulls/4/files`,
    fault: {
      kind: 'status',
      status: 403,
      body: { message: 'Resource not accessible by integration' }
    }
  })
  const run = await runLabels(
    { repository: REPO, paths: 'web/**' },
    tagPush('web-v1.2.0', shas['a7'])
  )
  expect(run.code).toBe(0)
  // #2 counts (it may have changed web/), and so do #4 to #7, whose files were not read.
  expect(labeled(REPO)).toEqual([1, 2, 3, 4, 5, 6, 7])
  expect(warnings(run)).toEqual([
    expect.stringMatching(
      /#2 changed more files than the service lists \(3000\), and none of those listed is in web\/\*\*: it counts/
    ),
    expect.stringMatching(
      /GET \/repos\/acme\/shop\/pulls\/4\/files answered 403: .*`pull-requests: read`.*#4, #5, #6 and #7 count without/
    )
  ])
  expect(run.stdout).toContain(
    'paths: #1 and #3 changed files in web/**; #2, #4, #5, #6 and #7 count, as their files could ' +
      'not all be told (see the warnings) (files listed by the service: 32 reads)'
  )
  // One read for #1 and #3, 30 pages of 100 for #2, the refused one for #4; none after it.
  expect(filesReads()).toBe(1 + 30 + 1 + 1)
})

test.each(BOTH)('a branch push passes `paths` too, %s', async (_name, withHistory) => {
  const repoDir = join(dir, `push-${withHistory ? 'git' : 'service'}`)
  const shas = writeRepository(repoDir, HISTORY, 'm6', TAGS)
  emulator.reset()
  emulator.seed({
    pulls: { [REPO]: PULLS },
    commits: { [REPO]: seedCommits(HISTORY, shas) }
  })
  // The push brought #3 to #6: #3 and #5 changed web/.
  const run = await runLabels(
    { repository: REPO, paths: 'web/**' },
    {
      eventName: 'push',
      event: { ref: 'refs/heads/main', before: shas['p2'], after: shas['m6'], commits: [] },
      sha: shas['m6'],
      ref: 'refs/heads/main',
      ...(withHistory ? { workspace: repoDir } : {})
    }
  )
  expect(run.code).toBe(0)
  expect(warnings(run)).toEqual([])
  expect(labeled(REPO)).toEqual([3, 5])
  expect(filesReads()).toBe(withHistory ? 0 : 4)
})
