#!/usr/bin/env node
// Over 300 lines: one pass from a mirror to a fixture (tags, window, landed branches, pull
// requests, squashed branches, the window's check) over the same records; split, each part
// would take them all as arguments.
/**
 * Writes one fixture of the release corpus (__fixtures__/histories/, read by
 * __tests__/reliability/release-corpus.test.ts): the commit graph of a public repository around
 * its last release tags, from a bare mirror, as gzipped JSON. Only the graph is kept (parents,
 * committer time, whether GitHub's merge button committed it, the subject's first line), the
 * branch each commit landed on (a guess, see `landed`), the tags and the pull requests the
 * subjects name. No file of the repository is kept.
 *
 *   node scripts/corpus.mjs <mirror.git> <owner/name> [--last N] [--tags REGEX] \
 *     [--max-commits N] > __fixtures__/histories/<name>.json.gz
 *
 * --last N      the newest N release tags (matching --tags, by tag date) and the previous
 *               release of each; every version tag created in that span is kept with its range
 * --tags REGEX  which tags are the repository's releases (default: any version tag); the test
 *               pushes those (the other version tags of the window are there, not pushed)
 * --until TAG   the window ends at TAG (default: the newest release tag)
 * --files       keep the paths each commit changed (names only; for the `paths` input)
 * --keep REGEX  only the version tags matching it are kept with their ranges (default: all):
 *               a release branch's tags without the other lines' ranges
 * --changelog FILE  also keep the changelog's truth, the lookup the pull request refs answer
 *               and the changelog pull requests' titles (scripts/corpus-truth.mjs), with
 *               --changelog-format towncrier|markdown (default markdown), --changelog-prefix P
 *               (a version's tag is P + version; default `v`; or FILE=P@REF,FILE=P for a monorepo's
 *               per-package files, each read at its REF) and --changelog-at REF (the commit
 *               the file is read at; default the newest release tag)
 *
 * The window is the union of `git rev-list <previous>..<tag>` (plus both ends) over the kept
 * tags; parents outside it are dropped. The previous release of a tag is computed here as the
 * test computes it (a final: the highest final below it of its form; a prerelease: the highest
 * tag below it), on the tags that existed when it was made; the script checks that each kept
 * pair's range counts the same commits in the window as in the mirror and says which do not.
 */
import { execFileSync } from 'node:child_process'
import { gzipSync } from 'node:zlib'
import { changelogTruth, lookupsOf, pullRefs, titlesOf } from './corpus-truth.mjs'

const [mirror, repo, ...rest] = process.argv.slice(2)
if (!mirror || !repo || !/^[\w.-]+\/[\w.-]+$/.test(repo)) {
  process.stderr.write('usage: corpus.mjs <mirror.git> <owner/name> [--last N] [--tags REGEX]\n')
  process.exit(2)
}
const option = (name, fallback) => {
  const i = rest.indexOf(name)
  return i >= 0 && rest[i + 1] !== undefined ? rest[i + 1] : fallback
}
const LAST = Number(option('--last', '12'))
const RELEASES = new RegExp(option('--tags', '.'))

const git = (...args) =>
  execFileSync('git', ['--git-dir', mirror, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30
  })

// --- versions: 2-4 numbers after a prefix, an optional prerelease part (the test has its own)
const VERSION =
  /^((?:.*[^\d.])?)(\d+(?:\.\d+){1,3})(?:[-.~_]?((?:dev|alpha|next|beta|preview|pre|rc|a|b|c)[-.]?\d*(?:\.\d+)*))?$/i
