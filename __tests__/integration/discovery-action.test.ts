// Over 300 lines: each discovery finding needs its own staged history and emulator seed.
/**
 * Which pull requests a deployment shipped, through the bundled action as the runner starts it:
 * a git-flow release read with git and with the compare endpoint, a long range of merge-commit
 * pull requests on the compare path, a comparison the service cut short, and a token that
 * cannot read pull requests (404).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { dir, emulator, useDiscoveryWorld } from '../../__fixtures__/discovery-run.js'
import { labeled, runLabels, warnings } from '../../__fixtures__/discovery-run.js'
import { seedCommits, writeRepository, type HistoryCommit } from '../../__fixtures__/history.js'
import { startEmulator, type SeedCommit } from '../../emulator/index.js'
import { projectRoot, runAction } from '../../scripts/run-action.js'

const REPO = 'acme/web'
const R = '/repos/acme/web'
/** a sha whose short form shows `n` */
const hex = (n: number) => n.toString(16).padStart(4, '0').repeat(10)

useDiscoveryWorld('discovery-action')
const lookups = () => emulator.requests.filter(r => /\/commits\/[0-9a-f]+\/pulls$/.test(r.path))

/**
 * Git-flow: #11 and #12 squash-merged into develop, #13 merged into develop with a merge commit,
 * then develop merged into main by #20 and tagged v1.1.0.
 */
const GIT_FLOW: HistoryCommit[] = [
  { id: 'start', message: 'Start', parents: [] },
  { id: 'retries', message: 'Add retries (#11)', parents: ['start'], pulls: [11] },
  { id: 'pool', message: 'Tune the pool (#12)', parents: ['retries'], pulls: [12] },
  { id: 'cache', message: 'Cache the index', parents: ['pool'], pulls: [13] },
  {
    id: 'merge13',
    message: 'Merge pull request #13 from acme/cache\n\nCache the index',
    parents: ['pool', 'cache'],
    pulls: [13]
  },
  {
    id: 'release',
    message: 'Merge pull request #20 from acme/develop\n\nRelease 1.1.0',
    parents: ['start', 'merge13'],
    pulls: [20]
  }
]
const GIT_FLOW_PULLS = [
  { number: 11, base_ref: 'develop', head_ref: 'retries' },
  { number: 12, base_ref: 'develop', head_ref: 'pool' },
  { number: 13, base_ref: 'develop', head_ref: 'cache' },
  { number: 20, base_ref: 'main', head_ref: 'develop' }
]

test('a git-flow release labels the same pull requests with the history (git) and without (compare)', async () => {
  const repoDir = join(dir, 'git-flow')
  const shas = writeRepository(repoDir, GIT_FLOW, 'release', {
    'v1.0.0': 'start',
    'v1.1.0': 'release'
  })
  const release = async (workspace: string | undefined, inputs: Record<string, string>) => {
    emulator.reset()
    emulator.seed({
      pulls: { [REPO]: GIT_FLOW_PULLS },
      commits: { [REPO]: seedCommits(GIT_FLOW, shas) },
      refs: { [REPO]: { 'v1.0.0': shas['start'] as string } }
    })
    const run = await runLabels(inputs, {
      eventName: 'release',
      event: { action: 'published', release: { tag_name: 'v1.1.0' } },
      sha: shas['release'],
      ref: 'refs/tags/v1.1.0',
      ...(workspace ? { workspace } : {})
    })
    return {
      run,
      labeled: labeled(),
      compared: emulator.requests.some(r => r.path.includes('/compare/'))
    }
  }

  // fetch-depth: 0, as the promotion example asks: the previous tag and the range from git.
  const byGit = await release(repoDir, {})
  expect(byGit.run.code).toBe(0)
  expect(warnings(byGit.run)).toEqual([])
  expect(byGit.compared).toBe(false)
  expect(byGit.run.stdout).toMatch(/read with git/)
  expect(byGit.labeled).toEqual([11, 12, 13, 20])
  expect(byGit.run.outputs['pull-requests']).toBe('11,12,13,20')

  // No history (the default shallow checkout): `since` and the compare endpoint.
  const byCompare = await release(undefined, { since: 'v1.0.0' })
  expect(byCompare.run.code).toBe(0)
  expect(warnings(byCompare.run)).toEqual([])
  expect(byCompare.compared).toBe(true)
  expect(byCompare.labeled).toEqual([11, 12, 13, 20])
})

