/**
 * `paths`: which of the pull requests discovery found changed a file the patterns take in. Git
 * says it when the checkout has the history (no request); else the service's list of each pull
 * request's files, one read a pull request (a page of 100 files).
 *
 * With git, a pull request's files are those of the range's commits that belong to it (discovery
 * says which: a subject that names it, or the commit lookup that answered it), each against its
 * first parent:
 * - a merge commit (`Merge pull request #N`): what its branch brought over the first parent, as
 *   the pull request showed it. Not the branch's own commits one by one: a branch that merged
 *   its base in (`Update branch`) holds commits of other pull requests.
 * - a squash commit: the whole pull request in one commit.
 * - a rebase merge: one commit per commit of the pull request, each found by the commit lookup;
 *   together they changed what the pull request did.
 * This relies on range-pulls telling every commit it tied to a pull request (`owned`): today it
 * looks up every main-line commit no subject names, so each commit of a rebase merge is told.
 * The event's pull request (`pull_request`) is `base...head`, from their merge base, as the
 * service lists its files. A pull request whose commits git cannot read (one of them is not in
 * the checkout, or discovery found it another way) is asked of the service.
 */
import type { ServiceClient } from '../client/client.js'
import { ServiceError } from '../client/errors.js'
import { listPullFiles, MAX_PULL_FILES, PULL_FILES_PERMISSION } from '../service/pull-files.js'
import { firstLineOf } from '../shared/result.js'
import { logLine } from '../shared/untrusted.js'
import { list } from './references.js'
import { describePaths, firstIncluded, plainPaths, type PathFilter } from './paths.js'

export interface PathsContext {
  client: ServiceClient
  owner: string
  repo: string
  filter: PathFilter
  /** the checkout, when it has the history: git says which files */
  workspace?: string
  /** the range's commits that belong to each pull request, as discovery found them */
  commitsOf: Map<number, Set<string>>
  /** the event's own pull request (`pull_request`): its base and head commits */
  event?: { number: number; base?: string; head?: string }
}

export interface PathsOutcome {
  /** those that changed a matching file, or whose files could not all be told (ascending) */
  numbers: number[]
  warnings: string[]
  notes: string[]
}

/** Keeps the pull requests that changed a file `filter` takes in. */
export async function keepByPaths(ctx: PathsContext, numbers: number[]): Promise<PathsOutcome> {
  const outcome: PathsOutcome = { numbers: [], warnings: [], notes: [] }
  if (numbers.length === 0) return outcome
  const patterns = describePaths(ctx.filter)
  const fromGit = ctx.workspace ? await filesFromGit(ctx, ctx.workspace, numbers) : new Map()
  const kept: number[] = []
  const matched: number[] = []
  const left: number[] = []
  const untold: string[] = []
  let reads = 0
  let stopped: string | undefined
  const unasked: number[] = []
  // `web` written for the folder: it matches a file named `web` only (as on.push.paths reads it).
  const plains = plainPaths(ctx.filter)
  const folders = new Map<string, string>()
  for (const number of numbers) {
    let files: string[] | undefined = fromGit.get(number)
    let complete = true
    if (files === undefined) {
      if (stopped) {
        unasked.push(number)
        kept.push(number)
        continue
      }
      try {
        const before = ctx.client.counts.reads
        const listed = await listPullFiles(ctx.client, ctx.owner, ctx.repo, number)
        reads += ctx.client.counts.reads - before
        files = listed.files
        complete = listed.complete
      } catch (error) {
        // Something other than the API answered: every later read would meet the same page.
        if (error instanceof ServiceError && (error.fatal || error.notTheApi)) throw error
        if (error instanceof ServiceError && (error.status === 403 || error.status === 404)) {
          stopped = `${error.method} ${error.path} answered ${error.status}: ${PULL_FILES_PERMISSION}`
          unasked.push(number)
        } else untold.push(`#${number} (${firstLineOf(error)})`)
        kept.push(number)
        continue
      }
    }
    for (const plain of plains) {
      if (folders.has(plain.source)) continue
      const inside = files.find(file => file.startsWith(`${plain.path}/`))
      if (inside !== undefined) folders.set(plain.source, `#${number} changed ${shownFile(inside)}`)
    }
    if (firstIncluded(ctx.filter, files) !== undefined) {
      kept.push(number)
      matched.push(number)
    } else if (complete) left.push(number)
    else {
      kept.push(number)
      outcome.warnings.push(
        `paths: #${number} changed more files than the service lists (${MAX_PULL_FILES}), and ` +
          `none of those listed is in ${patterns}: it counts, as one of the rest may be. List ` +
          'it in `remove-labels` of a step of its own if it should not.'
      )
    }
  }
  outcome.numbers = kept
  const how =
    fromGit.size === numbers.length
      ? 'files read with git'
      : fromGit.size > 0
        ? `files read with git, ${numbers.length - fromGit.size} listed by the service: ${reads} read${reads === 1 ? '' : 's'}`
        : `files listed by the service: ${reads} read${reads === 1 ? '' : 's'}`
  const counted = kept.filter(n => !matched.includes(n))
  const parts = [
    matched.length > 0
      ? `${list(matched)} changed files in ${patterns}`
      : `none changed files in ${patterns}`
  ]
  if (counted.length > 0)
    parts.push(
      `${list(counted)} count${counted.length === 1 ? 's' : ''}, as ` +
        `${counted.length === 1 ? 'its' : 'their'} files could not all be told (see the warnings)`
    )
  if (left.length > 0) parts.push(`left out ${list(left)}, which changed none`)
  outcome.notes.push(`paths: ${parts.join('; ')} (${how})`)
  for (const [source, seen] of folders)
    outcome.warnings.push(
      `paths: \`${source}\` matches a file of that whole path only, and it is a folder (${seen}): ` +
        `its files are \`${source}/**\`.`
    )
  if (stopped) {
    outcome.warnings.push(
      `paths: ${stopped}. ${list(unasked)} count${unasked.length === 1 ? 's' : ''} without ` +
        `${unasked.length === 1 ? 'its' : 'their'} files read, as what would leave ` +
        `${unasked.length === 1 ? 'it' : 'them'} out cannot be told.`
    )
  }
  if (untold.length > 0) {
    outcome.warnings.push(
      `paths: could not list the files of ${untold.join(', ')}: ` +
        `${untold.length === 1 ? 'it counts' : 'they count'}, as what would leave ` +
        `${untold.length === 1 ? 'it' : 'them'} out cannot be told.`
    )
  }
  return outcome
}