const RANK = { dev: 0, a: 1, alpha: 1, next: 1.5, b: 2, beta: 2, pre: 2, preview: 2, c: 3, rc: 3 }
function parse(name) {
  const m = VERSION.exec(name)
  if (!m) return undefined
  const numbers = m[2].split('.').map(Number)
  while (numbers.length < 4) numbers.push(0)
  const pre = m[3]
    ? [...m[3].toLowerCase().matchAll(/([a-z]+)|(\d+)/g)].map(x =>
        x[1] !== undefined ? (RANK[x[1]] ?? 1) : Number(x[2])
      )
    : undefined
  return { form: m[1].replace(/v$/i, '').toLowerCase(), numbers, pre }
}
function compare(a, b) {
  for (let i = 0; i < 4; i++) if (a.numbers[i] !== b.numbers[i]) return a.numbers[i] - b.numbers[i]
  if (!a.pre || !b.pre) return (a.pre ? -1 : 0) - (b.pre ? -1 : 0)
  for (let i = 0; i < Math.max(a.pre.length, b.pre.length); i++) {
    const [x, y] = [a.pre[i] ?? -1, b.pre[i] ?? -1]
    if (x !== y) return x - y
  }
  return 0
}
function previousOf(tag, tags) {
  const v = parse(tag.name)
  if (!v) return undefined
  let best
  for (const other of tags) {
    if (other === tag || other.time > tag.time) continue
    const w = parse(other.name)
    if (!w || w.form !== v.form || compare(w, v) >= 0) continue
    if (!v.pre && w.pre) continue
    if (!best || compare(w, best.v) > 0) best = { tag: other, v: w }
  }
  return best?.tag
}

// --- tags: name, commit, when it was made (the tagger's date, else the commit's)
const tags = git(
  'for-each-ref',
  'refs/tags',
  '--format=%(refname:strip=2)%00%(objecttype)%00%(objectname)%00%(*objecttype)%00%(*objectname)%00%(creatordate:unix)'
)
  .split('\n')
  .filter(Boolean)
  .map(line => line.split('\0'))
  .flatMap(([name, type, object, peeledType, peeled, time]) => {
    const commit = type === 'commit' ? object : peeledType === 'commit' ? peeled : undefined
    return commit ? [{ name, commit, time: Number(time) }] : []
  })
  .sort((a, b) => a.time - b.time || a.name.localeCompare(b.name))
const until = option('--until', undefined)
const last = until === undefined ? Infinity : tags.find(t => t.name === until)?.time
if (last === undefined) throw new Error(`no tag ${until}`)
const releases = tags.filter(t => RELEASES.test(t.name) && parse(t.name) && t.time <= last)
const newest = releases.slice(-LAST)
if (newest.length === 0) throw new Error('no release tags matched')
const firstPrevious = newest.map(t => previousOf(t, tags)).filter(Boolean)
const since = Math.min(...firstPrevious.map(t => t.time), newest[0].time)
const end = newest[newest.length - 1].time
const KEEP = new RegExp(option('--keep', '.'))
const kept = tags.filter(
  t => t.time >= since && t.time <= end && parse(t.name) && KEEP.test(t.name)
)
const pairs = kept.flatMap(t => {
  const previous = previousOf(t, tags)
  return previous ? [[previous, t]] : []
})

// --- the window: every kept pair's range, both ends included
const window = new Set()
for (const [previous, tag] of pairs) {
  window.add(previous.commit)
  window.add(tag.commit)
  for (const sha of git('rev-list', `${previous.commit}..${tag.commit}`).split('\n'))
    if (sha) window.add(sha)
}
for (const t of kept) window.add(t.commit)

// Oldest first, parents before children; parents outside the window are dropped.
const tips = [...new Set([...kept, ...pairs.map(([previous]) => previous)].map(t => t.commit))]
const records = git(
  'log',
  '--topo-order',
  '--format=%H%x00%P%x00%ct%x00%ce%x00%s%x00%T',
  ...tips,
  '--'
)
  .split('\n')
  .filter(Boolean)
  .map(line => line.split('\0'))
  .filter(([sha]) => window.has(sha))
  .reverse()
const index = new Map(records.map(([sha], i) => [sha, i]))

