// Over 300 lines on purpose: one Discoverer follows the contract's rules per event (pull
// request, push, range by git or compare, commit lookup); each rule reads the others' state.
import type { ServiceClient } from '../client/client.js'
import { ServiceError } from '../client/errors.js'
import {
  compareCommits,
  getIssue,
  getPull,
  isMerged,
  isOfRepository,
  pullsForCommit,
  type CommitSummary,
  type Pull
} from '../service/pulls.js'
import { isSafeRef } from './inputs.js'
import { closingReferences, list, pullNumberFromSubject } from './references.js'
import { firstLineOf } from '../result.js'

/** What `pull-requests: auto` looks at; the action fills it from the run's variables (`readRunEvent`). */
export interface DiscoveryContext {
  eventName: string
  /** the event's JSON (`context.payload`) */
  payload: unknown
  /** `GITHUB_SHA` */
  sha: string
  /** `GITHUB_REF`, e.g. `refs/heads/main` or `refs/tags/v1.2.0` */
  ref: string
  /** the repository whose pull requests count (input `repository`) */
  owner: string
  repo: string
  /** base ref or sha of the range (input `since`) */
  since?: string
  /** the checkout (`GITHUB_WORKSPACE`), read with git when it has the history */
  workspace?: string
}

export interface Discovery {
  /** ascending, each once */
  numbers: number[]
  /** things the user should fix, each saying how */
  warnings: string[]
  /** what was found where, for the log */
  notes: string[]
}

/** Events whose pull requests are the range from `since` (else the previous tag) to the sha. */
const RANGE_EVENTS = new Set(['release', 'workflow_dispatch', 'deployment', 'deployment_status'])
const NULL_SHA = /^0+$/
/** Commit lookups one discovery makes at most; a longer range is a warning. */
export const MAX_COMMIT_LOOKUPS = 300

const FIX_HISTORY =
  'check out the history with `fetch-depth: 0` on actions/checkout, or set `since` to the ' +
  'previous release'

/** The pull requests `pull-requests: auto` means for this event (see the contract). */
export async function discoverPullRequests(
  client: ServiceClient,
  ctx: DiscoveryContext,
  /** Filled with the pull requests read along the way, so later steps need not read them again. */
  read: Map<number, Pull> = new Map()
): Promise<Discovery> {
  const found = new Discoverer(client, ctx, read)
  await found.run()
  return {
    numbers: [...found.numbers].sort((a, b) => a - b),
    warnings: found.warnings,
    notes: found.notes
  }
}

/**
 * The issues that the given pull requests close (`label-linked-issues`). Numbers already in
 * `exclude` and references to pull requests or missing issues are left out.
 */
export async function discoverLinkedIssues(
  client: ServiceClient,
  owner: string,
  repo: string,
  pulls: number[],
  exclude: number[] = [],
  known: Map<number, Pull> = new Map()
): Promise<Discovery> {
  const numbers = new Set<number>()
  const notes: string[] = []
  const skipped: string[] = []
  const seen = new Set(exclude)
  for (const number of pulls) {
    const pull = known.get(number) ?? (await getPull(client, owner, repo, number))
    if (!pull) continue // an issue given by number: it closes nothing
    const refs = closingReferences(pull.body, owner, repo).filter(n => !seen.has(n))
    const linked: number[] = []
    for (const ref of refs) {
      seen.add(ref)
      const issue = await getIssue(client, owner, repo, ref)
      if (!issue) skipped.push(`#${ref} (named by #${number}) does not exist`)
      else if (issue.pull_request) skipped.push(`#${ref} (named by #${number}) is a pull request`)
      else {
        numbers.add(ref)
        linked.push(ref)
      }
    }
    if (linked.length > 0) notes.push(`#${number} closes ${list(linked)}`)
  }
  if (skipped.length > 0) notes.push(`linked issues left out: ${skipped.join('; ')}`)
  return { numbers: [...numbers].sort((a, b) => a - b), warnings: [], notes }
}

type Range = { commits: CommitSummary[]; how: string } | { warning: string }

class Discoverer {
  readonly numbers = new Set<number>()
  readonly warnings: string[] = []
  readonly notes: string[] = []
  private readonly payload: Record<string, unknown>
  private history: Promise<boolean> | undefined

  constructor(
    private readonly client: ServiceClient,
    private readonly ctx: DiscoveryContext,
    private readonly pulls: Map<number, Pull>
  ) {
    this.payload = isRecord(ctx.payload) ? ctx.payload : {}
  }

