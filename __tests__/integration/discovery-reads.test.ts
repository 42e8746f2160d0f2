/**
 * What labeling a discovered range costs in reads, through the bundled action as the runner
 * starts it, counted in the emulator's request log (counts, not times): the compare page, then
 * one read per pull request or issue labeled. The answer that found a pull request (its own
 * read, or the commit lookup) carries its labels, and a linked issue's read carries its own, so
 * none is read a second time; a fork's branch gathers no pull request of the repository, so its
 * merge needs no `pulls?base=` question.
 */
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import type { Emulator, SeedCommit, SeedPull } from '../../emulator/index.js'
import { runAction, type ActionRun } from '../../scripts/run-action.js'

const REPO = 'acme/web'
const R = '/repos/acme/web'
const LABEL = 'deployed:production'
/** a sha whose short form shows `n` */
const hex = (n: number) => n.toString(16).padStart(4, '0').repeat(10)

const warnings = (run: ActionRun) =>
  run.stdout.split('\n').filter(line => line.startsWith('::warning::'))

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator()
})
afterAll(async () => emulator.close())
beforeEach(() => emulator.reset())

/**
 * v1.0.0..head: #1-#6 squash-merged (`Title (#k)`), #7-#12 rebase-merged (subjects name none:
 * the commit lookup finds them), #13-#16 merged from forks with merge commits (one commit on
 * each branch). #1 closes issue #30; #2 already carries the label.
 */
function seedRange(): { head: string; pulls: number[] } {
  const commits: SeedCommit[] = [{ sha: hex(1), message: 'Start' }]
  let tip = hex(1)
  let n = 2
  const add = (message: string, parents: string[], pulls: number[]) => {
    const sha = hex(n++)
    commits.push({ sha, message, parents, pulls })
    return sha
  }
  for (let k = 1; k <= 6; k++) tip = add(`Change ${k} (#${k})`, [tip], [k])
  for (let k = 7; k <= 12; k++) tip = add(`Tweak ${k}`, [tip], [k])
  for (let k = 13; k <= 16; k++) {
    const branch = add(`Fix ${k}`, [tip], [k])
    tip = add(
      `Merge pull request #${k} from someone-${k}/patch-${k}\n\nFix ${k}`,
      [tip, branch],
      [k]
    )
  }
  const pulls: SeedPull[] = Array.from({ length: 16 }, (_, i) => {
    const k = i + 1
    return {
      number: k,
      ...(k === 1 ? { body: 'Fixes #30' } : {}),
      ...(k === 2 ? { labels: [LABEL] } : {}),
      ...(k >= 13 ? { head_ref: `patch-${k}`, head_repo: `someone-${k}/web` } : {})
    }
  })
  emulator.seed({
    labels: { [REPO]: [{ name: LABEL, color: '0e8a16' }] },
    issues: { [REPO]: [{ number: 30 }] },
    pulls: { [REPO]: pulls },
    commits: { [REPO]: commits },
    refs: { [REPO]: { 'v1.0.0': hex(1) } }
  })
  return { head: tip, pulls: pulls.map(p => p.number) }
}

test('a labeled range costs its compare page and one read per pull request or issue labeled', async () => {
  const { head } = seedRange()

  const run = await runAction(
    { labels: LABEL, since: 'v1.0.0', 'label-linked-issues': 'true', 'dry-run': 'true' },
    {},
    {
      context: { token: TOKEN, apiUrl: emulator.url, eventName: 'workflow_dispatch', sha: head }
    }
  )

  expect(run.code).toBe(0)
  // Same result as reading each target's labels: every one but #2 (already labeled) gets it.
  const planned = [...run.stdout.matchAll(/Dry run: would POST \S+\/issues\/(\d+)\/labels/g)].map(
    m => Number(m[1])
  )
  expect(planned.sort((a, b) => a - b)).toEqual([
    1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 30
  ])
  const reads = emulator.requests.filter(r => r.method === 'GET').map(r => r.path)
  const kinds = {
    compare: reads.filter(p => p.includes('/compare/')).length,
    pulls: reads.filter(p => /\/pulls\/\d+$/.test(p)).length,
    lookups: reads.filter(p => /\/commits\/[0-9a-f]+\/pulls/.test(p)).length,
    issues: reads.filter(p => /\/issues\/\d+$/.test(p)).length,
    labelReads: reads.filter(p => /\/issues\/\d+\/labels/.test(p)).length,
    branchQuestions: reads.filter(p => p === `${R}/pulls`).length
  }
  // 1 page; #1-#6 and #13-#16 named by subjects; #7-#12 by lookups; issue #30 by its read.
  expect(kinds).toEqual({
    compare: 1,
    pulls: 10,
    lookups: 6,
    issues: 1,
    labelReads: 0,
    branchQuestions: 0
  })
  expect(reads).toHaveLength(1 + 16 + 1)
  expect(reads).toContain(`${R}/issues/30`)
})

