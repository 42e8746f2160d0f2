/**
 * The release corpus (__fixtures__/histories/*.json.gz, written by scripts/corpus.mjs): commit
 * graphs of public repositories around their release tags, and what a release manager counts as
 * a release's pull requests, computed here without src/labels: the previous release by this
 * file's own version order, `git rev-list <previous>..<tag>`, and the numbers the subjects name.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import type { HistoryCommit } from './history.js'
import type { SeedPull } from '../emulator/index.js'

export const HISTORIES = fileURLToPath(new URL('./histories/', import.meta.url))

export interface Corpus {
  repo: string
  /** which tags are releases, to push (the other version tags are there, not pushed) */
  releases: string
  source: Record<string, unknown>
  branches: string[]
  /** oldest first: [parent indexes, committer time, branch index, 1 when GitHub committed it, subject] */
  commits: [number[], number, number | null, number, string][]
  /** [name, commit index, when it was made] */
  tags: [string, number, number][]
  /** [number, base branch index, head branch] */
  pulls: [number, number | null, string][]
  /** [squash commit index, the commit of the same tree it squashed: its pull request's head] */
  twins?: [number, number][]
  /** from outside the subjects (scripts/corpus-truth.mjs; the fixtures of histories/changelog/) */
  truth?: ChangelogTruth
  /** [commit index, the pull requests the service's lookup answers, from the pull request refs] */
  lookup?: [number, number[]][]
  /** the commits the lookup ties by their tree alone (squash commits, not the pull request's own) */
  squashes?: number[]
  /** [number, the index of its head commit] */
  heads?: [number, number][]
  /** number to title, from the default branch's subjects */
  titles?: Record<string, string>
  /** the paths each commit changed over its first parent (names only), for `paths` */
  files?: string[][]
}

export interface ChangelogTruth {
  file: string
  /** the mirror commit the file was read at */
  commit: string
  /** each file (a monorepo's per-package changelogs) and the commit it was read at */
  sources?: { file: string; commit: string }[]
  format: string
  /** tag to the pull requests the changelog lists for its version */
  versions: Record<string, number[]>
  /** tag to the numbers it names that are no pull requests (issues) */
  notPulls: Record<string, number[]>
}

export function loadCorpora(folder = HISTORIES): Corpus[] {
  return readdirSync(folder)
    .filter(name => name.endsWith('.json.gz'))
    .sort()
    .map(name => JSON.parse(gunzipSync(readFileSync(join(folder, name))).toString('utf8')))
}

