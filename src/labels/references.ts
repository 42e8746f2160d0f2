/** What commit subjects and pull request bodies say about pull requests and issues. */

/**
 * `label-linked-issues`: at most this many issues are read (and labeled) for one pull request,
 * and for the whole run. A description is the pull request author's text: without a cap, one
 * listing thousands of `fixes #N` makes the step read and label each (docs/labels.md).
 */
export const MAX_LINKED_ISSUES = { perPull: 10, perRun: 50 } as const

/**
 * Originals of backports (and commits a `git cherry-pick -x` line names) read in one run, at
 * most: the same bound as linked issues, as a backport's text is its author's too.
 */
export const MAX_BACKPORT_READS = MAX_LINKED_ISSUES.perRun

/**
 * What a commit subject says about the pull request that made the commit: `merge` for GitHub's
 * merge-commit subject `Merge pull request #12 from owner/branch` (and bors's `Auto merge of #12 -
 * ...`, `Rollup merge of #12 - ...`, bors-ng's `Merge #12`), `squash` for `Title (#12)`
 * (squash merges; also any subject that ends so). Only the first line counts.
 */
export interface SubjectReference {
  number: number
  kind: 'merge' | 'squash'
}

export function pullReferenceFromSubject(message: string): SubjectReference | undefined {
  const subject = (message.split('\n')[0] ?? '').trim()
  // GitHub's merge button, and bors/homu's (`Auto merge of #20 - bors:rollup, r=...`, and the
  // pull requests of a rollup: `Rollup merge of #11 - user:branch, r=...`).
  // bors-ng's merge of one pull request: `Merge #953` (its body `953: Title r=… a=…`); a batch
  // (`Merge #944 #945`) names several, and the lookup tells them apart.
  const merge =
    /^(?:Merge pull request #(\d+) from \S|(?:Auto|Rollup) merge of #(\d+) - \S|Merge #(\d+)$)/.exec(
      subject
    )
  const match = merge ?? /\(#(\d+)\)$/.exec(subject)
  if (!match) return undefined
  const n = Number(match[1] ?? match[2] ?? match[3])
  if (!Number.isSafeInteger(n) || n <= 0) return undefined
  return { number: n, kind: merge ? 'merge' : 'squash' }
}

/** The number {@link pullReferenceFromSubject} finds, if any. */
export function pullNumberFromSubject(message: string): number | undefined {
  return pullReferenceFromSubject(message)?.number
}

/**
 * Issue numbers a pull request body closes: `close[sd]`, `fix(e[sd])`, `resolve[sd]` (any
 * case, an optional colon) before `#N` or `owner/repo#N`; references to other repositories are
 * left out. Ascending, each once. The white space around the colon is matched one way only
 * (`\s*:\s+` or `\s+`, never `\s*:?\s+`), so a keyword followed by a long run of spaces and no
 * `#` costs time in proportion to it, not to its square.
 */
export function closingReferences(
  body: string | null | undefined,
  owner: string,
  repo: string
): number[] {
  if (!body) return []
  const pattern =
    /(?<![\w/-])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)(?:\s*:\s+|\s+)(?:([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9._-]+))?#(\d+)(?![\w-])/gi
  const fullName = `${owner}/${repo}`.toLowerCase()
  const numbers = new Set<number>()
  for (const match of body.matchAll(pattern)) {
    const [, refOwner, refRepo, digits] = match
    if (refOwner !== undefined && `${refOwner}/${refRepo}`.toLowerCase() !== fullName) continue
    const n = Number(digits)
    if (Number.isSafeInteger(n) && n > 0) numbers.add(n)
  }
  return [...numbers].sort((a, b) => a - b)
}

/**
 * A release commit's subject (`Release 1.4.0`, `chore(release): 1.4.0`, `Bump version to v1.4.0`,
 * `v1.4.0`): a release's own commit, no change a pull request would have brought. The version is
 * the first group.
 */
export const RELEASE_SUBJECT =
  /^(?:(?:chore\(release\):?|release:?|releasing|bump(?: the)? version(?: to)?|prepare(?: for)?(?: release)?|version)\s+)?v?(\d+\.\d+(?:\.\d+)?)(?:[-+.][\w.+-]*)?\s*$/i

/** `#12`, `#12 and #14`, `#12, #14 and #15` */
export function list(numbers: number[]): string {
  const items = numbers.map(n => `#${n}`)
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

/** A title shorter than this is too plain to find its original by (`Fix typo`). */
const MIN_TITLE = 12

/** A bot's or a release's title: no backport to find an original for (`Bump pip from 26.1.1`). */
const BUMP = /^(?:(?:build|chore)(?:\([^)]*\))?:\s*)?(?:bump|release|prepare)\b/i

/** GitHub's web editor's messages (`Update README.md`): countless pull requests share them. */
const WEB_EDIT =
  /^(?:(?:update|create|delete)\s+\S+|rename\s+\S+\s+to\s+\S+|add files via upload)$/i

/** Whether a title (plain: one case, no `[3.14]`, no `(#N)`) may find an original by search. */
export function searchableTitle(title: string): boolean {
  return title.length >= MIN_TITLE && !BUMP.test(title) && !WEB_EDIT.test(title)
}

/**
 * A text without the quoted subject a revert takes out (`Revert "Fix (backport #12) (#15)"`):
 * what it names ships nothing. A sign after the quotes stays (mergify's backport of a revert,
 * `Revert "Fix" (backport #12)`).
 */
export function withoutReverted(text: string | null | undefined): string {
  return (text ?? '').replace(/^(\s*revert\s*)"[^\n]*"/i, '$1')
}