/**
 * Each pull request's files as git says them, for those whose commits the checkout has all of;
 * the rest are not in the map. Two processes for the whole set: which commits exist, then every
 * commit's files against its first parent.
 */
async function filesFromGit(
  ctx: PathsContext,
  workspace: string,
  numbers: number[]
): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>()
  const event = ctx.event
  const sha = /^[0-9a-f]{40,64}$/
  if (
    event?.base &&
    event.head &&
    sha.test(event.base) &&
    sha.test(event.head) &&
    numbers.includes(event.number)
  ) {
    const diff = await git(workspace, [
      'diff',
      '--name-only',
      '--no-renames',
      '-z',
      `${event.base}...${event.head}`,
      '--'
    ])
    if (diff.ok) out.set(event.number, diff.stdout.split('\0').filter(Boolean))
  }
  const wanted = numbers.filter(n => !out.has(n) && (ctx.commitsOf.get(n)?.size ?? 0) > 0)
  const shas = [...new Set(wanted.flatMap(n => [...(ctx.commitsOf.get(n) ?? [])]))].filter(s =>
    sha.test(s)
  )
  if (shas.length === 0) return out
  const check = await git(workspace, ['cat-file', '--batch-check'], shas.join('\n') + '\n')
  if (!check.ok) return out
  const present = new Set(
    check.stdout.split('\n').flatMap(line => {
      const [sha, type] = line.split(' ')
      return type === 'commit' && sha ? [sha] : []
    })
  )
  const readable = shas.filter(sha => present.has(sha))
  if (readable.length === 0) return out
  const log = await git(
    workspace,
    [
      'log',
      '--stdin',
      '--no-walk=unsorted',
      '--diff-merges=first-parent',
      '--name-only',
      '--no-renames',
      '-z',
      '--format=%x01%H'
    ],
    readable.join('\n') + '\n'
  )
  if (!log.ok) return out
  const filesOf = new Map<string, string[]>()
  for (const chunk of log.stdout.split('\x01')) {
    const [sha = '', ...rest] = chunk.split('\0')
    if (sha === '') continue
    filesOf.set(sha.trim(), rest.map(name => name.replace(/^\n/, '')).filter(Boolean))
  }
  for (const number of wanted) {
    const commits = [...(ctx.commitsOf.get(number) ?? [])]
    if (!commits.every(sha => filesOf.has(sha))) continue
    out.set(number, [...new Set(commits.flatMap(sha => filesOf.get(sha) ?? []))])
  }
  return out
}

async function git(
  cwd: string,
  args: string[],
  input?: string
): Promise<{ ok: boolean; stdout: string }> {
  try {
    // Loaded when git is asked: most runs never start a process.
    const { getExecOutput } = await import('@actions/exec')
    // Every path from the root, wherever in the checkout git runs (the command line's folder),
    // whatever a user's or the repository's `diff.relative` says; and no signature checks,
    // whose words `log.showSignature` would print among the files.
    const settings = ['-c', 'diff.relative=false', '-c', 'log.showSignature=false']
    const result = await getExecOutput('git', [...settings, ...args], {
      cwd,
      silent: true,
      ignoreReturnCode: true,
      ...(input !== undefined ? { input: Buffer.from(input) } : {})
    })
    return { ok: result.exitCode === 0, stdout: result.stdout }
  } catch {
    // No git on the runner, or the folder is gone: the service is asked instead.
    return { ok: false, stdout: '' }
  }
}

/** A pull request's file name in the log: untrusted, so one line, and long ones cut. */
function shownFile(file: string): string {
  const chars = [...file]
  return logLine(chars.length > 120 ? `${chars.slice(0, 120).join('')}…` : file)
}
