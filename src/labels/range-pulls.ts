// Over 300 lines: the subject pass, the gathering-branch question and the lookups share the
// range's shape and the pull requests read; splitting them would pass that state around.
/**
 * The merged pull requests of a range of commits, the same whichever way the range was read
 * (git or the compare endpoint): every commit's subject counts, then per-commit lookups go where
 * they can find a pull request not yet known.
 */
import type { ServiceClient } from '../client/client.js'
import { ServiceError } from '../client/errors.js'
import {
  getIssue,
  getPull,
  isFromFork,
  isMerged,
  isOfRepository,
  pullsForCommit,
  type CommitSummary,
  type Pull
} from '../service/pulls.js'
import { firstLineOf } from '../shared/result.js'
import { findBackports, looksLikeBackport, unattributed } from './backports.js'
import type { Backport, OriginalSign } from './backports.js'
import { gatheringQuestion } from './gathering.js'
import { shapeOf } from './history.js'
import { list, pullReferenceFromSubject, RELEASE_SUBJECT } from './references.js'
import type { SubjectReference } from './references.js'
import { BOT_BRANCH, joinSquashedBranches } from './squashed-branches.js'

/**
 * The committer of what GitHub's merge button makes (`noreply@github.com`, `noreply@` the host
 * of a GitHub Enterprise Server): a commit of a branch it made was merged into that branch.
 */
const MERGE_BUTTON = /^noreply@/i

/** A `(#N)` commit on the main line committed this long after N merged is a copy of N's commit. */
const COPY_AFTER_MS = 60_000

/** Commit lookups one discovery makes at most; what is left is a warning that names it. */
export const MAX_COMMIT_LOOKUPS = 300

/** What the token needs to read pull requests, said where a read of them answers 403/404. */
export const PULL_READ_PERMISSION =
  'discovery needs `pull-requests: read` (add it under `permissions:`; `pull-requests: write` ' +
  'includes it)'

export interface RangePulls {
  fromSubjects: number[]
  fromLookup: number[]
  /** originals of backports in the range, not in it themselves: labeled with them */
  originals: number[]
  backports: Backport[]
  warnings: string[]
  notes: string[]
}

export interface RangeOptions {
  client: ServiceClient
  owner: string
  repo: string
  /** the event, for the start of each warning and note */
  what: string
  /** filled with the pull requests read, for later steps */
  pulls: Map<number, Pull>
}

/**
 * Subjects first: `Merge pull request #N` on any commit, and `Title (#N)` on the main line or
 * on a branch where N was merged (its base is the branch the merging pull request came from, or
 * either is unknown); each number read once, only merged pull requests of the repository count.
 * Then lookups: main-line commits that name none (newest first), then branch commits that no
 * pull request found so far accounts for. The pull request that merged a branch accounts for
 * its commits, unless other pull requests were merged into that branch (a release of
 * `develop`): then each of them stands alone.
 */
