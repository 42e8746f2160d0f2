/**
 * The changelog corpus (issue 43): release shapes of public repositories (a backport bot, a
 * cherry-pick bot, a long-term-support line merged forward, Go module path tags, …), each chosen
 * version pushed on both paths (git on a repository rebuilt from the graph, compare on the
 * emulator) against truth nobody here wrote: the pull requests the project's own changelog lists
 * for that version (__fixtures__/histories/changelog/, written by scripts/corpus.mjs with
 * `--changelog`; each fixture's `truth` names the file and the commit it was read at).
 *
 * The service's commit-to-pull-request lookup answers from the mirror's pull request refs
 * (`refs/pull/N/head`, `refs/pull/N/merge`), never from the subjects, so the lookup path is
 * tested too. Every changelog pull request must be labeled (missing 0, per path); every extra
 * must be explained by the range it was found in (`classify`): a version's labels may hold more
 * than its changelog, never a number the range does not account for.
 *
 * CORPUS_REPORT names a file to write the summary (per repository: versions, changelog pull
 * requests, found, missed, extras by reason) to.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { seedCommits, writeRepository } from '../../__fixtures__/history.js'
import { client, dir, emulator, useHistoryWorld } from '../../__fixtures__/history.js'
import {
  historyOf,
  loadCorpora,
  numberOf,
  pullsOf,
  releasesOf,
  type Corpus,
  type Release
} from '../../__fixtures__/release-corpus.js'
import { discoverPullRequests } from '../../src/labels/discover.js'
import { classify, originalsNamed, type Reason } from '../../__fixtures__/changelog-corpus.js'

const FOLDER = fileURLToPath(new URL('../../__fixtures__/histories/changelog/', import.meta.url))
const OWNER = 'corpus'

interface Figures {
  versions: number
  listed: number
  found: number
  missedCount: number
  /** changelog pull requests the git path found only by the commit lookup (the refs' answers) */
  byLookup: number
  missed: string[]
  extras: Partial<Record<Reason | 'unexplained', number>>
  ms: number
}
const figures = new Map<string, Figures>()

useHistoryWorld('changelog-corpus')
afterAll(() => {
  const lines = [...figures].map(
    ([repo, f]) =>
      `${repo}: ${f.versions} versions, ${f.listed} changelog pull requests, ${f.found} found, ` +
      `${f.byLookup} of them by the lookup, ${f.missedCount} missed${f.missed.length ? ` (${f.missed.join('; ')})` : ''}; extras ` +
      (Object.entries(f.extras)
        .map(([reason, count]) => `${reason} ${count}`)
        .join(', ') || 'none') +
      `; ${f.ms} ms`
  )
  const summary = `changelog corpus:\n  ${lines.join('\n  ')}`
  console.log(summary)
  const file = process.env['CORPUS_REPORT']
  if (file) writeFileSync(file, summary + '\n')
})

test('the classification: a reason only for what the range accounts for', () => {
  const range = [
    { subject: '[PR #12/abcdef12 backport][3.1] Fix a thing (#13)', lookup: [] },
    { subject: 'Fix another thing (#20) (#21)', lookup: [] },
    { subject: 'Release v3.1.2 (#14)', lookup: [] },
    { subject: 'Bump idna from 3.1 to 3.2 (#15)', lookup: [] },
    { subject: '[PR #30/abcdef12 backport][3.1] Tidy the CI workflow (#31)', lookup: [] },
    { subject: 'A numberless cherry-pick', lookup: [40] },
    { subject: 'Merge branch x', lookup: [] }
  ]
  const listed = new Set([12, 20])
  const reasons = [13, 21, 14, 15, 31, 30, 40, 99].map(n => classify(n, range, listed, {}))
  expect(reasons).toEqual([
    'backport-pull',
    'backport-pull',
    'release',
    'dependency',
    'internal',
    'original-unlisted',
    'lookup',
    undefined
  ])
  expect(originalsNamed('fix: x (cherry-pick #26877 for 3.2) (#26883)')).toEqual([26877])
})

