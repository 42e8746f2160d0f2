/**
 * Pull requests found from generated histories: squash, merge-commit and rebase merges into
 * `main` or into `develop` (git-flow, released into `main` by a pull request), reverts (direct
 * and by pull request), commits of no pull request, and a branch commit whose subject ends in an
 * old pull request's `(#N)`. Each history is written as a real git repository (the git path)
 * and served by the emulator (the compare path). Both paths must find the same pull requests,
 * and those a reviewer lists by hand: the model's own record of what was merged into `main`,
 * directly or by a release. No lookup may go to a commit of a merge-commit pull request's own
 * branch (its merge commit names it).
 */
import fc from 'fast-check'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { seedCommits, writeRepository, type HistoryCommit } from '../../__fixtures__/history.js'
import { client, dir, emulator, useHistoryWorld } from '../../__fixtures__/history.js'
import type { SeedPull } from '../../emulator/index.js'
import { discoverPullRequests } from '../../src/labels/discover.js'

// A fixed seed keeps CI reproducible; set FC_SEED to explore other histories locally.
const SEED = Number(process.env['FC_SEED'] ?? 20261123)
const RUNS = Number(process.env['HISTORY_RUNS'] ?? 40)

type Branch = 'main' | 'develop'
type Op =
  | { kind: 'squash' | 'direct'; into: Branch }
  | { kind: 'merge'; into: Branch; commits: number; trap: boolean }
  | { kind: 'rebase'; into: Branch; commits: number }
  | { kind: 'revert'; into: Branch; byPull: boolean }
  | { kind: 'release'; squash: boolean }
  | { kind: 'sync' }

const branch = fc.constantFrom<Branch>('main', 'develop')
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constantFrom('squash' as const, 'direct' as const), into: branch }),
  fc.record({
    kind: fc.constant('merge' as const),
    into: branch,
    commits: fc.integer({ min: 1, max: 3 }),
    trap: fc.boolean()
  }),
  fc.record({
    kind: fc.constant('rebase' as const),
    into: branch,
    commits: fc.integer({ min: 1, max: 3 })
  }),
  fc.record({ kind: fc.constant('revert' as const), into: branch, byPull: fc.boolean() }),
  fc.record({ kind: fc.constant('release' as const), squash: fc.boolean() }),
  fc.record({ kind: fc.constant('sync' as const) })
)

interface History {
  commits: HistoryCommit[]
  /** `commits`: ids of what `pulls/{n}/commits` lists */
  pulls: (Omit<SeedPull, 'commits'> & { commits?: string[] })[]
  /** what a reviewer lists: every pull request merged into main in the range, or released into it */
  shipped: number[]
  /** commits of merge-commit pull requests' own branches */
  featureCommits: string[]
  /** squash-merged releases whose message names the pull requests they carried */
  carried: number
  /** the commit tagged `v0`, where the range starts, and main's tip, where it ends */
  base: string
  head: string
}

/** The ids of the commit `id` and of every commit it descends from. */
function ancestry(commits: HistoryCommit[], id: string): Set<string> {
  const seen = new Set<string>()
  for (const todo = [id]; todo.length > 0;) {
    const at = todo.pop() as string
    if (seen.has(at)) continue
    seen.add(at)
    todo.push(...(commits[Number(at.slice(1))]?.parents ?? []))
  }
  return seen
}