/** The pull request a subject names: `Merge pull request #N from ...`, else its last `(#N)`. */
export function numberOf(subject: string): number | undefined {
  const merge = /^Merge pull request #(\d+) from /.exec(subject)
  const squash = /.*\(#(\d+)\)/.exec(subject)
  const n = merge?.[1] ?? squash?.[1]
  return n === undefined ? undefined : Number(n)
}

/** The graph as `writeRepository` takes it: ids `c<index>`, the lookup answering the subject's number. */
export function historyOf(corpus: Corpus): HistoryCommit[] {
  return corpus.commits.map(([parents, , , byGitHub, subject], i) => {
    const n = numberOf(subject)
    return {
      id: `c${i}`,
      message: subject,
      parents: parents.map(p => `c${p}`),
      pulls: n === undefined ? [] : [n],
      ...(byGitHub ? { committer: 'noreply@github.com' } : {})
    }
  })
}

/** Every number a subject names is a merged pull request of the repository, into where it landed. */
export function pullsOf(corpus: Corpus): SeedPull[] {
  return corpus.pulls.map(([number, base, head]) => ({
    number,
    merged: true,
    title: `Pull request ${number}`,
    base_ref: base === null ? 'main' : (corpus.branches[base] ?? 'main'),
    head_ref: head
  }))
}

/**
 * What a commit ships: its history, where a squash merge of a branch (a release pull request
 * from `develop` squashed into `main`) stands for the branch it squashed. Returns the twins
 * (pull request heads) reached, to name to `git rev-list` beside the commit.
 */
export function twinsShippedBy(corpus: Corpus, commit: number): number[] {
  const twinOf = new Map(corpus.twins ?? [])
  if (twinOf.size === 0) return []
  const seen = new Set<number>()
  const twins: number[] = []
  for (const todo = [commit]; todo.length > 0;) {
    const at = todo.pop() as number
    if (seen.has(at)) continue
    seen.add(at)
    const twin = twinOf.get(at)
    if (twin !== undefined) twins.push(twin)
    todo.push(...(corpus.commits[at]?.[0] ?? []), ...(twin === undefined ? [] : [twin]))
  }
  return twins
}

// --- versions: a prefix, then 2 to 4 dot-separated numbers (`v6.1` is 6.1.0.0), then maybe a
// prerelease part (`-rc.1`, `rc1`, `b2`, `.beta1`, `-next.3`, `-alpha20260701`); the prefix without a final `v` is the form
const VERSION =
  /^((?:.*[^\d.])?)(\d+(?:\.\d+){1,3})(?:[-.~_]?((?:dev|alpha|next|beta|preview|pre|rc|a|b|c)[-.]?\d*(?:\.\d+)*))?$/i
const RANK: Record<string, number> = {
  dev: 0,
  a: 1,
  alpha: 1,
  next: 1.5,
  b: 2,
  beta: 2,
  pre: 2,
  preview: 2,
  c: 3,
  rc: 3
}

export interface Version {
  form: string
  numbers: number[]
  /** undefined for a final release */
  pre?: number[]
}

export function versionOf(name: string): Version | undefined {
  const m = VERSION.exec(name)
  if (!m) return undefined
  const numbers = (m[2] as string).split('.').map(Number)
  while (numbers.length < 4) numbers.push(0)
  const pre = m[3]
    ? [...m[3].toLowerCase().matchAll(/([a-z]+)|(\d+)/g)].map(x =>
        x[1] !== undefined ? (RANK[x[1]] ?? 1) : Number(x[2])
      )
    : undefined
  return {
    form: (m[1] as string).replace(/v$/i, '').toLowerCase(),
    numbers,
    ...(pre ? { pre } : {})
  }
}

export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 4; i++) {
    const d = (a.numbers[i] as number) - (b.numbers[i] as number)
    if (d !== 0) return d
  }
  if (!a.pre || !b.pre) return (a.pre ? -1 : 0) - (b.pre ? -1 : 0)
  for (let i = 0; i < Math.max(a.pre.length, b.pre.length); i++) {
    const d = (a.pre[i] ?? -1) - (b.pre[i] ?? -1)
    if (d !== 0) return d
  }
  return 0
}

export interface Release {
  tag: string
  commit: number
  previous: string
  previousCommit: number
  /** the tags that existed when it was made (its own included): name to commit index */
  tags: Record<string, number>
}

/**
 * Each version tag with a previous release: a final's is the highest final below it of its
 * form, a prerelease's the highest tag below it of its form, among the tags made by then (of
 * two tags of one version, the one made last).
 */
export function releasesOf(corpus: Corpus): Release[] {
  return corpus.tags.flatMap(([name, commit, time]) => {
    const version = versionOf(name)
    if (!version) return []
    const existing = corpus.tags.filter(([, , t]) => t <= time)
    let best: { name: string; commit: number; time: number; version: Version } | undefined
    for (const [other, otherCommit, otherTime] of existing) {
      const v = versionOf(other)
      if (!v || v.form !== version.form || compareVersions(v, version) >= 0) continue
      if (!version.pre && v.pre) continue
      // of two tags of one version (`tauri-v2.0` and `tauri-v2.0.0`), the one made last
      const order = best ? compareVersions(v, best.version) || otherTime - best.time : 1
      if (order > 0) best = { name: other, commit: otherCommit, time: otherTime, version: v }
    }
    if (!best) return []
    return [
      {
        tag: name,
        commit,
        previous: best.name,
        previousCommit: best.commit,
        tags: Object.fromEntries(existing.map(([n, c]) => [n, c]))
      }
    ]
  })
}

/** `missing 3 (#1, #2, #5), extra 1 (#9)`, or '' when equal. */
export function difference(expected: number[], found: number[], extraAllowed = false): string {
  const want = new Set(expected)
  const got = new Set(found)
  const missing = expected.filter(n => !got.has(n))
  const extra = extraAllowed ? [] : found.filter(n => !want.has(n))
  const some = (ns: number[]) =>
    `${ns.length} (${ns
      .slice(0, 6)
      .map(n => `#${n}`)
      .join(', ')}${ns.length > 6 ? ', …' : ''})`
  return [
    ...(missing.length > 0 ? [`missing ${some(missing)}`] : []),
    ...(extra.length > 0 ? [`extra ${some(extra)}`] : [])
  ].join(', ')
}