  async run(): Promise<void> {
    const { eventName, ref, since } = this.ctx
    if (eventName === 'pull_request' || eventName === 'pull_request_target') {
      return this.fromPullRequestEvent()
    }
    const tag = ref.startsWith('refs/tags/')
    if (eventName === 'push' && !tag && since === undefined) return this.fromPush()
    if (RANGE_EVENTS.has(eventName) || (eventName === 'push' && tag) || since !== undefined) {
      return this.fromRange()
    }
    this.warnings.push(
      `pull-requests: auto cannot tell which pull requests a \`${eventName}\` event ships: ` +
        'set `since` to the previous release, or list the numbers in `pull-requests`'
    )
  }

  private fromPullRequestEvent(): void {
    const pull = this.payload['pull_request']
    const number = isRecord(pull) ? pull['number'] : this.payload['number']
    if (typeof number !== 'number') {
      this.warnings.push(
        `the ${this.ctx.eventName} event carries no pull request number; list it in \`pull-requests\``
      )
      return
    }
    const baseRepo = isRecord(pull) ? fullNameOf(pull['base']) : undefined
    const wanted = `${this.ctx.owner}/${this.ctx.repo}`
    if (baseRepo !== undefined && baseRepo.toLowerCase() !== wanted.toLowerCase()) {
      this.warnings.push(
        `the event's pull request #${number} belongs to ${baseRepo}, not to \`repository\` ` +
          `${wanted}: nothing to label there`
      )
      return
    }
    this.numbers.add(number)
    this.notes.push(`${this.ctx.eventName}: #${number} from the event`)
  }

  private async fromPush(): Promise<void> {
    const before = stringOf(this.payload['before'])
    const after = stringOf(this.payload['after']) ?? this.ctx.sha
    const pushed = payloadCommits(this.payload['commits'])
    let range: Range
    if (before === undefined || NULL_SHA.test(before)) {
      range = { commits: pushed, how: 'the commits of the event (a new branch)' }
    } else {
      range = await this.readRange(before, after)
      if ('warning' in range && pushed.length > 0) {
        this.notes.push(`push: ${range.warning}; using the commits the event lists instead`)
        range = { commits: pushed, how: 'the commits of the event' }
      }
    }
    if ('warning' in range) {
      this.warnings.push(`push: ${range.warning}`)
      return
    }
    await this.fromCommits('push', range)
  }

  private async fromRange(): Promise<void> {
    const head = this.ctx.sha
    const what = this.ctx.ref.startsWith('refs/tags/')
      ? `tag ${this.ctx.ref.slice('refs/tags/'.length)}`
      : this.ctx.eventName
    let base = this.ctx.since
    if (!isSafeRef(head)) {
      this.warnings.push(`${what}: the event's sha \`${head}\` is not a commit sha`)
      return
    }
    if (base === undefined) {
      if (!(await this.hasHistory())) {
        this.warnings.push(
          `${what}: found no pull requests, because there is no \`since\` and the checkout ` +
            `has no history to find the previous tag in: ${FIX_HISTORY}`
        )
        return
      }
      const previous = await git(this.ctx.workspace, [
        'describe',
        '--tags',
        '--abbrev=0',
        `${head}^`
      ])
      base = previous.ok ? previous.stdout.trim() : undefined
      if (!base || !isSafeRef(base)) {
        this.warnings.push(
          `${what}: found no pull requests, because no tag comes before ${short(head)} in the ` +
            'history: set `since` to the ref or sha to start from'
        )
        return
      }
    }
    const range = await this.readRange(base, head)
    if ('warning' in range) this.warnings.push(`${what}: ${range.warning}`)
    else await this.fromCommits(what, range)
  }

  /** `base..head` with git when the checkout has both commits, else with the compare endpoint. */
  private async readRange(base: string, head: string): Promise<Range> {
    const label = `${short(base)}..${short(head)}`
    if (!isSafeRef(base) || !isSafeRef(head)) {
      return { warning: `\`${base}..${head}\` is not a range of refs or shas` }
    }
    if (await this.hasHistory()) {
      const from = await this.resolve(base)
      const to = await this.resolve(head)
      if (from && to) {
        const log = await git(this.ctx.workspace, [
          'log',
          '--first-parent',
          '--format=%H%x1f%s%x1e',
          `${from}..${to}`
        ])
        if (log.ok) {
          const commits = log.stdout
            .split('\x1e')
            .map(entry => entry.trim())
            .filter(Boolean)
            .map(entry => {
              const [sha = '', message = ''] = entry.split('\x1f')
              return { sha, message }
            })
            .reverse()
          return { commits, how: `${label} read with git` }
        }
      }
    }
    try {
      const commits = await compareCommits(this.client, this.ctx.owner, this.ctx.repo, base, head)
      return { commits, how: `${label} read with the compare endpoint` }
    } catch (error) {
      if (error instanceof ServiceError && error.fatal) throw error
      return {
        warning:
          `could not read the commits ${base}...${head} with the compare endpoint ` +
          `(${firstLineOf(error)}): ${FIX_HISTORY}; \`since\` must name a ref or sha the ` +
          'repository has'
      }
    }
  }

