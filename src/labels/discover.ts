// Over 300 lines: the one door of discovery for every event (push, pull request, range from a
// tag, a release, `since` or the previous deployment), and the one place `paths` filters what
// every way found; the range logic itself is range-pulls.ts's.
import type { ServiceClient } from '../client/client.js'
import type { CommitSummary, Pull } from '../service/pulls.js'
import { isSafeRef, PREVIOUS_DEPLOYMENT } from './inputs.js'
import type { Backport } from './backports.js'
import { pullsOfRange, short } from './range-pulls.js'
import { RangeReader, type Range } from './read-range.js'
import { list, RELEASE_SUBJECT } from './references.js'
import { previousRelease } from './previous-release.js'
import { compareVersions, parseVersion, type Version } from './versions.js'
import { previousDeployment } from './previous-deployment.js'
import { keepByPaths } from './changed-files.js'
import type { PathFilter } from './paths.js'

export { MAX_COMMIT_LOOKUPS } from './range-pulls.js'

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
  /** `GITHUB_RUN_ID`: this run's own deployment names it */
  runId?: string
  /** `since: previous-deployment`: the range starts at this environment's previous deployment */
  previousDeployment?: { environment: string }
  /** input `paths`: only pull requests that changed a file it takes in count */
  paths?: PathFilter
}

export interface Discovery {
  /** ascending, each once */
  numbers: number[]
  /** things the user should fix, each saying how */
  warnings: string[]
  /** what was found where, for the log */
  notes: string[]
  /** backports in the range and the originals labeled with them */
  backports?: Backport[]
}

/** Above either count, a range the action chose (no `since`) is unusually large: a warning. */
const LARGE_RANGE = { pulls: 200, commits: 1000 }

/** Events whose pull requests are the range from `since` (else the previous tag) to the sha. */
const RANGE_EVENTS = new Set(['release', 'workflow_dispatch', 'deployment', 'deployment_status'])
const NULL_SHA = /^0+$/

/** The pull requests `pull-requests: auto` means for this event (see the contract). */
export async function discoverPullRequests(
  client: ServiceClient,
  ctx: DiscoveryContext,
  /** Filled with the pull requests read along the way, so later steps need not read them again. */
  read: Map<number, Pull> = new Map()
): Promise<Discovery> {
  const found = new Discoverer(client, ctx, read)
  await found.run()
  const numbers = [...found.numbers].sort((a, b) => a - b)
  if (ctx.paths === undefined)
    return {
      numbers,
      warnings: found.warnings,
      notes: found.notes,
      ...backportsOf(found.backports, numbers)
    }
  // `paths`: the one place every way of finding them passes, after they are found.
  const kept = await keepByPaths(
    {
      client,
      owner: ctx.owner,
      repo: ctx.repo,
      filter: ctx.paths,
      commitsOf: found.commitsOf,
      ...((await found.hasHistory()) && ctx.workspace ? { workspace: ctx.workspace } : {}),
      ...(found.event ? { event: found.event } : {})
    },
    numbers
  )
  return {
    numbers: kept.numbers,
    warnings: [...found.warnings, ...kept.warnings],
    notes: [...found.notes, ...kept.notes],
    ...backportsOf(found.backports, kept.numbers)
  }
}

/** The backports whose backport and original both still count (`paths` may leave either out). */
function backportsOf(backports: Backport[], numbers: number[]): { backports?: Backport[] } {
  const kept = new Set(numbers)
  const both = backports.filter(b => kept.has(b.number) && kept.has(b.of))
  return both.length > 0 ? { backports: both } : {}
}

class Discoverer {
  readonly numbers = new Set<number>()
  readonly warnings: string[] = []
  readonly notes: string[] = []
  /** the range's commits of each pull request found, for `paths` */
  readonly commitsOf = new Map<number, Set<string>>()
  /** the event's own pull request, for `paths` */
  event?: { number: number; base?: string; head?: string }
  readonly backports: Backport[] = []
  private readonly payload: Record<string, unknown>
  private readonly range: RangeReader

