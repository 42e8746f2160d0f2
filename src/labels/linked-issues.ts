import type { ServiceClient } from '../client/client.js'
import { getIssue, getPull, isMerged, labelsOf, type Pull } from '../service/pulls.js'
import type { Discovery } from './discover.js'
import { closingReferences, list, MAX_LINKED_ISSUES } from './references.js'
import { namedAndMore } from '../runner/markdown.js'

/**
 * The issues that the given pull requests close (`label-linked-issues`). Only merged pull
 * requests count (an open one's description is anyone's text until a reviewer merges it), and
 * at most MAX_LINKED_ISSUES.perPull issues are read for one pull request, MAX_LINKED_ISSUES.perRun
 * in all: past either, a warning names the pull request and what was left out. Numbers already
 * in `exclude` and references to pull requests or missing issues are left out.
 */
export async function discoverLinkedIssues(
  client: ServiceClient,
  owner: string,
  repo: string,
  pulls: number[],
  exclude: number[] = [],
  known: Map<number, Pull> = new Map(),
  /** Filled with the labels each linked issue carried when read, so labeling need not read them. */
  labels: Map<number, string[]> = new Map()
): Promise<Discovery> {
  const numbers = new Set<number>()
  const notes: string[] = []
  const warnings: string[] = []
  const skipped: string[] = []
  const unmerged: number[] = []
  /** per pull request, the references the run's cap left unread */
  const overRun: Array<{ pull: number; refs: number[] }> = []
  const seen = new Set(exclude)
  let reads = 0
  for (const number of pulls) {
    const pull = known.get(number) ?? (await getPull(client, owner, repo, number))
    if (!pull) continue // an issue given by number: it closes nothing
    if (!isMerged(pull)) {
      if (closingReferences(pull.body, owner, repo).length > 0) unmerged.push(number)
      continue
    }
    const refs = closingReferences(pull.body, owner, repo).filter(n => !seen.has(n))
    const read = refs.slice(0, MAX_LINKED_ISSUES.perPull)
    if (refs.length > read.length) {
      const left = refs.slice(read.length)
      warnings.push(
        `pull request #${number} names ${refs.length} issues to close; at most ` +
          `${MAX_LINKED_ISSUES.perPull} are read per pull request: left out ${left.length} (${few(left)})`
      )
    }
    const linked: number[] = []
    for (const [index, ref] of read.entries()) {
      if (reads >= MAX_LINKED_ISSUES.perRun) {
        overRun.push({ pull: number, refs: read.slice(index) })
        break
      }
      seen.add(ref)
      reads++
      const issue = await getIssue(client, owner, repo, ref)
      if (!issue) skipped.push(`#${ref} (named by #${number}) does not exist`)
      else if (issue.pull_request) skipped.push(`#${ref} (named by #${number}) is a pull request`)
      else {
        numbers.add(ref)
        linked.push(ref)
        const carried = labelsOf(issue)
        if (carried) labels.set(ref, carried)
      }
    }
    if (linked.length > 0) notes.push(`#${number} closes ${list(linked)}`)
  }
  if (unmerged.length > 0)
    notes.push(
      `linked issues: not read for ${list(unmerged)}, not merged (only a merge closes them)`
    )
  if (skipped.length > 0) notes.push(`linked issues left out: ${skipped.join('; ')}`)
  if (overRun.length > 0) {
    const count = overRun.reduce((sum, o) => sum + o.refs.length, 0)
    const each = overRun.map(o => `${few(o.refs)} of pull request #${o.pull}`)
    warnings.push(
      `at most ${MAX_LINKED_ISSUES.perRun} linked issues are read per run: left out ${count} ` +
        `(${namedAndMore(each, 10, '; ')})`
    )
  }
  return { numbers: [...numbers].sort((a, b) => a - b), warnings, notes }
}

/** `#1, #2, #3, #4, #5, ... and 1495 more`: a long list of numbers, short. */
function few(numbers: number[]): string {
  return numbers.length > 5
    ? namedAndMore(
        numbers.map(n => `#${n}`),
        5
      )
    : list(numbers)
}