export async function pullsOfRange(
  options: RangeOptions,
  range: CommitSummary[]
): Promise<RangePulls> {
  let commits = range
  const { client, owner, repo, what } = options
  const result: RangePulls = {
    fromSubjects: [],
    fromLookup: [],
    originals: [],
    backports: [],
    warnings: [],
    notes: []
  }
  const refs = new Map<string, SubjectReference>()
  const merged = new Map<number, Pull>()
  const notMerged: number[] = []
  const unreadable: number[] = []
  const readSubjects = async (list: CommitSummary[]) => {
    for (const commit of list) {
      const ref = pullReferenceFromSubject(commit.message)
      if (ref) refs.set(commit.sha, ref)
    }
    for (const number of new Set([...refs.values()].map(r => r.number))) {
      if (merged.has(number) || notMerged.includes(number)) continue
      const pull = await readNamed(options, number, unreadable)
      if (pull && isMerged(pull) && isOfRepository(pull, owner, repo)) merged.set(number, pull)
      else notMerged.push(number)
    }
  }
  await readSubjects(commits)
  // A squash-merged release of `develop`: its pull request's commits join the range, and so
  // do those of a squash commit among them (a squash of a squash); each list is read once.
  const joined: number[] = []
  const read = new Set<number>()
  // Whether pull requests were merged into a branch: one list for the run, a question only of a
  // long-lived branch that list cannot settle (gathering.ts).
  const askBranch = gatheringQuestion(client, owner, repo)
  for (let more = true; more;) {
    const squashed = await joinSquashedBranches(options, commits, refs, merged, read, askBranch)
    result.warnings.push(...squashed.warnings)
    joined.push(...squashed.joined)
    more = squashed.joined.length > 0
    if (more) {
      commits = squashed.commits
      await readSubjects(commits)
    }
  }
  if (joined.length > 0) {
    result.notes.push(
      `${what}: the commits of ${list(joined)} (squash-merged from a branch other ` +
        'pull requests were merged into) read as part of the range'
    )
  }
  const shape = shapeOf(commits)
  const bySha = new Map(commits.map(c => [c.sha, c]))

  const counted = new Set<number>()
  const named = new Set<string>()
  const signs: OriginalSign[] = []
  const offBranch = new Map<number, string>()
  /** The pull request from a fork whose merge brought this commit, if any (through nested merges). */
  const forkOf = (sha: string): Pull | undefined => {
    for (let m = shape.mergeOf.get(sha); m !== undefined; m = shape.mergeOf.get(m)) {
      const by = merged.get(refs.get(m)?.number ?? 0)
      if (by && isFromFork(by, owner, repo)) return by
    }
    return undefined
  }
  /** The branches the merges above a commit went into, or undefined when one of them is unknown. */
  const basesAbove = (sha: string): Set<string> | undefined => {
    const bases = new Set<string>()
    for (let m = shape.mergeOf.get(sha); m !== undefined; m = shape.mergeOf.get(m)) {
      const by = merged.get(refs.get(m)?.number ?? 0)
      if (!by) continue
      if (by.base?.ref === undefined) return undefined
      bases.add(by.base.ref)
    }
    return bases
  }
  const forkNumbers = new Map<number, number>()
  for (const commit of commits) {
    const ref = refs.get(commit.sha)
    const pull = ref && merged.get(ref.number)
    if (!ref || !pull) continue
    // A subject on the branch of a fork's pull request numbers the fork's pull requests.
    const fork = forkOf(commit.sha)
    if (fork) {
      forkNumbers.set(ref.number, fork.number)
      continue
    }
    const merge = shape.mergeOf.get(commit.sha)
    const owner = merge === undefined ? undefined : merged.get(refs.get(merge)?.number ?? 0)
    const into = pull.base?.ref
    const branch = owner?.head?.ref
    // A `(#N)` on a branch whose pull request N went into a branch this one merges into, at any
    // level (`develop`, then `main`, where N's own commit is), quotes N, even when the merge
    // button made it (an upstream's squash commits merged into a fork number the upstream's pull
    // requests). N went into a third branch: the commit was taken from it (a hotfix cut from
    // `develop`, a fix cherry-picked from `dev` into a release branch), and N shipped.
    const above = basesAbove(commit.sha)
    if (
      ref.kind === 'squash' &&
      owner &&
      owner !== pull &&
      into &&
      branch &&
      into !== branch &&
      (above === undefined || above.has(into))
    ) {
      offBranch.set(
        ref.number,
        `#${owner.number} (${branch}), but #${ref.number} went into ${into}`
      )
      continue
    }
    counted.add(ref.number)
    named.add(commit.sha)
    // A `(#N)` commit on a backport's branch (merged with a merge commit) names its original.
    if (owner && owner !== pull && looksLikeBackport(owner))
      signs.push({ backport: owner.number, original: ref.number, explicit: false })
  }
  for (const number of counted) {
    offBranch.delete(number)
    forkNumbers.delete(number)
    options.pulls.set(number, merged.get(number) as Pull)
  }
  result.fromSubjects = [...counted]

  // The pull request that merged a branch: named by its merge commit, else found by a lookup.
  const foundFor = new Map<string, number>()
  const ownerOf = (merge: string): Pull | undefined => {
    const number = named.has(merge) ? refs.get(merge)?.number : foundFor.get(merge)
    return number === undefined ? undefined : options.pulls.get(number)
  }
  // A branch that gathers other pull requests (`develop`) is no one pull request's: its
  // subjects show it, or the service lists pull requests merged into it. That is asked only
  // when the branch's commits show another pull request: a subject naming another number, a
  // merge that brought commits, or a commit the merge button made (a rebase or squash merge).
  const showsAnother = (sha: string, own: number | undefined): boolean => {
    const ref = refs.get(sha)
    if (ref !== undefined && ref.number !== own) return true
    return shape.branchOf.has(sha) || MERGE_BUTTON.test(bySha.get(sha)?.committer ?? '')
  }
  const gathering = new Map<string, Promise<boolean>>()
  const isGathering = (merge: string): Promise<boolean> => {
    let answer = gathering.get(merge)
    if (!answer) {
      const owning = ownerOf(merge)
      const own = owning?.number
      const line = shape.branchOf.get(merge) ?? []
      // A fork's branch of the same name as one of ours (its `main`) is not ours, and a bot's
      // branch (Dependabot's commits are committed by GitHub, as a rebase merge is) is no one's.
      const head = owning?.head?.ref
      const branch =
        (owning && isFromFork(owning, options.owner, options.repo)) || BOT_BRANCH.test(head ?? '')
          ? undefined
          : head
      // A fork's or a bot's branch gathers no pull request of this repository: no read asks.
      answer = line.some(sha => named.has(sha) && refs.get(sha)?.number !== own)
        ? Promise.resolve(true)
        : branch === undefined || !line.some(sha => showsAnother(sha, own))
          ? Promise.resolve(false)
          : askBranch(branch)
      gathering.set(merge, answer)
    }
    return answer
  }
  const accountedFor = async (sha: string): Promise<boolean> => {
    const merge = shape.mergeOf.get(sha)
    if (merge === undefined) return false
    if (ownerOf(merge)) return !(await isGathering(merge))
    return accountedFor(merge)
  }

  // A `(#N)` on the main line committed after N merged is a copy of N's commit (a backport
  // rebase-merged onto a release line): the lookup names the backport that brought it.
  const copies = new Set(shape.mainLine.filter(sha => named.has(sha) && isCopy(sha)))
  function isCopy(sha: string): boolean {
    const ref = refs.get(sha)
    const mergedAt = Date.parse(merged.get(ref?.number ?? 0)?.merged_at ?? '')
    const at = Date.parse(bySha.get(sha)?.date ?? '')
    return ref?.kind === 'squash' && at - mergedAt > COPY_AFTER_MS
  }
  const belongs = new Map<string, number>()
  const numberless = new Set<string>()
  const queue = [
    ...copies,
    ...shape.mainLine.filter(sha => !named.has(sha)),
    ...[...shape.branchOf.values()].flat().filter(sha => !named.has(sha))
  ]
  let lookups = 0
  let stopped: string | undefined
  const left: string[] = []
  for (const sha of queue) {
    if (await accountedFor(sha)) continue
    if (lookups >= MAX_COMMIT_LOOKUPS || stopped) {
      left.push(sha)
      continue
    }
    lookups++
    let pulls: Pull[]
    try {
      pulls = await pullsForCommit(client, owner, repo, sha)
    } catch (error) {
      // Something other than the API answered: every later read would meet the same page.
      if (error instanceof ServiceError && (error.fatal || error.notTheApi)) throw error
      if (error instanceof ServiceError && (error.status === 403 || error.status === 404)) {
        stopped = `${error.method} ${error.path} answered ${error.status}: ${PULL_READ_PERMISSION}`
        left.push(sha)
      } else {
        result.warnings.push(
          `${what}: could not look up the pull request of commit ${short(sha)}: ${firstLineOf(error)}`
        )
      }
      continue
    }
    const ours = pulls.filter(p => isMerged(p) && isOfRepository(p, owner, repo))
    if (copies.has(sha)) {
      const original = refs.get(sha)?.number as number
      for (const pull of ours.filter(p => p.number !== original))
        signs.push({ backport: pull.number, original, explicit: true })
    } else if (ours.length === 0 && isChange(bySha.get(sha))) {
      numberless.add(sha)
    }
    if (ours[0] && !copies.has(sha)) belongs.set(sha, ours[0].number)
    for (const pull of ours) {
      if (!counted.has(pull.number)) options.pulls.set(pull.number, pull)
      // The pull request of a merge that names none accounts for the branch it merged. Only
      // the merge commit's own lookup says so: a commit on a branch merged by hand (an octopus,
      // `git flow release finish`) answers the pull request that brought that one commit.
      if (shape.branchOf.has(sha) && !ownerOf(sha)) foundFor.set(sha, pull.number)
      if (counted.has(pull.number)) continue
      counted.add(pull.number)
      result.fromLookup.push(pull.number)
    }
  }

  if (unreadable.length > 0) {
    result.warnings.push(
      `${what}: GET /repos/${owner}/${repo}/pulls/{n} answered 404 for ${list(unreadable)}, ` +
        `which the issues API lists as pull requests: the token cannot read pull requests, and ` +
        `${PULL_READ_PERMISSION}. They count when the issues API says they were merged.`
    )
  }
  const belongsTo = (sha: string): number | undefined => {
    if (named.has(sha)) return refs.get(sha)?.number
    const found = belongs.get(sha)
    if (found !== undefined) return found
    for (let m = shape.mergeOf.get(sha); m !== undefined; m = shape.mergeOf.get(m)) {
      const by = ownerOf(m)
      if (by) return by.number
    }
    return undefined
  }
  const backports = await findBackports(options, commits, counted, belongsTo, numberless, signs)
  result.originals = backports.originals
  result.backports = backports.backports
  result.warnings.push(...backports.warnings)
  result.notes.push(...backports.notes)
  const orphans = [...numberless].filter(sha => !backports.attributed.has(sha))
  if (left.length > 0 || orphans.length > 0) {
    const why = stopped
      ? `the commit lookup stopped: ${stopped}`
      : `one run looks up at most ${MAX_COMMIT_LOOKUPS} commits (main-line commits first, ` +
        'then commits of merged branches that no pull request found accounts for)'
    result.warnings.push(unattributed(what, orphans, left, new Set(shape.mainLine), why))
  }
  const leftOut = notMerged.filter(n => !counted.has(n))
  if (leftOut.length > 0) {
    result.notes.push(
      `${what}: left out ${list(leftOut)}: named in commit subjects but not merged pull ` +
        `requests of ${owner}/${repo}`
    )
  }
  for (const [number, by] of forkNumbers) {
    if (counted.has(number)) continue
    result.notes.push(
      `${what}: left out #${number}: a commit subject on the branch of #${by}, which comes from ` +
        "a fork: the number is one of the fork's pull requests"
    )
  }
  for (const [number, why] of offBranch) {
    if (counted.has(number)) continue
    result.notes.push(
      `${what}: left out #${number}: a commit subject on the branch of ${why}, not into that branch`
    )
  }
  return result
}

/**
 * The pull request a subject names. A 404 is either no pull request (an issue number) or a
 * token that cannot read pull requests: the issues API tells them apart, and its answer stands
 * in for the pull request (of this repository, merged when it says so).
 */
async function readNamed(
  options: RangeOptions,
  number: number,
  unreadable: number[]
): Promise<Pull | undefined> {
  const { client, owner, repo } = options
  const pull = await getPull(client, owner, repo, number)
  if (pull) return pull
  const issue = await getIssue(client, owner, repo, number)
  if (!issue?.pull_request) return undefined
  unreadable.push(number)
  return {
    number,
    state: issue.state,
    merged_at: issue.pull_request.merged_at ?? null,
    body: issue.body,
    ...(issue.labels ? { labels: issue.labels } : {})
  }
}

/** A commit that changes something a pull request could have brought: no merge, no release commit. */
function isChange(commit: CommitSummary | undefined): boolean {
  if (!commit || (commit.parents?.length ?? 1) > 1) return false
  return !RELEASE_SUBJECT.test((commit.message.split('\n')[0] ?? '').trim())
}

export function short(ref: string): string {
  return /^[0-9a-f]{40,64}$/.test(ref) ? ref.slice(0, 7) : ref
}