test('compare path: lookups go to main-line commits that name no pull request, not to merged branches', async () => {
  // An older rebase-merged pull request (#30: one commit naming none) then four merge-commit
  // pull requests (#31-#34) of 80 branch commits each: 325 commits, 321 naming none.
  const commits: SeedCommit[] = [{ sha: hex(1), message: 'Start' }]
  commits.push({ sha: hex(2), message: 'Speed up the start', pulls: [30] })
  let main = hex(2)
  let n = 3
  for (const number of [31, 32, 33, 34]) {
    let head = main
    for (let i = 1; i <= 80; i++) {
      commits.push({
        sha: hex(n),
        message: `Work ${i} on ${number}`,
        parents: [head],
        pulls: [number]
      })
      head = hex(n++)
    }
    commits.push({
      sha: hex(n),
      message: `Merge pull request #${number} from acme/feature-${number}\n\nFeature ${number}`,
      parents: [main, head],
      pulls: [number]
    })
    main = hex(n++)
  }
  emulator.seed({
    pulls: { [REPO]: [30, 31, 32, 33, 34].map(number => ({ number })) },
    commits: { [REPO]: commits },
    refs: { [REPO]: { 'v1.0.0': hex(1) } }
  })

  const run = await runLabels({ since: 'v1.0.0' }, { eventName: 'workflow_dispatch', sha: main })

  expect(run.code).toBe(0)
  expect(warnings(run)).toEqual([])
  expect(labeled()).toEqual([30, 31, 32, 33, 34])
  // One lookup: the main-line commit that names none. The merge commits name theirs.
  expect(lookups().map(r => r.path)).toEqual([`${R}/commits/${hex(2)}/pulls`])
})

test('a comparison the service lists in part (total_commits above the commits read) is a warning with the count', async () => {
  emulator.seed({
    pulls: { [REPO]: [{ number: 12 }, { number: 14 }] },
    commits: {
      [REPO]: [
        { sha: hex(1), message: 'Start' },
        { sha: hex(2), message: 'Add retries (#12)' },
        { sha: hex(3), message: 'Fix a typo' },
        { sha: hex(4), message: 'Tune the pool (#14)' },
        { sha: hex(5), message: 'Bump the version' },
        { sha: hex(6), message: 'Write the changelog' }
      ]
    },
    refs: { [REPO]: { 'v1.0.0': hex(1) } },
    compareLimit: 3
  })

  const run = await runLabels({ since: 'v1.0.0' }, { eventName: 'workflow_dispatch', sha: hex(6) })

  expect(run.code).toBe(0)
  expect(labeled()).toEqual([14])
  expect(warnings(run)).toEqual([
    expect.stringMatching(
      /listed 3 of the 5 commits of v1\.0\.0\.\.\.(0006){10}: 2 commits were not read.*fetch-depth: 0/
    ),
    // the two listed that were pushed without a pull request (issue 43: never silent)
    expect.stringContaining('2 commits of the range belong to no pull request')
  ])
})