/** The model: what each step writes, and which pull requests reached `main` after `v0`. */
function historyOf(ops: Op[]): History {
  const commits: HistoryCommit[] = []
  const pulls: History['pulls'] = []
  const shipped = new Set<number>()
  const waiting = new Set<number>() // merged into develop, not released yet
  const featureCommits: string[] = []
  const tip: Record<Branch, string> = { main: 'c0', develop: 'c0' }
  const made: Record<Branch, string[]> = { main: [], develop: [] }
  let directOnDevelop: HistoryCommit[] = []
  let nextPull = 10
  let carried = 0
  // What the merge button makes (squash, rebase, merge commits) GitHub commits: `noreply@`.
  const add = (
    on: Branch,
    message: string,
    pulls: number[],
    parents = [tip[on]],
    byButton = false
  ) => {
    const commit: HistoryCommit = {
      id: `c${commits.length}`,
      message,
      parents,
      pulls,
      ...(byButton ? { committer: 'noreply@github.com' } : {})
    }
    commits.push(commit)
    tip[on] = commit.id
    made[on].push(commit.id)
    return commit
  }
  const merged = (number: number, into: Branch, head = `feature-${number}`) => {
    pulls.push({ number, base_ref: into, head_ref: head })
    if (into === 'main') shipped.add(number)
    else waiting.add(number)
  }
  add('main', 'Initial commit', [], [])
  add('main', 'Old change (#1)', [1])
  pulls.push({ number: 1, base_ref: 'main', head_ref: 'feature-1' })
  tip.develop = tip.main
  made.main = []
  const base = tip.main

  for (const step of ops) {
    if (step.kind === 'sync') {
      // main merged back into develop (git-flow after a release or a hotfix): ships nothing.
      const commit = add('develop', "Merge branch 'main' into develop", [], [tip.develop, tip.main])
      directOnDevelop.push(commit)
      continue
    }
    if (step.kind === 'release') {
      if (made.develop.length === 0) continue
      const r = nextPull++
      if (step.squash) {
        // Squash-merged: GitHub's default message lists the commits the pull request lists
        // (develop's that main lacks); develop is then recreated from main, as squash
        // releases need. When that message names another pull request, the release's commits
        // are read and theirs count, as when its title alone is the message (below); else only
        // the release does (the documented rule).
        const listed = [...ancestry(commits, tip.develop)]
          .filter(id => !ancestry(commits, tip.main).has(id))
          .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))
        const details = listed.map(id => `* ${commits[Number(id.slice(1))]?.message ?? ''}`)
        const message = `Release (#${r})\n\n${details.join('\n\n')}`
        add('main', message, [r], [tip.main], true)
        pulls.push({ number: r, base_ref: 'main', head_ref: 'develop', commits: listed })
        shipped.add(r)
        const named = details.some(line => /\(#\d+\)$|^\* Merge pull request #/m.test(line))
        // A title without them is read too when the release has more than one commit and the
        // service lists pull requests merged into develop (the question asked once per branch).
        const gathering = listed.length > 1 && pulls.some(p => p.base_ref === 'develop')
        if ((named || gathering) && waiting.size > 0) carried++
        if (named || gathering) waiting.forEach(n => shipped.add(n))
        waiting.clear()
        directOnDevelop.forEach(c => c.pulls?.push(r))
        directOnDevelop = []
        made.develop = []
        tip.develop = tip.main
        continue
      }
      add(
        'main',
        `Merge pull request #${r} from acme/develop\n\nRelease`,
        [r],
        [tip.main, tip.develop],
        true
      )
      merged(r, 'main', 'develop')
      waiting.forEach(n => shipped.add(n))
      waiting.clear()
      // The service links a commit pushed to develop to the pull request that took it to main.
      directOnDevelop.forEach(c => c.pulls?.push(r))
      directOnDevelop = []
      made.develop = []
      continue
    }
    const on = step.into
    if (step.kind === 'squash') {
      const n = nextPull++
      add(on, `Change ${n} (#${n})`, [n], [tip[on]], true)
      merged(n, on)
    } else if (step.kind === 'direct') {
      const commit = add(on, `Direct change ${commits.length}`, [])
      if (on === 'develop') directOnDevelop.push(commit)
    } else if (step.kind === 'rebase') {
      const n = nextPull++
      for (let i = 1; i <= step.commits; i++)
        add(on, `Rebased part ${i} of change ${n}`, [n], [tip[on]], true)
      merged(n, on)
    } else if (step.kind === 'merge') {
      const n = nextPull++
      let head = tip[on]
      for (let i = 1; i <= step.commits; i++) {
        const message =
          step.trap && i === step.commits ? 'Follow the old change (#1)' : `Work ${i} on ${n}`
        const commit = { id: `c${commits.length}`, message, parents: [head], pulls: [n] }
        commits.push(commit)
        featureCommits.push(commit.id)
        head = commit.id
      }
      add(
        on,
        `Merge pull request #${n} from acme/feature-${n}\n\nChange ${n}`,
        [n],
        [tip[on], head],
        true
      )
      merged(n, on)
    } else if (step.kind === 'revert') {
      const target = commits.find(c => c.id === made[on][made[on].length - 1])
      const subject = (target?.message ?? 'Nothing').split('\n')[0]
      if (step.byPull) {
        const n = nextPull++
        add(on, `Revert "${subject}" (#${n})`, [n], [tip[on]], true)
        merged(n, on)
      } else {
        const commit = add(on, `Revert "${subject}"`, [])
        if (on === 'develop') directOnDevelop.push(commit)
      }
    }
  }
  return {
    commits,
    pulls: pulls.map(p => ({ ...p, merged: true })),
    shipped: [...shipped].sort((a, b) => a - b),
    featureCommits,
    carried,
    base,
    head: tip.main
  }
}

useHistoryWorld('history-properties')
let runs = 0
let commitsSeen = 0
const shapes = new Map<string, number>()
afterAll(() => {
  const seen = [...shapes].map(([shape, n]) => `${n} ${shape}`).join(', ')
  console.log(
    `history properties: ${runs} generated histories, ${commitsSeen} commits, both paths (${seen})`
  )
})

