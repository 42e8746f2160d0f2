/**
 * Whether pull requests were merged into a branch (it gathers others' work, as `develop` does),
 * asked only with evidence, never once a pull request: one list of the most recently updated
 * closed pull requests for the whole run (their base branches), then, when that page was full
 * and the branch is long-lived by its name (`develop`, `release-3.19`, `tokio-1.51.x`), one
 * question about that branch (`pulls?state=closed&base=`), once per branch. A feature branch
 * absent from the list gathers nothing. When the service cannot say, yes (as before).
 */
import type { ServiceClient } from '../client/client.js'
import { ServiceError } from '../client/errors.js'
import { hasClosedPullsInto, recentPullBases } from '../service/pulls.js'

/** A branch that lives on past one pull request: an integration or release line. */
export const LONG_LIVED =
  /^(?:develop|development|devel|dev|next|staging|stage|integration|trunk|main|master|stable|canary|beta|preview|nightly)$|^(?:release|releases|hotfix|hotfixes|support|maintenance|lts|stable)[-/_.]|^v?\d+(?:\.(?:\d+|x))+(?:\.x)?$|[-/_]v?\d+\.(?:\d+|x)(?:\.x)?$/i

/** Whether pull requests were merged into a branch (the service's answer). */
export type BranchQuestion = (branch: string) => Promise<boolean>

export function gatheringQuestion(
  client: ServiceClient,
  owner: string,
  repo: string
): BranchQuestion {
  let list: Promise<{ bases: Set<string>; complete: boolean } | undefined> | undefined
  const asked = new Map<string, Promise<boolean>>()
  return async branch => {
    list ??= cannotSay(recentPullBases(client, owner, repo))
    const recent = await list
    if (recent === undefined) return true
    if (recent.bases.has(branch)) return true
    if (recent.complete || !LONG_LIVED.test(branch)) return false
    let answer = asked.get(branch)
    if (!answer) {
      answer = cannotSay(hasClosedPullsInto(client, owner, repo, branch)).then(a => a ?? true)
      asked.set(branch, answer)
    }
    return answer
  }
}

/** The answer, or undefined when the service could not give it (stopping on what stops a run). */
async function cannotSay<T>(answer: Promise<T>): Promise<T | undefined> {
  try {
    return await answer
  } catch (error) {
    if (error instanceof ServiceError && (error.fatal || error.notTheApi)) throw error
    return undefined
  }
}
