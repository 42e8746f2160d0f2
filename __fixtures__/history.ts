/**
 * A commit history written once and served twice: as a real git repository (the checkout that
 * `fetch-depth: 0` gives) and as the emulator's commits (what the compare and commit-lookup
 * endpoints answer). One `git fast-import` writes the repository, so a test can afford many.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { emulatorClient, withEmulator } from './emulator.js'
import type { Emulator, SeedCommit } from '../emulator/index.js'
import type { ServiceClient } from '../src/client/client.js'

export interface HistoryCommit {
  /** the test's own name for the commit */
  id: string
  message: string
  /** ids, first parent first */
  parents: string[]
  /** what the commit-to-pull-request lookup answers for it */
  pulls?: number[]
  /** the committer's email: `noreply@github.com` for what the merge button made (squash, rebase) */
  committer?: string
  /** when it was committed (ISO 8601, whole seconds); a minute after the previous commit when absent */
  date?: string
}

export const git = (cwd: string, ...args: string[]): string =>
  execFileSync(
    'git',
    [
      '-c',
      'user.name=Test',
      '-c',
      'user.email=test@example.com',
      '-c',
      'commit.gpgsign=false',
      ...args
    ],
    { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } }
  ).trim()

/**
 * Writes `commits` (oldest first) into a new repository at `dir`, branch `main` at `head`, and
 * lightweight `tags` (name to id). Returns each id's sha.
 */
export function writeRepository(
  dir: string,
  commits: HistoryCommit[],
  head: string,
  tags: Record<string, string> = {}
): Record<string, string> {
  mkdirSync(dir, { recursive: true })
  git(dir, 'init', '-q', '-b', 'main')
  const mark = new Map(commits.map((c, i) => [c.id, i + 1]))
  const markOf = (id: string) => {
    const m = mark.get(id)
    if (m === undefined) throw new Error(`unknown commit ${id}`)
    return m
  }
  const parts: string[] = []
  commits.forEach((commit, i) => {
    const message = Buffer.from(commit.message, 'utf8')
    const [first, ...others] = commit.parents
    // A commit without `from` continues the branch; after a reset it is a root.
    if (first === undefined) parts.push('reset refs/heads/scratch')
    parts.push(
      'commit refs/heads/scratch',
      `mark :${i + 1}`,
      `committer ${commit.committer?.startsWith('noreply@') ? 'GitHub' : 'Test'} ` +
        `<${commit.committer ?? 'test@example.com'}> ${secondsOf(commit, i)} +0000`,
      `data ${message.length}`,
      commit.message
    )
    if (first !== undefined) parts.push(`from :${markOf(first)}`)
    others.forEach(p => parts.push(`merge :${markOf(p)}`))
  })
  parts.push('reset refs/heads/main', `from :${markOf(head)}`)
  for (const [name, id] of Object.entries(tags))
    parts.push(`reset refs/tags/${name}`, `from :${markOf(id)}`)
  const marksFile = join(dir, '.git', 'marks')
  execFileSync('git', ['fast-import', '--quiet', `--export-marks=${marksFile}`], {
    cwd: dir,
    input: parts.join('\n') + '\n',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' }
  })
  git(dir, 'update-ref', '-d', 'refs/heads/scratch')
  git(dir, 'symbolic-ref', 'HEAD', 'refs/heads/main')
  const byMark = new Map(
    readFileSync(marksFile, 'utf8')
      .trim()
      .split('\n')
      .map(line => line.split(' ') as [string, string])
      .map(([m, sha]) => [Number(m.slice(1)), sha])
  )
  return Object.fromEntries(commits.map((c, i) => [c.id, byMark.get(i + 1) as string]))
}

/** When the `i`th commit was committed, in seconds: its `date`, else a minute after the previous. */
const secondsOf = (commit: HistoryCommit, i: number): number =>
  commit.date ? Date.parse(commit.date) / 1000 : 1_700_000_000 + i * 60

/** The same history as the emulator's commits, oldest first, with real shas. */
export function seedCommits(commits: HistoryCommit[], shas: Record<string, string>): SeedCommit[] {
  return commits.map((c, i) => ({
    sha: shas[c.id] as string,
    message: c.message,
    parents: c.parents.map(p => shas[p] as string),
    pulls: c.pulls ?? [],
    ...(c.committer ? { committer: c.committer } : {}),
    date: new Date(secondsOf(c, i) * 1000).toISOString().replace('.000Z', 'Z')
  }))
}

export let emulator: Emulator
export let client: ServiceClient
export let dir: string

/**
 * Registers the hooks of a property test over generated histories: one emulator, a ServiceClient
 * on it (no retries) and a scratch folder (named `prefix`) for the repositories, for the file.
 * `emulator`, `client` and `dir` are live bindings: read them inside tests, after the hooks ran.
 */
export function useHistoryWorld(prefix: string): void {
  beforeAll(async () => {
    emulator = await withEmulator()
    dir = mkdtempSync(join(tmpdir(), `${prefix}-`))
    client = emulatorClient(emulator)
  })
  afterAll(async () => {
    await client.close()
    await emulator.close()
    rmSync(dir, { recursive: true, force: true })
  })
}