  private async fromCommits(what: string, range: { commits: CommitSummary[]; how: string }) {
    const { owner, repo } = this.ctx
    const named = new Map<number, string>()
    const unnamed: CommitSummary[] = []
    for (const commit of range.commits) {
      const number = pullNumberFromSubject(commit.message)
      if (number === undefined) unnamed.push(commit)
      else if (!named.has(number)) named.set(number, commit.sha)
    }
    const fromSubjects: number[] = []
    const ignored: number[] = []
    for (const number of named.keys()) {
      const pull = await getPull(this.client, owner, repo, number)
      if (pull && isMerged(pull) && isOfRepository(pull, owner, repo)) {
        fromSubjects.push(number)
        this.pulls.set(number, pull)
      } else ignored.push(number)
    }
    fromSubjects.forEach(n => this.numbers.add(n))

    const fromLookup: number[] = []
    if (unnamed.length > MAX_COMMIT_LOOKUPS) {
      this.warnings.push(
        `${what}: ${unnamed.length} commits name no pull request; only the newest ` +
          `${MAX_COMMIT_LOOKUPS} were looked up: set \`since\` to a later ref to narrow the range`
      )
    }
    for (const commit of unnamed.slice(-MAX_COMMIT_LOOKUPS)) {
      let pulls
      try {
        pulls = await pullsForCommit(this.client, owner, repo, commit.sha)
      } catch (error) {
        if (error instanceof ServiceError && error.fatal) throw error
        this.warnings.push(
          `${what}: could not look up the pull request of commit ${short(commit.sha)}: ${firstLineOf(error)}`
        )
        continue
      }
      for (const pull of pulls) {
        if (!isMerged(pull) || !isOfRepository(pull, owner, repo)) continue
        if (this.numbers.has(pull.number)) continue
        this.numbers.add(pull.number)
        this.pulls.set(pull.number, pull)
        fromLookup.push(pull.number)
      }
    }

    const parts: string[] = []
    if (fromSubjects.length > 0) parts.push(`${list(fromSubjects)} from commit subjects`)
    if (fromLookup.length > 0)
      parts.push(`${list(fromLookup.sort((a, b) => a - b))} from the commit lookup`)
    const commits = `${range.commits.length} commit${range.commits.length === 1 ? '' : 's'}`
    this.notes.push(
      `${what}: ${parts.length > 0 ? parts.join(', ') : 'no merged pull requests'} ` +
        `(${commits}, ${range.how})`
    )
    if (ignored.length > 0) {
      this.notes.push(
        `${what}: left out ${list(ignored)}: named in commit subjects but not merged pull ` +
          `requests of ${owner}/${repo}`
      )
    }
  }

  private hasHistory(): Promise<boolean> {
    this.history ??= (async () => {
      if (!this.ctx.workspace) return false
      const shallow = await git(this.ctx.workspace, ['rev-parse', '--is-shallow-repository'])
      return shallow.ok && shallow.stdout.trim() === 'false'
    })()
    return this.history
  }

  private async resolve(ref: string): Promise<string | undefined> {
    const result = await git(this.ctx.workspace, [
      'rev-parse',
      '--verify',
      '--quiet',
      `${ref}^{commit}`
    ])
    const sha = result.stdout.trim()
    return result.ok && /^[0-9a-f]{40,64}$/.test(sha) ? sha : undefined
  }
}

async function git(
  cwd: string | undefined,
  args: string[]
): Promise<{ ok: boolean; stdout: string }> {
  if (!cwd) return { ok: false, stdout: '' }
  try {
    // Loaded when a range is read with git: most runs never start a process.
    const { getExecOutput } = await import('@actions/exec')
    const result = await getExecOutput('git', args, { cwd, silent: true, ignoreReturnCode: true })
    return { ok: result.exitCode === 0, stdout: result.stdout }
  } catch {
    // No git on the runner, or the folder is gone: the same as no history.
    return { ok: false, stdout: '' }
  }
}

function payloadCommits(value: unknown): CommitSummary[] {
  if (!Array.isArray(value)) return []
  return value.flatMap(item => {
    if (!isRecord(item)) return []
    const sha = stringOf(item['id']) ?? stringOf(item['sha'])
    const message = stringOf(item['message'])
    return sha && message !== undefined ? [{ sha, message }] : []
  })
}

function fullNameOf(base: unknown): string | undefined {
  if (!isRecord(base) || !isRecord(base['repo'])) return undefined
  return stringOf(base['repo']['full_name'])
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

function short(ref: string): string {
  return /^[0-9a-f]{40,64}$/.test(ref) ? ref.slice(0, 7) : ref
}
