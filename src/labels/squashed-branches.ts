/**
 * A pull request squash-merged from a branch that other pull requests were merged into (a
 * release of `develop`, squash-merged into `main`): its one commit in the range hides theirs.
 * Either its message shows them (GitHub's default squash message lists the branch's commits:
 * `* Add search (#11)`), or, when the message is the title alone, the service says pull requests
 * were merged into its head branch (the git-flow question, asked once per branch, and only of a
 * pull request of more than one commit from a branch of this repository that is no bot's). Then
 * its commits are read (`pulls/{n}/commits`, every page, once per pull request) and joined to
 * the range as the branch that commit merged. So are those of a pull request that merges one
 * release line into another (`Merge 'tokio-1.51.4' into 'tokio-1.52.x' (#8288)`), asked nothing. From there they count as a merged branch's
 * commits do (see range-pulls.ts), on either path, since both read the same list.
 */
import type { ServiceClient } from '../client/client.js'
import { ServiceError } from '../client/errors.js'
import {
  isFromFork,
  listPullCommits,
  MAX_PULL_COMMITS,
  type CommitSummary,
  type Pull
} from '../service/pulls.js'
import { firstLineOf } from '../shared/result.js'
import type { BranchQuestion } from './gathering.js'
import { pullReferenceFromSubject, type SubjectReference } from './references.js'

export interface Squashed {
  /** the range with each such pull request's commits before its commit, which now merges them */
  commits: CommitSummary[]
  /** the pull requests whose commits were joined */
  joined: number[]
  warnings: string[]
}

/** The branches Dependabot and Renovate open pull requests from: no pull request goes into them. */
export const BOT_BRANCH = /^(dependabot|renovate)\//

interface Where {
  client: ServiceClient
  owner: string
  repo: string
  what: string
}

export async function joinSquashedBranches(
  { client, owner, repo, what }: Where,
  commits: CommitSummary[],
  refs: Map<string, SubjectReference>,
  merged: Map<number, Pull>,
  /** the pull requests whose commits were read already (a squash commit cherry-picked elsewhere) */
  read: Set<number>,
  gathers: BranchQuestion
): Promise<Squashed> {
  const result: Squashed = { commits: [], joined: [], warnings: [] }
  const inRange = new Set(commits.map(c => c.sha))
  for (const commit of commits) {
    const ref = refs.get(commit.sha)
    const pull = ref?.kind === 'squash' ? merged.get(ref.number) : undefined
    const squash = (commit.parents?.length ?? 1) <= 1
    if (
      !ref ||
      !pull ||
      !squash ||
      read.has(ref.number) ||
      isFromFork(pull, owner, repo) ||
      !(
        namesOthers(commit, ref) ||
        mergesALine(commit) ||
        (await fromGatheringBranch(pull, gathers))
      )
    ) {
      result.commits.push(commit)
      continue
    }
    read.add(ref.number)
    let carried: CommitSummary[]
    try {
      carried = await listPullCommits(client, owner, repo, ref.number)
    } catch (error) {
      if (error instanceof ServiceError && (error.fatal || error.notTheApi)) throw error
      result.warnings.push(
        `${what}: could not read the commits of #${ref.number}, squash-merged from ` +
          `${pull.head?.ref ?? 'its branch'}: ${firstLineOf(error)}; the pull requests merged ` +
          'into that branch are not labeled: list them in `pull-requests`'
      )
      result.commits.push(commit)
      continue
    }
    if (carried.length >= MAX_PULL_COMMITS) {
      result.warnings.push(
        `${what}: #${ref.number} lists ${carried.length} commits, the most the service lists ` +
          'for a pull request (its oldest): pull requests only its newer commits name are not labeled; ' +
          'list them in `pull-requests`'
      )
    }
    const fresh = carried.filter(c => !inRange.has(c.sha))
    fresh.forEach(c => inRange.add(c.sha))
    const tip = fresh.at(-1)
    if (!tip) {
      result.commits.push(commit)
      continue
    }
    result.joined.push(ref.number)
    result.commits.push(...fresh, {
      ...commit,
      ...(commit.parents ? { parents: [...commit.parents, tip.sha] } : {})
    })
  }
  return result
}

/**
 * A pull request that merges one branch or tag into another (`Merge 'tokio-1.51.4' into
 * 'tokio-1.52.x' (#8288)`, `Merge branch 'release-1.2' into main (#40)`): a release line merged
 * forward carries the pull requests of what it merges, as a release pull request does.
 */
export const LINE_MERGE =
  /^Merge (?:(?:remote-tracking )?branch(?:es)? |tags? )?['"`]?[\w./@+-]+['"`]? into ['"`]?[\w./@+-]+['"`]?(?:\s|$)/i

function mergesALine(commit: CommitSummary): boolean {
  return LINE_MERGE.test((commit.message.split('\n')[0] ?? '').trim())
}

/** Whether lines below the subject name another pull request (`* Add search (#11)`). */
function namesOthers(commit: CommitSummary, own: SubjectReference): boolean {
  return commit.message
    .split('\n')
    .slice(1)
    .some(line => {
      const other = pullReferenceFromSubject(line.replace(/^\s*[*-]\s+/, ''))
      return other !== undefined && other.number !== own.number
    })
}

/**
 * Whether the service says pull requests were merged into the branch this one was squash-merged
 * from. Not asked of a pull request of one commit (it carries at most that one), nor of a bot's
 * branch, nor of a branch merged into itself.
 */
async function fromGatheringBranch(pull: Pull, gathers: BranchQuestion): Promise<boolean> {
  const head = pull.head?.ref
  if (head === undefined || BOT_BRANCH.test(head) || head === pull.base?.ref) return false
  if (pull.commits !== undefined && pull.commits <= 1) return false
  return gathers(head)
}
