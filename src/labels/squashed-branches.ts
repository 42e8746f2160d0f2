/**
 * A pull request squash-merged from a branch that other pull requests were merged into (a
 * release of `develop`, squash-merged into `main`): its one commit in the range hides theirs.
 * Its message shows them: GitHub's default squash message lists the branch's commits
 * (`* Add search (#11)`), so a squash commit whose message names other pull requests below its
 * subject has its pull request's commits read (`pulls/{n}/commits`, every page) and joined to
 * the range as the branch that commit merged. From there they count as a merged branch's
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
import { firstLineOf } from '../result.js'
import { pullReferenceFromSubject, type SubjectReference } from './references.js'

export interface Squashed {
  /** the range with each such pull request's commits before its commit, which now merges them */
  commits: CommitSummary[]
  /** the pull requests whose commits were joined */
  joined: number[]
  warnings: string[]
}

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
  read: Set<number> = new Set()
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
      !namesOthers(commit, ref)
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
