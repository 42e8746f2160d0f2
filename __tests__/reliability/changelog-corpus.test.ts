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
import { parsePaths, type PathFilter } from '../../src/labels/paths.js'
import { classify, originalsNamed, type Reason } from '../../__fixtures__/changelog-corpus.js'

const FOLDER = fileURLToPath(new URL('../../__fixtures__/histories/changelog/', import.meta.url))
const OWNER = 'corpus'

/**
 * A monorepo's per-package tags, pushed with `paths` too: the package's folder (the fixture keeps
 * each commit's changed paths). Runs where the `paths` input exists (src/labels/paths.ts, issue
 * 43's h43-paths); until then its cases are skipped.
 */
const PATHS_OF: Record<string, (tag: string) => string> = {
  'crossbeam-rs/crossbeam': tag => `${tag.replace(/-\d[\w.-]*$/, '')}/**`
}
/** `parsePaths` of src/labels/paths.ts: the filter, or the test fails naming the problems. */
const pathsFilter = (value: string): PathFilter => {
  const parsed = parsePaths(value)
  if (!parsed.filter) throw new Error(`paths ${value}: ${parsed.problems.join('; ')}`)
  return parsed.filter
}

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
    const filesOfCommit = (i: number) => corpus.files?.[i] ?? []
    /**
     * The paths a pull request changed, as the fixture knows them: its commits by the refs, the
     * commit its subject names, a backport's or pick's commit that names it or has its title.
     */
    const filesOfPull = (n: number): Set<string> => {
      const title = titles[n]?.toLowerCase()
      const files = new Set<string>()
      corpus.commits.forEach(([, , , , subject], i) => {
        const tied =
          (lookup.get(i) ?? []).includes(n) ||
          numberOf(subject) === n ||
          originalsNamed(subject).includes(n) ||
          (title !== undefined && subject.toLowerCase().startsWith(title))
        if (tied) filesOfCommit(i).forEach(f => files.add(f))
      })
      return files
    }
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
    const pathsTally: Figures = {
      versions: 0,
      listed: 0,
      found: 0,
      missedCount: 0,
      byLookup: 0,
      missed: [],
      extras: {},
      ms: 0
    }
    if (PATHS_OF[repo] !== undefined) figures.set(`${repo} with paths`, pathsTally)

    beforeAll(() => {
      const started = Date.now()
      repoDir = join(dir, name)
      // the lookup answers what the pull request refs say, not what the subjects say
      // and each commit has its committer time
      const commits = historyOf(corpus).map((c, i) => ({
        ...c,
        pulls: lookup.get(i) ?? [],
        // the paths it changed (a content of its own, so each is a change)
        ...(corpus.files
          ? { files: Object.fromEntries(filesOfCommit(i).map(p => [p, `c${i}\n`])) }
          : {}),
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
        // the newest subject naming it: a pull request's merge or squash comes after its commits
        // (a pick on a forward-merge branch carries the merge's number too)
        if (n !== undefined) subjectTitle.set(n, subject.replace(/\s*\(#\d+\)\s*$/, ''))
      }
      // `pulls/{n}/commits`: the commits the refs tie to the pull request, oldest first, less
      // the merge that brought its head and a squash of it
      const commitsOf = new Map<number, string[]>()
      const squashes = new Set(corpus.squashes ?? [])
      for (const [i, numbers] of corpus.lookup ?? [])
        for (const n of numbers) {
          const [, ...others] = corpus.commits[i]?.[0] ?? []
          if (others.includes(headOf.get(n) ?? -1) || squashes.has(i)) continue
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
          ...(own ? { commits: own.slice(0, 250) } : {}),
          ...(corpus.files ? { files: [...filesOfPull(pull.number)] } : {})
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

    /**
     * Pushes `tag` on both paths (with `paths` when given) and checks its labels against the
     * changelog: none missing; each extra explained, and with `paths` one that changed a match.
     */
    const check = async (tag: string, release: Release, paths?: string) => {
      const started = Date.now()
      const listed = truth.versions[tag] ?? []
      const f = paths === undefined ? tally : pathsTally
      tagsOf(release)
      const context = {
        eventName: 'push',
        payload: {},
        sha: shaOf(release.commit),
        ref: `refs/tags/${tag}`,
        owner: OWNER,
        repo: name,
        ...(paths === undefined ? {} : { paths: pathsFilter(paths) })
      }
      const withHistory = { ...context, workspace: repoDir }
      const [byGit, byCompare] = await Promise.all([
        discoverPullRequests(client, withHistory),
        discoverPullRequests(client, context)
      ])
      const range = rangeOf(release)
      const want = new Set(listed)
      const inPaths = (n: number) => {
        if (paths === undefined) return true
        const folder = paths.replace(/\*\*$/, '')
        return [...filesOfPull(n)].some(file => file.startsWith(folder))
      }
      const problems: string[] = []
      f.versions++
      f.listed += listed.length
      for (const [path, found] of [
        ['git', byGit],
        ['compare', byCompare]
      ] as const) {
        const got = new Set(found.numbers)
        const missing = listed.filter(n => !got.has(n))
        if (path === 'git') {
          f.found += listed.length - missing.length
          f.missedCount += missing.length
          const lookedUp = new Set(
            found.notes.flatMap(note =>
              [...note.matchAll(/((?:#\d+(?:, | and )?)+) from the commit lookup/g)].flatMap(m =>
                [...(m[1] as string).matchAll(/#(\d+)/g)].map(x => Number(x[1]))
              )
            )
          )
          f.byLookup += listed.filter(n => lookedUp.has(n)).length
          if (missing.length > 0) f.missed.push(`${tag}: ${missing.map(n => `#${n}`).join(' ')}`)
        }
        const extras = found.numbers.filter(n => !want.has(n))
        const unexplained: number[] = []
        for (const n of extras) {
          const reason = inPaths(n)
            ? (classify(n, range, want, titles) ?? 'unexplained')
            : 'unexplained'
          if (reason === 'unexplained') unexplained.push(n)
          if (path === 'git') f.extras[reason] = (f.extras[reason] ?? 0) + 1
        }
        if (missing.length > 0 || unexplained.length > 0)
          problems.push(
            `${path} (from ${release.previous}, ${range.length} commits): ` +
              `missing ${missing.length} (${missing.map(n => `#${n}`).join(' ')}), ` +
              `unexplained ${unexplained.length} (${unexplained.map(n => `#${n}`).join(' ')})` +
              (found.warnings.length > 0 ? `; warnings: ${found.warnings.join(' | ')}` : '')
          )
      }
      f.ms += Date.now() - started
      if (problems.length > 0)
        throw new Error(
          `${repo} ${tag}${paths === undefined ? '' : ` with paths ${paths}`}, changelog ` +
            `${truth.file} at ${truth.commit.slice(0, 10)}: ${problems.join('; ')}`
        )
    }

    test.each(releases.map(release => [release.tag, release] as const))(
      '%s labels every pull request its changelog lists',
      (tag: string, release: Release) => check(tag, release),
      120_000 // room for a loaded machine, not a timed assertion
    )

    const pathsOf = PATHS_OF[repo]
    if (pathsOf !== undefined)
      test.each(releases.map(release => [release.tag, pathsOf(release.tag), release] as const))(
        '%s with paths %s labels its changelog pull requests, and only ones that changed a match',
        (tag: string, paths: string, release: Release) => check(tag, release, paths),
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
