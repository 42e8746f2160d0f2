/**
 * The previous release of a version tag, on generated histories of release lines: pull requests
 * squash- or merge-committed into `main`, release branches cut from it (`release-1.k`, tagged
 * `v1.k.p`), fixes merged into a release branch, fixes cherry-picked from `main` into one
 * (`git cherry-pick -x` pushed by hand), development tags on `main` (`dev-N`, another form), and
 * release lines merged into each other by hand (an older line into a newer, or back). Then the
 * next version is tagged on one line and pushed, without `since`. Both paths (git on a real
 * repository, compare on the emulator with the tags it lists) must take the tag the model
 * orders below it and label what a reviewer lists: every pull request of a commit the new tag
 * holds and the previous release does not (the range from their merge base).
 */
import fc from 'fast-check'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { seedCommits, writeRepository, type HistoryCommit } from '../../__fixtures__/history.js'
import { client, dir, emulator, useHistoryWorld } from '../../__fixtures__/history.js'
import type { SeedPull } from '../../emulator/index.js'
import { discoverPullRequests } from '../../src/labels/discover.js'

const SEED = Number(process.env['FC_SEED'] ?? 20261124)
const RUNS = Number(process.env['RELEASE_RUNS'] ?? 30)

type Op =
  | { kind: 'feature'; merge: boolean }
  | { kind: 'cut' }
  | { kind: 'fix'; line: number }
  | { kind: 'pick'; line: number; back: number }
  | { kind: 'tag'; line: number }
  | { kind: 'dev-tag' }
  | { kind: 'merge-lines'; from: number; into: number }

// Mostly two lines, so that fixes, picks and merges between them meet.
const line = fc.nat({ max: 2 })
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('feature' as const), merge: fc.boolean() })
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cut' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('fix' as const), line }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('pick' as const), line, back: fc.nat({ max: 4 }) })
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tag' as const), line }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('dev-tag' as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('merge-lines' as const), from: line, into: line })
  }
)

interface Release {
  commits: HistoryCommit[]
  pulls: SeedPull[]
  /** tag name to commit id */
  tags: Record<string, string>
  /** the pushed tag, its commit, and the tag the model orders just below it */
  tag: string
  head: string
  previous: string
  /** what a reviewer lists */
  shipped: number[]
  /** the shapes that make the previous release differ from the nearest tag, when they occur */
  shapes: string[]
}

/**
 * Release line k (from 1) is `release-1.k`, tagged `v1.k.p`; `v1.0.0` is the root. With
 * `mergeIn`, another line's fix is merged into the pushed line just before it is tagged.
 */