// --- where each commit landed: the first-parent chains of the branches (the default branch
// first), then, newest first, the second parent of each merge gets the branch its subject names
const head = git('symbolic-ref', '--short', 'HEAD').trim()
/** long-lived branches: their first-parent chains name commits before any topic branch's */
const LONG_LIVED =
  /^(develop|development|dev|devel|next|main|master|trunk|stable|beta|rc|minor|maint\S*|release\S*|hotfix\S*|\S+-stable|v?\d+(\.\d+)*(\.x)?|[\w-]+-v?\d+(\.\d+)*\.x)$/i
const heads = git(
  'for-each-ref',
  '--sort=-committerdate',
  '--format=%(refname:strip=2)',
  'refs/heads'
)
  .split('\n')
  .filter(name => name && name !== head && LONG_LIVED.test(name))
  .slice(0, 100)
/** the long-lived branches but the default one, for the titles of what merged into them */
const releaseLines = heads
const branches = []
const branchIndex = name => {
  let i = branches.indexOf(name)
  if (i < 0) i = branches.push(name) - 1
  return i
}
const landed = new Map()
const floor = Math.min(...records.map(r => Number(r[2]))) - 86400 * 30
for (const name of [head, ...heads]) {
  const chain = git(
    'rev-list',
    '--first-parent',
    `--since=${floor}`,
    `refs/heads/${name}`,
    '--'
  ).split('\n')
  for (const sha of chain)
    if (index.has(sha) && !landed.has(sha)) landed.set(sha, branchIndex(name))
}
const parentsOf = sha => (records[index.get(sha)]?.[1] ?? '').split(' ').filter(Boolean)
const mergedBranch = subject => {
  const m =
    /^Merge pull request #\d+ from [^/\s]+\/(\S+)/.exec(subject) ??
    /^Merge (?:remote-tracking )?branch '(?:origin\/)?([^']+)'/.exec(subject) ??
    /^Merge branch "(?:origin\/)?([^"]+)"/.exec(subject)
  if (m) return m[1]
  // a merge commit titled after its pull request (`Title (#N)`): the pull request's branch
  const n = /.*\(#(\d+)\)/.exec(subject)?.[1]
  return n === undefined ? undefined : `pull-${n}`
}
for (let i = records.length - 1; i >= 0; i--) {
  const [sha, , , , subject] = records[i]
  if (!landed.has(sha)) {
    const tag = kept.find(t => t.commit === sha)
    const name = `(unnamed: ${tag ? `tag ${tag.name}` : sha.slice(0, 10)})`
    for (let at = sha; at && index.has(at) && !landed.has(at); at = parentsOf(at)[0])
      landed.set(at, branchIndex(name))
  }
  const [, second] = parentsOf(sha)
  if (second && index.has(second) && !landed.has(second)) {
    const name = mergedBranch(subject) ?? `(merged by ${sha.slice(0, 10)})`
    for (let at = second; at && index.has(at) && !landed.has(at); at = parentsOf(at)[0])
      landed.set(at, branchIndex(name))
  }
}