test(
  'git and compare find the same pull requests, the ones a reviewer lists',
  async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async ops => {
        const history = historyOf(ops)
        const carrying = 'squash release carrying pull requests'
        if (history.carried > 0) shapes.set(carrying, (shapes.get(carrying) ?? 0) + history.carried)
        for (const step of ops) {
          const shape =
            'into' in step
              ? `${step.kind} into ${step.into}`
              : step.kind === 'release'
                ? `${step.squash ? 'squash' : 'merge'} release`
                : step.kind
          shapes.set(shape, (shapes.get(shape) ?? 0) + 1)
        }
        const head = history.head
        const repoDir = join(dir, `run-${runs++}`)
        const shas = writeRepository(repoDir, history.commits, head, { v0: history.base })
        commitsSeen += history.commits.length
        emulator.reset()
        emulator.seed({
          pulls: { 'acme/web': pullsOf(history, shas) },
          commits: { 'acme/web': seedCommits(history.commits, shas) },
          refs: { 'acme/web': { v0: shas[history.base] as string } }
        })
        const context = {
          eventName: 'release',
          payload: {},
          sha: shas[head] as string,
          ref: 'refs/tags/v1',
          owner: 'acme',
          repo: 'web',
          since: 'v0'
        }

        const byGit = await discoverPullRequests(client, { ...context, workspace: repoDir })
        const lookedUpByGit = lookups()
        emulator.reset()
        emulator.seed({
          pulls: { 'acme/web': pullsOf(history, shas) },
          commits: { 'acme/web': seedCommits(history.commits, shas) },
          refs: { 'acme/web': { v0: shas[history.base] as string } }
        })
        const byCompare = await discoverPullRequests(client, context)
        rmSync(repoDir, { recursive: true, force: true })

        expect(byGit.notes[0]).toMatch(/read with git/)
        expect(byCompare.notes[0]).toMatch(/read with the compare endpoint/)
        expect({ git: byGit.numbers, compare: byCompare.numbers }).toEqual({
          git: history.shipped,
          compare: history.shipped
        })
        // Commits pushed without a pull request (direct onto main) are one warning that counts
        // them (issue 43: never silent); nothing else warns.
        const orphans = pushedAlone(history)
        const expected =
          orphans === 0
            ? []
            : [
                expect.stringContaining(
                  `${orphans} commit${orphans === 1 ? ' of the range belongs' : 's of the range belong'} to no pull request`
                )
              ]
        expect(byGit.warnings).toEqual(expected)
        expect(byCompare.warnings).toEqual(expected)
        const feature = history.featureCommits.map(id => shas[id])
        expect([...lookedUpByGit, ...lookups()].filter(sha => feature.includes(sha))).toEqual([])
      }),
      { seed: SEED, numRuns: RUNS }
    )
    expect(runs).toBe(RUNS)
    // Every shape the generator knows was tried.
    expect([...shapes.keys()].sort()).toEqual(
      [
        'merge release',
        'squash release',
        'squash release carrying pull requests',
        'sync',
        ...['squash', 'merge', 'rebase', 'revert', 'direct'].flatMap(kind => [
          `${kind} into develop`,
          `${kind} into main`
        ])
      ].sort()
    )
  },
  RUNS * 3000
) // room for a loaded machine, not a timed assertion

/** The range's commits (head's history, not the base's) that no pull request brought, merges aside. */
function pushedAlone(history: History): number {
  const byId = new Map(history.commits.map(c => [c.id, c]))
  const ancestors = (id: string): Set<string> => {
    const seen = new Set<string>()
    for (const todo = [id]; todo.length > 0;) {
      const at = todo.pop() as string
      if (seen.has(at)) continue
      seen.add(at)
      todo.push(...(byId.get(at)?.parents ?? []))
    }
    return seen
  }
  const before = ancestors(history.base)
  return [...ancestors(history.head)].filter(id => {
    const commit = byId.get(id)
    return (
      !before.has(id) && commit && commit.parents.length <= 1 && (commit.pulls ?? []).length === 0
    )
  }).length
}

const lookups = () =>
  emulator.requests.flatMap(r => {
    const match = /\/commits\/([0-9a-f]+)\/pulls$/.exec(r.path)
    return match ? [match[1] as string] : []
  })

/** The model's pull requests as the emulator takes them: what each lists by sha. */
const pullsOf = (history: History, shas: Record<string, string>): SeedPull[] =>
  history.pulls.map(({ commits, ...pull }) => ({
    ...pull,
    ...(commits ? { commits: commits.map(id => shas[id] as string) } : {})
  }))
