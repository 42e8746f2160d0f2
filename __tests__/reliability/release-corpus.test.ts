/**
 * The release corpus: the commit graphs of public repositories with different release
 * conventions (__fixtures__/histories/, see its README), each release tag pushed without `since`
 * on both paths: git on a real repository rebuilt from the graph (the checkout of
 * `fetch-depth: 0`), and compare on the emulator seeded with the commits, the pull requests and
 * the tags. Only the tags that existed when the tag was made are there. Each must label what a
 * release manager lists, computed in __fixtures__/release-corpus.ts without src/labels: the
 * pull requests the subjects of `git rev-list <previous release>..<tag>` name (a release pull
 * request squash-merged from `develop` stands for the `develop` commit of its tree), where a final's
 * previous release is the highest final below it of its form (release candidates skipped) and
 * a prerelease's the highest tag below it.
 *
 * A failing tag says what differed (missing and extra numbers, per path) and which tag each
 * path started from; the file's summary lists every failing tag. CORPUS_TAGS caps the tags per
 * repository (the newest; default 12, `all` for every one), CORPUS_REPORT names a file to write the summary to, and
 * CORPUS_SINCE=1 sets `since` to the expected previous release (what is read in the right range).
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { git, seedCommits, writeRepository } from '../../__fixtures__/history.js'
import { client, dir, emulator, useHistoryWorld } from '../../__fixtures__/history.js'
import {
  difference,
  historyOf,
  loadCorpora,
  numberOf,
  pullsOf,
  releasesOf,
  twinsShippedBy,
  versionOf,
  compareVersions,
  type Corpus,
  type Version,
  type Release
} from '../../__fixtures__/release-corpus.js'
import { discoverPullRequests, type Discovery } from '../../src/labels/discover.js'

const CAP =
  process.env['CORPUS_TAGS'] === 'all' ? Infinity : Number(process.env['CORPUS_TAGS'] ?? 12)
/** CORPUS_SINCE=1: `since` is the expected previous release, to tell its choice from the reading */
const SINCE = process.env['CORPUS_SINCE'] === '1'
const OWNER = 'corpus'

/**
 * The documented known limit (docs/labels.md, "A release pull request squash-merged from
 * `develop`"): a branch not recreated from `main` after a squash-merged release lists the earlier
 * releases' commits again, so their pull requests are labeled again. Such a tag may label more
 * than it shipped, never less.
 */
const RELABELS_EARLIER_RELEASES = new Set([
  'NOAA-GFDL/NDSL 2025.03.00',
  'NOAA-GFDL/NDSL 2025.05.00'
])

useHistoryWorld('release-corpus')
const failures: string[] = []
let tested = 0
afterAll(() => {
  const summary =
    `release corpus: ${tested} tags, ${failures.length} differ` +
    failures.map(line => `\n  ${line}`).join('')
  console.log(summary)
  const file = process.env['CORPUS_REPORT']
  if (file) writeFileSync(file, summary + '\n')
})

/** Which tag a path started from, as its first note says. */
const startOf = (found: Discovery) =>
  (SINCE ? 'since' : undefined) ??
  /previous (?:release|tag) ([^\s,]+)/.exec(found.notes[0] ?? '')?.[1] ??
  (found.warnings[0] ? `none (${found.warnings[0].slice(0, 160)})` : 'none')

test("the expectation's own version order: 2 to 4 numbers, prereleases before their final", () => {
  const sort = (names: string[]) =>
    [...names].sort((a, b) => compareVersions(versionOf(a) as Version, versionOf(b) as Version))
  const sorted = [
    ['jq-1.6', 'jq-1.7rc1', 'jq-1.7rc2', 'jq-1.7', 'jq-1.7.1'],
    ['v6.0.6', 'v6.1', 'v6.1.1'],
    ['2022.06.22', '2022.06.22.1', '2022.06.29'],
    ['2024.8.3', '2024.9.0b1', '2024.9.0b4', '2024.9.0'],
    ['v1.16.0-alpha20260701', 'v1.16.0-alpha20260715', 'v1.16.0-beta1', 'v1.16.0-rc1', 'v1.16.0'],
    ['@changesets/cli@2.31.1', '@changesets/cli@3.0.0-next.12', '@changesets/cli@3.0.0'],
    ['v3.12.0-rc.0', 'v3.12.0-rc.1', 'v3.12.0']
  ]
  for (const names of sorted) expect(sort([...names].reverse())).toEqual(names)
  expect(versionOf('v6.1')).toEqual(versionOf('6.1.0'))
  expect(versionOf('1.6rc2')?.form).not.toBe(versionOf('jq-1.6')?.form)
  expect(versionOf('tauri-cli-v2.0.1')?.form).not.toBe(versionOf('tauri-v2.0.1')?.form)
  expect(['latest', 'v1', 'v1.2.3.4.5', 'v0.25.3-ae3d4fec'].map(versionOf)).toEqual([
    undefined,
    undefined,
    undefined,
    undefined
  ])
})

