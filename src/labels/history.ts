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
 * A merge owns what its second (or later) parent adds over its first, as `git rev-list P2 ^P1`
 * lists it: the main line is walked from its oldest commit, each merge's branch after everything
 * its first parent holds, so a branch cut from another branch (a hotfix from `develop` after the
 * release merged `develop`) owns only its own commits, not those the earlier merge brought. A
 * branch is walked by first parents until a commit outside the range or already walked, and its
 * own merges the same way, so every commit belongs to the nearest merge that brought it. Without
 * parents (an event's commit list) every commit counts as on the main line; so does one no line
 * reaches (a range the service listed in part).
 */
export function shapeOf(commits: CommitSummary[]): Shape {
  const mergeOf = new Map<string, string>()
  const lines = new Map<string, string[][]>()
  const newestFirst = [...commits].reverse()
  if (commits.some(c => c.parents === undefined)) {
    return { mainLine: newestFirst.map(c => c.sha), mergeOf, branchOf: new Map() }
  }
  const bySha = new Map(commits.map(c => [c.sha, c]))
  const parents = new Set(commits.flatMap(c => c.parents ?? []))
  const tip = newestFirst.find(c => !parents.has(c.sha))
  const seen = new Set<string>()
  /** From `start` by first parents to the first commit outside the range or walked; oldest first. */
  const lineFrom = (start: string | undefined): string[] => {
    const line: string[] = []
    for (let sha = start; sha !== undefined && bySha.has(sha) && !seen.has(sha);) {
      line.push(sha)
      sha = bySha.get(sha)?.parents?.[0]
    }
    return line.reverse()
  }
  const mainLine: string[] = []
  // Depth first, without recursion (a history may nest merges deeply): a frame is one line,
  // walked oldest first; a merge's other parents are walked, in their order, before the line
  // goes on, so each finds walked whatever the merge's first parent holds.
  type Frame = { start?: string; line?: string[]; next: number; merge?: string; own?: string[] }
  const frames: Frame[] = [{ start: tip?.sha, next: 0 }]
  while (frames.length > 0) {
    const frame = frames[frames.length - 1] as Frame
    frame.line ??= lineFrom(frame.start)
    const sha = frame.line[frame.next++]
    if (sha === undefined) {
      frames.pop()
      continue
    }
    if (seen.has(sha)) continue
    seen.add(sha)
    if (frame.merge === undefined) mainLine.push(sha)
    else {
      mergeOf.set(sha, frame.merge)
      if (!frame.own) {
        frame.own = []
        lines.set(frame.merge, [...(lines.get(frame.merge) ?? []), frame.own])
      }
      frame.own.push(sha)
    }
    const others = (bySha.get(sha)?.parents ?? []).slice(1)
    for (const other of others.reverse()) frames.push({ start: other, next: 0, merge: sha })
  }
  mainLine.reverse()
  for (const commit of newestFirst) if (!seen.has(commit.sha)) mainLine.push(commit.sha)
  const branchOf = new Map<string, string[]>()
  // Newest merges first, each line tip first, as the lookups go.
  for (const [merge, own] of [...lines].reverse()) {
    branchOf.set(
      merge,
      own.flatMap(line => [...line].reverse())
    )
  }
  return { mainLine, mergeOf, branchOf }
}