describe.each(loadCorpora(FOLDER).map(corpus => [corpus.repo, corpus] as const))(
  '%s',
  (repo: string, corpus: Corpus) => {
    const name = repo.replace('/', '-')
    const truth = corpus.truth
    if (!truth) throw new Error(`${repo}: the fixture has no changelog truth`)
    const pushed = new RegExp(corpus.releases)
    const releases = releasesOf(corpus).filter(
      r => pushed.test(r.tag) && truth.versions[r.tag] !== undefined
    )
    const lookup = new Map(corpus.lookup ?? [])
    const titles = corpus.titles ?? {}
    let repoDir: string
    let shas: Record<string, string>
    let heads: string[]
    const shaOf = (i: number) => shas[`c${i}`] as string
    const key = `${OWNER}/${name}`
    const tally: Figures = {
      versions: 0,
      listed: 0,
      found: 0,
      missedCount: 0,
      byLookup: 0,
      missed: [],
      extras: {},
      ms: 0
    }
    figures.set(repo, tally)

    beforeAll(() => {
      const started = Date.now()
      repoDir = join(dir, name)
      // the lookup answers what the pull request refs say, not what the subjects say
      // and each commit has its committer time
      const commits = historyOf(corpus).map((c, i) => ({
        ...c,
        pulls: lookup.get(i) ?? [],
        date: new Date((corpus.commits[i]?.[1] ?? 0) * 1000).toISOString().replace('.000Z', 'Z')
      }))
      const tags = Object.fromEntries(corpus.tags.map(([tag, commit]) => [tag, `c${commit}`]))
      shas = writeRepository(repoDir, commits, `c${commits.length - 1}`, tags)
      execFileSync('git', ['pack-refs', '--all', '--prune'], { cwd: repoDir })
      const packed = readFileSync(join(repoDir, '.git', 'packed-refs'), 'utf8').split('\n')
      heads = [
        '# pack-refs with: peeled fully-peeled',
        ...packed.filter(line => /^[0-9a-f]+ refs\/heads\//.test(line))
      ]
      const headOf = new Map(corpus.heads ?? [])
      const subjectTitle = new Map<number, string>()
      for (const [, , , , subject] of corpus.commits) {
        const n = numberOf(subject)
        if (n !== undefined && !subjectTitle.has(n))
          subjectTitle.set(n, subject.replace(/\s*\(#\d+\)\s*$/, ''))
      }
      // `pulls/{n}/commits`: the commits the refs tie to the pull request, oldest first, less
      // the merge that brought its head
      const commitsOf = new Map<number, string[]>()
      for (const [i, numbers] of corpus.lookup ?? [])
        for (const n of numbers) {
          const [, ...others] = corpus.commits[i]?.[0] ?? []
          if (others.includes(headOf.get(n) ?? -1)) continue
          commitsOf.set(n, [...(commitsOf.get(n) ?? []), shaOf(i)])
        }
      const pulls = pullsOf(corpus).map(pull => {
        const head = headOf.get(pull.number)
        const own = commitsOf.get(pull.number)
        const title = titles[pull.number] ?? subjectTitle.get(pull.number)
        return {
          ...pull,
          ...(title ? { title } : {}),
          ...(head !== undefined ? { head_sha: shaOf(head) } : {}),
          ...(own ? { commits: own.slice(0, 250) } : {})
        }
      })
      emulator.reset()
      emulator.seed({
        pulls: { [key]: pulls },
        commits: { [key]: seedCommits(commits, shas) },
        tags: { [key]: Object.fromEntries(corpus.tags.map(([tag, c]) => [tag, shaOf(c)])) }
      })
      tally.ms += Date.now() - started
    }, 120_000) // room for a loaded machine, not a timed assertion

    const tagsOf = (release: Release) => {
      const packed = join(repoDir, '.git', 'packed-refs')
      const lines = Object.entries(release.tags).map(([tag, c]) => `${shaOf(c)} refs/tags/${tag}`)
      writeFileSync(packed, [...heads, ...lines].join('\n') + '\n')
      emulator.state.tagNames[key] = corpus.tags.map(([tag]) => tag).filter(t => t in release.tags)
    }

    /** The commits of previous..tag in the rebuilt repository, with their subjects and lookups. */
    const rangeOf = (release: Release) => {
      const index = new Map(corpus.commits.map((_, i) => [shaOf(i), i]))
      return execFileSync(
        'git',
        ['rev-list', shaOf(release.commit), `^${shaOf(release.previousCommit)}`],
        { cwd: repoDir, encoding: 'utf8', maxBuffer: 1 << 26 }
      )
        .split('\n')
        .filter(Boolean)
        .map(sha => index.get(sha) as number)
        .map(i => ({ subject: corpus.commits[i]?.[4] ?? '', lookup: lookup.get(i) ?? [] }))
    }

    test.each(releases.map(release => [release.tag, release] as const))(
      '%s labels every pull request its changelog lists',
      async (tag: string, release: Release) => {
        const started = Date.now()
        const listed = truth.versions[tag] ?? []
        tagsOf(release)
        const context = {
          eventName: 'push',
          payload: {},
          sha: shaOf(release.commit),
          ref: `refs/tags/${tag}`,
          owner: OWNER,
          repo: name
        }
        const [byGit, byCompare] = await Promise.all([
          discoverPullRequests(client, { ...context, workspace: repoDir }),
          discoverPullRequests(client, context)
        ])
        const range = rangeOf(release)
        const want = new Set(listed)
        const problems: string[] = []
        tally.versions++
        tally.listed += listed.length
        for (const [path, found] of [
          ['git', byGit],
          ['compare', byCompare]
        ] as const) {
          const got = new Set(found.numbers)
          const missing = listed.filter(n => !got.has(n))
          if (path === 'git') {
            tally.found += listed.length - missing.length
            tally.missedCount += missing.length
            const lookedUp = new Set(
              found.notes.flatMap(note =>
                [...note.matchAll(/((?:#\d+(?:, | and )?)+) from the commit lookup/g)].flatMap(m =>
                  [...(m[1] as string).matchAll(/#(\d+)/g)].map(x => Number(x[1]))
                )
              )
            )
            tally.byLookup += listed.filter(n => lookedUp.has(n)).length
            if (missing.length > 0)
              tally.missed.push(`${tag}: ${missing.map(n => `#${n}`).join(' ')}`)
          }
          const extras = found.numbers.filter(n => !want.has(n))
          const unexplained: number[] = []
          for (const n of extras) {
            const reason = classify(n, range, want, titles) ?? 'unexplained'
            if (reason === 'unexplained') unexplained.push(n)
            if (path === 'git') tally.extras[reason] = (tally.extras[reason] ?? 0) + 1
          }
          if (missing.length > 0 || unexplained.length > 0)
            problems.push(
              `${path} (from ${release.previous}, ${range.length} commits): ` +
                `missing ${missing.length} (${missing.map(n => `#${n}`).join(' ')}), ` +
                `unexplained ${unexplained.length} (${unexplained.map(n => `#${n}`).join(' ')})` +
                (found.warnings.length > 0 ? `; warnings: ${found.warnings.join(' | ')}` : '')
            )
        }
        tally.ms += Date.now() - started
        if (problems.length > 0)
          throw new Error(
            `${repo} ${tag}, changelog ${truth.file} at ${truth.commit.slice(0, 10)}: ` +
              problems.join('; ')
          )
      },
      120_000 // room for a loaded machine, not a timed assertion
    )
  }
)

test('the commit lookup, answered from pull request refs alone, finds changelog pull requests no subject names', () => {
  const all = [...figures.values()]
  // filtered out (`-t`): nothing ran to count
  if (all.every(f => f.versions === 0)) return
  expect(all.reduce((sum, f) => sum + f.byLookup, 0)).toBeGreaterThan(0)
})