test('a 404 on a pull request or on the commit lookup names `pull-requests: read` and labels what the issues API proves', async () => {
  emulator.seed({
    pulls: { [REPO]: [{ number: 12 }, { number: 15 }] },
    issues: { [REPO]: [{ number: 7 }] },
    commits: {
      [REPO]: [
        { sha: hex(1), message: 'Start' },
        { sha: hex(2), message: 'Add retries (#12)', pulls: [12] },
        { sha: hex(3), message: 'Mention an issue (#7)' },
        { sha: hex(4), message: 'Tune the pool', pulls: [15] },
        { sha: hex(5), message: 'Tune it more', pulls: [15] }
      ]
    },
    refs: { [REPO]: { 'v1.0.0': hex(1) } }
  })
  // What the service answers a token without `pull-requests: read` on a private repository.
  const notFound = { kind: 'status' as const, status: 404, body: { message: 'Not Found' } }
  emulator.addFault({ method: 'GET', path: /\/pulls\/\d+$/, times: 10, fault: notFound })
  emulator.addFault({
    method: 'GET',
    path: /\/commits\/[0-9a-f]+\/pulls$/,
    times: 10,
    fault: notFound
  })

  const run = await runLabels({ since: 'v1.0.0' }, { eventName: 'workflow_dispatch', sha: hex(5) })

  expect(run.code).toBe(0)
  // #12 is a merged pull request by the issues API; #7 is an issue and stays out.
  expect(labeled()).toEqual([12])
  const said = warnings(run)
  expect(said).toEqual([
    expect.stringMatching(/pulls\/\{n\} answered 404 for #12.*`pull-requests: read`/),
    expect.stringMatching(
      /3 commits that name no pull request were not looked up \(3 on the main line.*0005000, 0004000, 0003000\).*answered 404: .*`pull-requests: read`/
    )
  ])
  // The lookup stops at the first 404 instead of failing once per commit.
  expect(lookups()).toHaveLength(1)
})

test("README's permission table is enough for what discovery calls", async () => {
  // The permissions README's table lists for labeling pull requests and for finding them.
  const readme = readFileSync(join(projectRoot(), 'README.md'), 'utf8')
  const rows = readme
    .split('\n')
    .filter(line => /^\| (labels on pull requests|finding the pull requests) /.test(line))
  expect(rows).toHaveLength(2)
  const granted = rows.flatMap(row =>
    [...(row.split('|')[2] ?? '').matchAll(/`([a-z-]+: (?:read|write))`/g)]
      .map(m => m[1] as string)
      // "(or `issues: write`)" is an alternative, not a requirement
      .filter(p => !new RegExp(`\\(or \`${p}\``).test(row))
  )
  expect(granted.sort()).toEqual(['contents: read', 'pull-requests: read', 'pull-requests: write'])
  const limited = await startEmulator({ tokens: { scoped: { permissions: granted } } })
  try {
    // Every read discovery makes: compare, a pull request by subject, an issue number in a
    // subject (pulls then issues), a merged branch that shows another pull request (the pull
    // request list: a commit the merge button made), a commit lookup, a release squash-merged
    // from develop (its commits).
    limited.seed({
      pulls: {
        [REPO]: [
          { number: 12 },
          { number: 13, head_ref: 'cache' },
          { number: 15 },
          { number: 17, head_ref: 'develop', commits: [hex(8)] },
          { number: 18, base_ref: 'develop' }
        ]
      },
      issues: { [REPO]: [{ number: 7 }] },
      commits: {
        [REPO]: [
          { sha: hex(1), message: 'Start' },
          { sha: hex(2), message: 'Add retries (#12)' },
          { sha: hex(3), message: 'Cache the index', pulls: [13] },
          {
            sha: hex(7),
            message: 'Apply suggestions from code review',
            parents: [hex(3)],
            pulls: [13],
            committer: 'noreply@github.com'
          },
          {
            sha: hex(4),
            message: 'Merge pull request #13 from acme/cache',
            parents: [hex(2), hex(7)]
          },
          { sha: hex(5), message: 'Mention an issue (#7)' },
          { sha: hex(6), message: 'Tune the pool', pulls: [15] },
          { sha: hex(8), message: 'Add search (#18)', parents: [hex(1)] },
          {
            sha: hex(9),
            message: 'Release 1.1 (#17)\n\n* Add search (#18)',
            parents: [hex(6)],
            pulls: [17]
          }
        ]
      },
      refs: { [REPO]: { 'v1.0.0': hex(1) } }
    })
    const run = await runAction(
      { labels: 'deployed:production', since: 'v1.0.0' },
      {},
      {
        context: {
          token: 'scoped',
          apiUrl: limited.url,
          eventName: 'workflow_dispatch',
          sha: hex(9)
        }
      }
    )
    expect(run.code).toBe(0)
    // `Mention an issue (#7)` ties to no pull request: the one warning says so.
    expect(warnings(run)).toEqual([
      expect.stringContaining('1 commit of the range belongs to no pull request')
    ])
    expect(run.outputs['pull-requests']).toBe('12,13,15,17,18')
    expect(limited.requests.filter(r => r.status >= 400).map(r => r.path)).toEqual([
      `${R}/pulls/7` // an issue: 404 as a pull request
    ])
    const reads = new Set(
      limited.requests.map(r =>
        r.path
          .replace(/\/compare\/.*/, '/compare/{basehead}')
          .replace(/\/commits\/[0-9a-f]+\/pulls/, '/commits/{sha}/pulls')
          .replace(/\/(pulls|issues)\/\d+/, '/$1/{n}')
          .replace(/\?.*/, '')
      )
    )
    for (const read of [
      `${R}/compare/{basehead}`,
      `${R}/pulls/{n}`,
      `${R}/issues/{n}`,
      `${R}/pulls`,
      `${R}/commits/{sha}/pulls`,
      `${R}/pulls/{n}/commits`
    ])
      expect(reads).toContain(read)
  } finally {
    await limited.close()
  }
})