// --- the pull requests the subjects name: `Merge pull request #N from owner/head` (its base
// is where the merge landed), its last `(#N)` (its base is where the commit landed; the oldest)
const pulls = new Map()
for (const [sha, parents, , , subject] of records) {
  const merge = /^Merge pull request #(\d+) from [^/\s]+\/(\S+)/.exec(subject)
  const squash = /.*\(#(\d+)\)/.exec(subject)
  const number = Number(merge?.[1] ?? squash?.[1] ?? NaN)
  if (!number || pulls.has(number)) continue
  // a merge commit's pull request came from the branch its second parent landed on
  const second = parents.split(' ')[1]
  const merged = second && index.has(second) ? branches[landed.get(second)] : undefined
  const headRef = merge?.[2] ?? (merged && !merged.startsWith('(') ? merged : `pull-${number}`)
  pulls.set(number, [number, landed.get(sha), headRef])
}

// --- squash merges of a branch (a release pull request from `develop` squashed into `main`):
// a one-parent commit of a long-lived branch naming a pull request whose tree is that of an
// older commit of another branch, not in its history: that commit was the pull request's head
const byTree = new Map()
records.forEach(([, , , , , tree], i) => byTree.set(tree, [...(byTree.get(tree) ?? []), i]))
const twins = []
/** the indexes of a commit's history in the window */
const ancestry = i => {
  const seen = new Set()
  for (const todo = [i]; todo.length > 0;) {
    const at = todo.pop()
    if (seen.has(at)) continue
    seen.add(at)
    todo.push(...records[at][1].split(' ').flatMap(p => (index.has(p) ? [index.get(p)] : [])))
  }
  return seen
}
records.forEach(([sha, parents, time, , subject, tree], i) => {
  if (parents.split(' ').length !== 1 || !/\(#\d+\)/.test(subject)) return
  const parent = index.get(parents)
  const twin = (byTree.get(tree) ?? [])
    .filter(j => j !== i && j !== parent && Number(records[j][2]) <= Number(time))
    .filter(j => landed.get(records[j][0]) !== landed.get(sha))
    .at(-1)
  const on = branches[landed.get(sha)]
  const longLived = on === head || LONG_LIVED.test(on ?? '')
  if (twin !== undefined && longLived && !ancestry(i).has(twin)) twins.push([i, twin])
})
for (const [i, twin] of twins) {
  const n = Number(/.*\(#(\d+)\)/.exec(records[i][4])[1])
  const pull = pulls.get(n)
  if (pull && pull[2] === `pull-${n}`) pull[2] = branches[landed.get(records[twin][0])] ?? pull[2]
}

const commits = records.map(([sha, parents, time, email, subject]) => [
  parents
    .split(' ')
    .filter(p => index.has(p))
    .map(p => index.get(p)),
  Number(time),
  landed.get(sha),
  /^noreply@github\.com$/i.test(email) ? 1 : 0,
  subject
])

// --- how faithful the window is: each pair's range counted in the window and in the mirror
const ancestors = i => {
  const seen = new Set()
  for (const todo = [i]; todo.length > 0;) {
    const at = todo.pop()
    if (seen.has(at)) continue
    seen.add(at)
    todo.push(...commits[at][0])
  }
  return seen
}
const unfaithful = []
for (const [previous, tag] of pairs) {
  if (!index.has(previous.commit) || !index.has(tag.commit)) continue
  const before = ancestors(index.get(previous.commit))
  const inWindow = [...ancestors(index.get(tag.commit))].filter(i => !before.has(i)).length
  const inMirror = Number(git('rev-list', '--count', `${previous.commit}..${tag.commit}`))
  if (inWindow !== inMirror)
    unfaithful.push(
      `${previous.name}..${tag.name}: ${inWindow} in the window, ${inMirror} in the mirror`
    )
}

// --- from outside the subjects (issue 43): the changelog, the pull request refs, titles
const changelog = option('--changelog', undefined)
let outside = {}
if (changelog !== undefined) {
  const refs = pullRefs(git)
  // `FILE` with --changelog-prefix, or `FILE=PREFIX,FILE=PREFIX` (a monorepo's per-package files)
  const files = changelog
    .split(',')
    .map(entry => /^([^=@]+)(?:=([^@]*))?(?:@(.+))?$/.exec(entry).slice(1))
  const parts = files.map(([file, prefix, at]) =>
    changelogTruth(
      git,
      {
        file,
        at: at ?? option('--changelog-at', newest[newest.length - 1].name),
        format: option('--changelog-format', 'markdown'),
        prefix: prefix ?? option('--changelog-prefix', 'v'),
        releases: RELEASES.source
      },
      new Set(kept.map(t => t.name)),
      refs,
      pairs
    )
  )
  const truth = {
    ...parts[0],
    file: files.map(([file]) => file).join(', '),
    /** each file and the commit it was read at */
    sources: parts.map(part => ({ file: part.file, commit: part.commit })),
    versions: Object.assign({}, ...parts.map(p => p.versions)),
    notPulls: Object.assign({}, ...parts.map(p => p.notPulls))
  }
  const listed = [...new Set(Object.values(truth.versions).flat())]
  const base = branchIndex(head)
  for (const n of listed) if (!pulls.has(n)) pulls.set(n, [n, base, `pull-${n}`])
  const squashes = new Set()
  const lookup = lookupsOf(records, index, refs, squashes)
  // a pull request only the refs name: its base is where the merge of its head landed
  const mergedInto = n => {
    const head = records.findIndex(([sha]) => (refs.bySha.get(sha) ?? []).includes(n))
    const merge = records.findIndex(([, parents]) =>
      parents.split(' ').slice(1).includes(records[head]?.[0])
    )
    return merge >= 0 && head >= 0 ? (landed.get(records[merge][0]) ?? null) : null
  }
  for (const n of new Set(lookup.flatMap(([, ns]) => ns)))
    if (!pulls.has(n)) pulls.set(n, [n, mergedInto(n), `pull-${n}`])
  // each pull request head the window holds, for the service's `head.sha`
  const heads = records.flatMap(([sha], i) =>
    (refs.bySha.get(sha) ?? []).flatMap(n => (refs.heads.has(n) ? [[n, i]] : []))
  )
  outside = {
    truth,
    /** [commit index, the pull requests the lookup answers] */
    lookup,
    /** the commits the lookup ties by their tree alone (squashes: no commit of the pull request) */
    squashes: [...squashes].sort((a, b) => a - b),
    /** [number, the index of its head commit] */
    heads,
    /** number to title: the changelog's pull requests, from the default branch's subjects */
    titles: titlesOf(
      git,
      [...listed, ...[...pulls.values()].filter(([, base]) => base > 0).map(([n]) => n)],
      floor - 86400 * 365,
      releaseLines
    )
  }
}

// --- --files: the paths each commit changed (over its first parent), names only, for `paths`
if (rest.includes('--files')) {
  const out = execFileSync(
    'git',
    ['--git-dir', mirror, 'diff-tree', '--stdin', '-r', '--name-only', '-m', '--first-parent'],
    {
      input: records.map(([sha]) => sha).join('\n') + '\n',
      encoding: 'utf8',
      maxBuffer: 1 << 30
    }
  )
  const files = records.map(() => [])
  let at
  for (const line of out.split('\n')) {
    if (index.has(line)) at = index.get(line)
    else if (line && at !== undefined) files[at].push(line)
  }
  outside.files = files
}

const mirrorHead = git('rev-parse', 'HEAD').trim()
const fixture = {
  repo,
  releases: RELEASES.source,
  source: {
    mirror: `github:${repo} at ${mirrorHead} (${head})`,
    made: new Date().toISOString().slice(0, 10),
    window: `the ranges of the version tags made from ${kept[0].name} to ${kept[kept.length - 1].name}`,
    regenerate:
      `node scripts/corpus.mjs <mirror of github:${repo}> ${repo} ${rest.join(' ')}`.trim(),
    unfaithful
  },
  branches,
  /** [parent indexes, committer time, branch index, 1 when GitHub committed it, subject] */
  commits,
  /** [name, commit index, when it was made] */
  tags: tags.filter(t => index.has(t.commit)).map(t => [t.name, index.get(t.commit), t.time]),
  /** [number, base branch index, head branch] */
  pulls: [...pulls.values()].sort((a, b) => a[0] - b[0]),
  /** [squash commit index, the commit of the same tree it squashed (its pull request's head)] */
  twins,
  ...outside
}
const json = JSON.stringify(fixture)
process.stdout.write(gzipSync(json, { level: 9 }))
process.stderr.write(
  `${repo}: ${commits.length} commits, ${fixture.tags.length} tags, ${pulls.size} pull requests, ` +
    `${branches.length} branches, ${pairs.length} pairs, ${twins.length} squashed branches` +
    (unfaithful.length > 0 ? `; not faithful: ${unfaithful.join('; ')}` : '') +
    '\n'
)
