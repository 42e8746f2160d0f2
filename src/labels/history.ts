/**
 * The shape of a range of commits, as git and the compare endpoint both describe it (each
 * commit with its parents): the head's first-parent line (the branch the range was read on) and,
 * for every other commit, the merge commit whose second (or later) parent brought it in.
 */
import type { CommitSummary } from '../service/pulls.js'

export interface Shape {
  /** the head's first-parent line, newest first */
  mainLine: string[]
  /** every commit off the main line: the merge commit whose branch brought it */
  mergeOf: Map<string, string>
  /** every merge commit that brought commits: their shas, line by line, each line tip first */
  branchOf: Map<string, string[]>
}

/**
 * Lines are walked from the head: its first parents first, then the branches its merges
 * brought, each by first parents until a commit outside the range or on a line already walked,
 * so every commit belongs to the nearest merge that brought it. Without parents (an event's
 * commit list) every commit counts as on the main line; so does one no line reaches (a range
 * the service listed in part).
 */
export function shapeOf(commits: CommitSummary[]): Shape {
  const mainLine: string[] = []
  const mergeOf = new Map<string, string>()
  const branchOf = new Map<string, string[]>()
  const newestFirst = [...commits].reverse()
  if (commits.some(c => c.parents === undefined)) {
    return { mainLine: newestFirst.map(c => c.sha), mergeOf, branchOf }
  }
  const bySha = new Map(commits.map(c => [c.sha, c]))
  const parents = new Set(commits.flatMap(c => c.parents ?? []))
  const tip = newestFirst.find(c => !parents.has(c.sha))
  const seen = new Set<string>()
  const queue: { start: string | undefined; merge?: string }[] = [{ start: tip?.sha }]
  for (let next = queue.shift(); next; next = queue.shift()) {
    const line: string[] = []
    for (let sha = next.start; sha !== undefined && bySha.has(sha) && !seen.has(sha);) {
      const commit = bySha.get(sha) as CommitSummary
      seen.add(sha)
      line.push(sha)
      for (const other of (commit.parents ?? []).slice(1)) queue.push({ start: other, merge: sha })
      sha = commit.parents?.[0]
    }
    if (next.merge === undefined) mainLine.push(...line)
    else if (line.length > 0) {
      const merge = next.merge
      branchOf.set(merge, [...(branchOf.get(merge) ?? []), ...line])
      line.forEach(sha => mergeOf.set(sha, merge))
    }
  }
  for (const commit of newestFirst) if (!seen.has(commit.sha)) mainLine.push(commit.sha)
  return { mainLine, mergeOf, branchOf }
}