  constructor(
    private readonly client: ServiceClient,
    private readonly ctx: DiscoveryContext,
    private readonly pulls: Map<number, Pull>
  ) {
    this.payload = isRecord(ctx.payload) ? ctx.payload : {}
    this.range = new RangeReader(client, ctx.owner, ctx.repo, ctx.workspace)
  }

  hasHistory(): Promise<boolean> {
    return this.range.hasHistory()
  }

  async run(): Promise<void> {
    const { eventName, ref } = this.ctx
    // `since: previous-deployment` asks for a range as a ref in `since` does
    const since = this.ctx.since ?? (this.ctx.previousDeployment ? PREVIOUS_DEPLOYMENT : undefined)
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
    const sha = (side: unknown) => (isRecord(side) ? stringOf(side['sha']) : undefined)
    const base = isRecord(pull) ? sha(pull['base']) : undefined
    const head = isRecord(pull) ? sha(pull['head']) : undefined
    this.event = { number, ...(base ? { base } : {}), ...(head ? { head } : {}) }
  }

  private async fromPush(): Promise<void> {
    const before = stringOf(this.payload['before'])
    const after = stringOf(this.payload['after']) ?? this.ctx.sha
    const pushed = payloadCommits(this.payload['commits'])
    let range: Range
    if (before === undefined || NULL_SHA.test(before)) {
      range = { commits: pushed, how: 'the commits of the event (a new branch)', warnings: [] }
    } else {
      range = await this.range.read(before, after)
      if ('warning' in range && pushed.length > 0) {
        this.notes.push(`push: ${range.warning}; using the commits the event lists instead`)
        range = { commits: pushed, how: 'the commits of the event', warnings: [] }
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
    const tag = this.ctx.ref.startsWith('refs/tags/')
      ? this.ctx.ref.slice('refs/tags/'.length)
      : undefined
    const what = tag !== undefined ? `tag ${tag}` : this.ctx.eventName
    if (!isSafeRef(head)) {
      this.warnings.push(`${what}: the event's sha \`${head}\` is not a commit sha`)
      return
    }
    let base = this.ctx.since
    if (base === undefined && this.ctx.previousDeployment)
      return this.fromPreviousDeployment(what, head, this.ctx.previousDeployment.environment)
    let passedOver: string[] = []
    if (base === undefined) {
      const previous = await previousRelease(this.range, what, head, tag)
      this.notes.push(...previous.notes)
      this.warnings.push(...previous.warnings)
      if (previous.base === undefined) return
      base = previous.base
      passedOver = previous.passedOver ?? []
    }
    const range = await this.range.read(base, head)
    if ('warning' in range) {
      this.warnings.push(`${what}: ${range.warning}`)
      return
    }
    const chosen = this.ctx.since === undefined ? { base, tag, passedOver } : undefined
    await this.fromCommits(what, range, chosen)
    if (range.commits.length === 0 && this.ctx.since === undefined) {
      this.warnings.push(
        `${what}: found no pull requests, because the range from the previous release ${base} ` +
          `to ${short(head)} holds no commit (${base} already holds it): if the range should ` +
          'start elsewhere, set `since` to the ref or sha to start from'
      )
    }
  }

  /** The range from the environment's previous successful deployment (previous-deployment.ts). */
  private async fromPreviousDeployment(what: string, head: string, environment: string) {
    const { owner, repo, runId } = this.ctx
    const deployment = this.payload['deployment']
    const eventDeploymentId = isRecord(deployment) ? deployment['id'] : undefined
    const previous = await previousDeployment(this.client, owner, repo, what, {
      environment,
      ...(runId !== undefined ? { runId } : {}),
      ...(typeof eventDeploymentId === 'number' ? { eventDeploymentId } : {})
    })
    this.notes.push(...previous.notes)
    this.warnings.push(...previous.warnings)
    if (previous.base === undefined) return
    const range = await this.range.read(previous.base, head)
    if ('warning' in range) return void this.warnings.push(`${what}: ${range.warning}`)
    await this.fromCommits(what, range)
    if (range.commits.length === 0)
      this.warnings.push(
        `${what}: found no pull requests, because the range from environment \`${environment}\`'s ` +
          `previous deployment ${short(previous.base)} to ${short(head)} holds no commit (the ` +
          'same commit, or an older one: a rollback): if the range should start elsewhere, set ' +
          '`since` to the ref or sha to start from'
      )
  }

  private async fromCommits(
    what: string,
    range: { commits: CommitSummary[]; how: string; warnings: string[] },
    /** the start of the range when the action chose it (no `since`), and the head's tag */
    chosen?: { base: string; tag: string | undefined; passedOver: string[] }
  ) {
    const { owner, repo } = this.ctx
    range.warnings.forEach(warning => this.warnings.push(`${what}: ${warning}`))
    const found = await pullsOfRange(
      {
        client: this.client,
        owner,
        repo,
        what,
        pulls: this.pulls,
        owned: (sha, n) => this.commitsOf.set(n, (this.commitsOf.get(n) ?? new Set()).add(sha))
      },
      range.commits
    )
    const { fromSubjects, fromLookup } = found
    ;[...fromSubjects, ...fromLookup, ...found.originals].forEach(n => this.numbers.add(n))
    this.backports.push(...found.backports)
    const parts: string[] = []
    if (fromSubjects.length > 0) parts.push(`${list(fromSubjects)} from commit subjects`)
    if (fromLookup.length > 0)
      parts.push(`${list([...fromLookup].sort((a, b) => a - b))} from the commit lookup`)
    const commits = `${range.commits.length} commit${range.commits.length === 1 ? '' : 's'}`
    this.notes.push(
      `${what}: ${parts.length > 0 ? parts.join(', ') : 'no merged pull requests'} ` +
        `(${commits}, ${range.how})`
    )
    this.notes.push(...found.notes)
    this.warnings.push(...found.warnings)
    const pulls = fromSubjects.length + fromLookup.length
    // A large range alone is a busy project's ordinary release: it warns only with evidence that
    // the start is wrong (a version the rule passed over, another release inside the range).
    const evidence =
      chosen !== undefined &&
      (pulls > LARGE_RANGE.pulls || range.commits.length > LARGE_RANGE.commits)
        ? [
            ...chosen.passedOver.map(t => `tag ${t} was passed over as no version`),
            ...releasesInside(range.commits, [chosen.tag, chosen.base]).map(
              r => `it holds the release commit of ${r}`
            )
          ]
        : []
    if (chosen !== undefined && evidence.length > 0) {
      this.warnings.push(
        `${what}: the range from ${chosen.base} holds ${pulls} pull request${pulls === 1 ? '' : 's'} ` +
          `and ${commits}, more than one release usually ships, and ${evidence.slice(0, 3).join(', ')}: ` +
          `if ${chosen.base} is not the previous release, set \`since\` to it`
      )
    }
  }
}

/** The versions whose release commits the range holds, other than those of `ends` (its two tags). */
function releasesInside(commits: CommitSummary[], ends: (string | undefined)[]): string[] {
  const norm = (v: string) => v.replace(/(?:\.0)+$/, '')
  const own = ends.flatMap(end => (end ? [norm(/\d+\.\d+(?:\.\d+)?/.exec(end)?.[0] ?? '')] : []))
  // only a version between the two ends is another release of the range: an older line's
  // release (1.4.7 merged forward into 2.x) is no evidence that the start is wrong
  const [high, low] = ends.map(end => (end ? parseVersion(end) : undefined))
  const between = (v: Version) =>
    (low === undefined || compareVersions(v, low) > 0) &&
    (high === undefined || compareVersions(v, high) < 0)
  const found = new Set<string>()
  for (const commit of commits) {
    const version = RELEASE_SUBJECT.exec((commit.message.split('\n')[0] ?? '').trim())?.[1]
    const parsed = version === undefined ? undefined : parseVersion(version)
    if (version && !own.includes(norm(version)) && (parsed === undefined || between(parsed)))
      found.add(version)
  }
  return [...found]
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