function releaseOf(ops: Op[], pushOn: number, mergeIn: boolean): Release {
  const commits: HistoryCommit[] = []
  const pulls: SeedPull[] = []
  const tags: Record<string, string> = {}
  const byId = new Map<string, HistoryCommit>()
  let main: string
  const lines: { tip: string; patch: number }[] = []
  /** squash commits on main, for cherry-picks */
  const picks: { subject: string }[] = []
  let next = 10
  const add = (message: string, parents: string[], pull?: number) => {
    const commit: HistoryCommit = {
      id: `c${commits.length}`,
      message,
      parents,
      pulls: pull === undefined ? [] : [pull]
    }
    commits.push(commit)
    byId.set(commit.id, commit)
    return commit.id
  }
  main = add('Initial commit', [])
  tags['v1.0.0'] = main
  /** the index of the line an op names (there are fewer lines than names) */
  const at = (i: number) => Math.min(i, lines.length - 1)
  const tipOf = (k: number) => lines[k] as { tip: string; patch: number }
  const tagLine = (k: number) => {
    const l = lines[k] as { tip: string; patch: number }
    l.tip = add(`Release 1.${k + 1}.${l.patch}`, [l.tip])
    tags[`v1.${k + 1}.${l.patch}`] = l.tip
    l.patch++
  }

  for (const step of ops) {
    if (step.kind === 'feature') {
      const n = next++
      if (step.merge) {
        const work = add(`Work on ${n}`, [main], n)
        main = add(
          `Merge pull request #${n} from acme/feature-${n}\n\nChange ${n}`,
          [main, work],
          n
        )
      } else {
        main = add(`Change ${n} (#${n})`, [main], n)
        picks.push({ subject: `Change ${n} (#${n})` })
      }
      pulls.push({ number: n, base_ref: 'main', head_ref: `feature-${n}` })
    } else if (step.kind === 'cut') {
      if (lines.length === 3) continue // the ops name three lines
      // Cut, not tagged yet: its first release may come after fixes, or never.
      lines.push({ tip: main, patch: 0 })
    } else if (step.kind === 'dev-tag') {
      tags[`dev-${commits.length}`] = main
    } else if (lines.length === 0) {
      continue
    } else if (step.kind === 'fix') {
      const k = at(step.line)
      const n = next++
      tipOf(k).tip = add(`Fix ${n} (#${n})`, [tipOf(k).tip], n)
      pulls.push({ number: n, base_ref: `release-1.${k + 1}`, head_ref: `fix-${n}` })
    } else if (step.kind === 'pick') {
      const source = picks[picks.length - 1 - Math.min(step.back, picks.length - 1)]
      if (!source) continue
      const l = tipOf(at(step.line))
      // Pushed by hand: the service links the copy to no pull request; its subject names one.
      l.tip = add(`${source.subject}\n\n(cherry picked from commit ${'ab'.repeat(20)})`, [l.tip])
    } else if (step.kind === 'tag') {
      tagLine(at(step.line))
    } else if (step.kind === 'merge-lines') {
      const [a, b] = [at(step.from), at(step.into)]
      if (a === b) continue
      const into = tipOf(b)
      into.tip = add(`Merge branch 'release-1.${a + 1}' into release-1.${b + 1}`, [
        into.tip,
        tipOf(a).tip
      ])
    }
  }
  if (lines.length === 0) {
    lines.push({ tip: main, patch: 0 })
    tagLine(0)
  }
  const k = at(pushOn)
  if (mergeIn && lines.length > 1) {
    // The other line's fix, merged into this one just before its release (4.x into 5.x).
    const other = k === 0 ? 1 : k - 1
    const n = next++
    tipOf(other).tip = add(`Fix ${n} (#${n})`, [tipOf(other).tip], n)
    pulls.push({ number: n, base_ref: `release-1.${other + 1}`, head_ref: `fix-${n}` })
    tipOf(k).tip = add(`Merge branch 'release-1.${other + 1}' into release-1.${k + 1}`, [
      tipOf(k).tip,
      tipOf(other).tip
    ])
  }
  const pushed = tipOf(k)
  const tag = `v1.${k + 1}.${pushed.patch}`
  tagLine(k)
  const head = pushed.tip

  // The model's order: (minor, patch) of every `v1.k.p` tag, the highest below the pushed one.
  const version = (name: string) => name.slice(1).split('.').map(Number) as [number, number, number]
  const [, minor, patch] = version(tag)
  const previous = Object.keys(tags)
    .filter(name => name.startsWith('v'))
    .map(name => ({ name, v: version(name) }))
    .filter(({ v }) => v[1] < minor || (v[1] === minor && v[2] < patch))
    .sort((x, y) => x.v[1] - y.v[1] || x.v[2] - y.v[2])
    .at(-1)?.name as string

  // A reviewer's list: the pull requests of the commits the new tag holds and the previous not.
  const ancestry = (id: string) => {
    const seen = new Set<string>()
    for (const todo = [id]; todo.length > 0;) {
      const at = todo.pop() as string
      if (seen.has(at)) continue
      seen.add(at)
      todo.push(...(byId.get(at)?.parents ?? []))
    }
    return seen
  }
  const before = ancestry(tags[previous] as string)
  const shipped = new Set<number>()
  for (const id of ancestry(head)) {
    if (before.has(id)) continue
    const commit = byId.get(id) as HistoryCommit
    commit.pulls?.forEach(n => shipped.add(n))
    const named = /\(#(\d+)\)$/.exec(commit.message.split('\n')[0] ?? '')
    if (named) shipped.add(Number(named[1]))
  }
  const headLine = `release-1.${k + 1}`
  const shapes = [
    ...(ancestry(head).has(tags[previous] as string) ? [] : ['previous release not an ancestor']),
    ...(pulls.some(
      p => p.base_ref?.startsWith('release-') && p.base_ref !== headLine && shipped.has(p.number)
    )
      ? ["another line's fix shipped"]
      : [])
  ]
  return {
    commits,
    pulls: pulls.map(p => ({ ...p, merged: true })),
    tags,
    tag,
    head,
    previous,
    shipped: [...shipped].sort((x, y) => x - y),
    shapes
  }
}

useHistoryWorld('release-properties')
let runs = 0
let commitsSeen = 0
const shapes = new Map<string, number>()
afterAll(() => {
  const seen = [...shapes].map(([shape, n]) => `${n} ${shape}`).join(', ')
  console.log(`release properties: ${runs} generated histories, ${commitsSeen} commits (${seen})`)
})

test(
  'pushing the next version: both paths start at the previous release by version order and label what a reviewer lists',
  async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 8, maxLength: 24 }),
        fc.nat({ max: 2 }),
        fc.boolean(),
        async (ops, pushOn, mergeIn) => {
          const release = releaseOf(ops, pushOn, mergeIn)
          for (const shape of [...ops.map(step => step.kind), ...release.shapes])
            shapes.set(shape, (shapes.get(shape) ?? 0) + 1)
          const repoDir = join(dir, `run-${runs++}`)
          const shas = writeRepository(repoDir, release.commits, release.head, release.tags)
          commitsSeen += release.commits.length
          const seed = () => {
            emulator.reset()
            emulator.seed({
              pulls: { 'acme/web': release.pulls },
              commits: { 'acme/web': seedCommits(release.commits, shas) },
              tags: {
                'acme/web': Object.fromEntries(
                  Object.entries(release.tags).map(([t, id]) => [t, shas[id] as string])
                )
              }
            })
          }
          const context = {
            eventName: 'push',
            payload: {},
            sha: shas[release.head] as string,
            ref: `refs/tags/${release.tag}`,
            owner: 'acme',
            repo: 'web'
          }
          seed()
          const byGit = await discoverPullRequests(client, { ...context, workspace: repoDir })
          seed()
          const byCompare = await discoverPullRequests(client, context)
          rmSync(repoDir, { recursive: true, force: true })

          const taken = `previous release ${release.previous} by version order`
          expect(byGit.notes[0]).toContain(taken)
          expect(byCompare.notes[0]).toContain(taken)
          expect(byGit.notes[1]).toMatch(/read with git/)
          expect(byCompare.notes[1]).toMatch(/read with the compare endpoint/)
          expect({ git: byGit.numbers, compare: byCompare.numbers }).toEqual({
            git: release.shipped,
            compare: release.shipped
          })
          expect(byGit.warnings).toEqual([])
          expect(byCompare.warnings).toEqual([])
        }
      ),
      { seed: SEED, numRuns: RUNS }
    )
    expect(runs).toBe(RUNS)
    expect([...shapes.keys()].sort()).toEqual(
      [
        'cut',
        'dev-tag',
        'feature',
        'fix',
        'merge-lines',
        'pick',
        'tag',
        'previous release not an ancestor',
        "another line's fix shipped"
      ].sort()
    )
  },
  RUNS * 3000
) // room for a loaded machine, not a timed assertion