/** `pulls` and `commits` on the emulator after v1.0.0 (hex(1)), then a dry run from it to `head`. */
async function dryRunOver(pulls: SeedPull[], commits: SeedCommit[], head: string) {
  emulator.seed({
    pulls: { [REPO]: pulls },
    commits: { [REPO]: commits },
    refs: { [REPO]: { 'v1.0.0': hex(1) } }
  })
  return runAction(
    { labels: LABEL, since: 'v1.0.0', 'dry-run': 'true' },
    {},
    { context: { token: TOKEN, apiUrl: emulator.url, eventName: 'workflow_dispatch', sha: head } }
  )
}

/**
 * A merge-commit project's release: v1.0.0..head, 400 pull requests from branches of the
 * repository, each merged with a merge commit over two branch commits (every tenth branch has
 * `main` merged into it, which brings nothing new), ten commits pushed to main that name none,
 * and four branches that show another pull request (a commit the merge button made:
 * "Apply suggestions from code review"). The git-flow question (`pulls?state=closed&base=`) is
 * asked for those four branches only.
 */
test('a merge-commit range of 400 pull requests costs its pages, one read per pull request and the lookups', async () => {
  const commits: SeedCommit[] = [{ sha: hex(1), message: 'Start' }]
  let n = 2
  let main = hex(1)
  const add = (message: string, parents: string[], pulls: number[] = [], committer?: string) => {
    const sha = hex(n++)
    commits.push({ sha, message, parents, pulls, ...(committer ? { committer } : {}) })
    return sha
  }
  const pulls: SeedPull[] = []
  for (let k = 1; k <= 400; k++) {
    let branch = add(`Work on ${k}`, [main], [k])
    if (k % 10 === 0) branch = add(`Merge branch 'main' into feature-${k}`, [branch, main], [k])
    const button = k % 100 === 50 ? 'noreply@github.com' : undefined
    branch = add(button ? 'Apply suggestions from code review' : `Test ${k}`, [branch], [k], button)
    main = add(
      `Merge pull request #${k} from acme/feature-${k}\n\nChange ${k}`,
      [main, branch],
      [k]
    )
    if (k % 40 === 0) main = add(`Bump the build number ${k}`, [main])
    pulls.push({ number: k, head_ref: `feature-${k}` })
  }

  const run = await dryRunOver(pulls, commits, main)

  expect(run.code).toBe(0)
  // The ten bumps pushed to main belong to no pull request: one warning counts them (issue 43).
  expect(warnings(run)).toEqual([
    expect.stringContaining('10 commits of the range belong to no pull request')
  ])
  expect(run.stdout.match(/Dry run: would POST \S+\/issues\/\d+\/labels/g)).toHaveLength(400)
  const reads = emulator.requests.filter(r => r.method === 'GET').map(r => r.path)
  const pages = Math.ceil((commits.length - 1) / 100)
  const kinds = {
    compare: reads.filter(p => p.includes('/compare/')).length,
    pulls: reads.filter(p => /\/pulls\/\d+$/.test(p)).length,
    lookups: reads.filter(p => /\/commits\/[0-9a-f]+\/pulls/.test(p)).length,
    branchQuestions: reads.filter(p => p === `${R}/pulls`).length
  }
  // 1,250 commits: 13 pages; #1-#400 by their merge subjects; the ten bumps looked up; one list
  // of closed pull requests for the four branches that show another (before: four questions;
  // before that, one question per branch, 400).
  expect(kinds).toEqual({ compare: pages, pulls: 400, lookups: 10, branchQuestions: 1 })
  expect(reads).toHaveLength(pages + 400 + 10 + 1)
})

/**
 * Dependabot's pull requests merged with merge commits (etcd-io/bbolt: 113 of its last 400
 * merged branches): each branch's one commit is committed by GitHub (`noreply@github.com`), as
 * a rebase merge into a branch would be, but a bot's branch (`dependabot/…`, `renovate/…`)
 * gathers no pull request: no `pulls?state=closed&base=` question for it.
 */
test('merge-commit pull requests from dependabot and renovate branches cost no git-flow question', async () => {
  const commits: SeedCommit[] = [{ sha: hex(1), message: 'Start' }]
  let n = 2
  let main = hex(1)
  const pulls: SeedPull[] = []
  for (let k = 1; k <= 20; k++) {
    const head = k % 2 ? `dependabot/npm_and_yarn/lib-${k}-1.0.${k}` : `renovate/lib-${k}-1.x`
    const branch = hex(n++)
    commits.push({
      sha: branch,
      message: `build(deps): Bump lib-${k} from 1.0.0 to 1.0.${k}`,
      parents: [main],
      pulls: [k],
      committer: 'noreply@github.com'
    })
    const merge = hex(n++)
    commits.push({
      sha: merge,
      message: `Merge pull request #${k} from acme/${head}\n\nBump lib-${k}`,
      parents: [main, branch],
      pulls: [k]
    })
    main = merge
    pulls.push({ number: k, head_ref: head })
  }
  const run = await dryRunOver(pulls, commits, main)
  expect(run.code).toBe(0)
  expect(warnings(run)).toEqual([])
  expect(run.stdout.match(/Dry run: would POST \S+\/issues\/\d+\/labels/g)).toHaveLength(20)
  const reads = emulator.requests.filter(r => r.method === 'GET').map(r => r.path)
  expect(reads.filter(p => p === `${R}/pulls`)).toEqual([])
  expect(reads).toHaveLength(1 + 20)
})