describe.each(loadCorpora().map(corpus => [corpus.repo, corpus] as const))(
  '%s',
  (repo: string, corpus: Corpus) => {
    const name = repo.replace('/', '-')
    const commits = historyOf(corpus)
    const pulls = pullsOf(corpus)
    const pushed = new RegExp(corpus.releases ?? '.')
    const releases = releasesOf(corpus)
      .filter(release => pushed.test(release.tag))
      .slice(-CAP)
    let repoDir: string
    let shas: Record<string, string>
    /** the packed-refs file's header and branches */
    let heads: string[]
    const shaOf = (i: number) => shas[`c${i}`] as string

    const key = `${OWNER}/${name}`
    beforeAll(() => {
      repoDir = join(dir, name)
      const tags = Object.fromEntries(corpus.tags.map(([tag, commit]) => [tag, `c${commit}`]))
      shas = writeRepository(repoDir, commits, `c${commits.length - 1}`, tags)
      execFileSync('git', ['pack-refs', '--all', '--prune'], { cwd: repoDir })
      const packed = readFileSync(join(repoDir, '.git', 'packed-refs'), 'utf8').split('\n')
      heads = [
        '# pack-refs with: peeled fully-peeled',
        ...packed.filter(line => /^[0-9a-f]+ refs\/heads\//.test(line))
      ]
      // a squashed branch's pull request lists the commits of its head not in its base
      for (const [squash, twin] of corpus.twins ?? []) {
        const pull = pulls.find(p => p.number === numberOf(corpus.commits[squash]?.[4] ?? ''))
        const [parent] = corpus.commits[squash]?.[0] ?? []
        if (!pull || parent === undefined) continue
        pull.head_sha = shaOf(twin)
        pull.merge_commit_sha = shaOf(squash)
        pull.commits = git(repoDir, 'rev-list', '--reverse', shaOf(twin), `^${shaOf(parent)}`)
          .split('\n')
          .slice(0, 250) // the service lists 250 at most
      }
      emulator.reset()
      emulator.seed({
        pulls: { [key]: pulls },
        commits: { [key]: seedCommits(commits, shas) },
        tags: { [key]: Object.fromEntries(corpus.tags.map(([tag, c]) => [tag, shaOf(c)])) }
      })
    }, 120_000) // room for a loaded machine, not a timed assertion

    /**
     * The tags become those made by the time `release` was: the repository's refs (its
     * packed-refs file written whole: one update-ref of hundreds of tags takes longer than the
     * push), and the service's tag list (reads change nothing else: the emulator is seeded once).
     */
    const tagsOf = (release: Release) => {
      const packed = join(repoDir, '.git', 'packed-refs')
      const lines = Object.entries(release.tags).map(([tag, c]) => `${shaOf(c)} refs/tags/${tag}`)
      writeFileSync(packed, [...heads, ...lines].join('\n') + '\n')
      emulator.state.tagNames[key] = corpus.tags.map(([tag]) => tag).filter(t => t in release.tags)
    }

    /** What a release manager lists: the numbers the subjects of previous..tag name. */
    const expected = (release: Release) => {
      const bySha = new Map(corpus.commits.map((c, i) => [shaOf(i), c[4]]))
      const [head, previous] = [release.commit, release.previousCommit]
      const tips = [head, ...twinsShippedBy(corpus, head)].map(shaOf)
      const before = [previous, ...twinsShippedBy(corpus, previous)].map(shaOf)
      const range = execFileSync('git', ['rev-list', ...tips, '--not', ...before], {
        cwd: repoDir,
        encoding: 'utf8',
        maxBuffer: 1 << 26
      })
        .split('\n')
        .filter(Boolean)
      const numbers = new Set(range.flatMap(sha => numberOf(bySha.get(sha) ?? '') ?? []))
      // A backport's subject `Title (#N) (#B)` ships its original N too, when N went into another
      // branch than B (issue 43: the original is labeled with its backport).
      const baseOf = new Map(corpus.pulls.map(([n, base]) => [n, base]))
      for (const sha of range) {
        const inner = [...(bySha.get(sha) ?? '').matchAll(/\(#(\d+)\)/g)].map(m => Number(m[1]))
        const own = inner.at(-1)
        for (const n of inner.slice(0, -1))
          if (own !== undefined && baseOf.has(n) && baseOf.get(n) !== baseOf.get(own))
            numbers.add(n)
      }
      return { commits: range.length, numbers: [...numbers].sort((a, b) => a - b) }
    }

    test.each(releases.map(release => [release.tag, release] as const))(
      '%s',
      async (tag: string, release: Release) => {
        tested++
        const want = expected(release)
        tagsOf(release)
        const context = {
          eventName: 'push',
          payload: {},
          sha: shaOf(release.commit),
          ref: `refs/tags/${tag}`,
          owner: OWNER,
          repo: name,
          ...(SINCE ? { since: shaOf(release.previousCommit) } : {})
        }
        // both paths at once: they only read (the repository, the emulator)
        const [byGit, byCompare] = await Promise.all([
          discoverPullRequests(client, { ...context, workspace: repoDir }),
          discoverPullRequests(client, context)
        ])
        const known = RELABELS_EARLIER_RELEASES.has(`${repo} ${tag}`)
        const git = difference(want.numbers, byGit.numbers, known)
        const compare = difference(want.numbers, byCompare.numbers, known)
        if (git || compare) {
          const line =
            `${repo} ${tag} (from ${release.previous}: ${want.commits} commits, ` +
            `${want.numbers.length} pull requests): ` +
            `git from ${startOf(byGit)}: ${git || 'same'}; ` +
            (compare === git && startOf(byCompare) === startOf(byGit)
              ? 'compare: the same'
              : `compare from ${startOf(byCompare)}: ${compare || 'same'}`)
          failures.push(line)
          throw new Error(line)
        }
      },
      120_000 // room for a loaded machine, not a timed assertion
    )
  }
)
