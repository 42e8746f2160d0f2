// Over 300 lines: the signs, the -x lookups and the title search share one cap on reads and
// one set of pairs; apart, each would need them passed around.
/**
 * A backport ships its original: the pull request a backport copies onto a release line is
 * labeled with it. What names the original, in a backport's title, body or commit message:
 * a backport bot's `[PR #13222/8a3e backport][3.14] Title` (aiohttp's patchback), a cherry-pick
 * bot's `Title (cherry-pick #4321 for 3.2)`, `backport of #N` / `backport #N`, and
 * `git cherry-pick -x`'s `(cherry picked from commit <sha>)`, whose commit's pull request the
 * service's commit-to-pull-request lookup names. Weaker signs (a `(#N)` inside a backport's
 * subject, a `(#N)` commit on its branch) count only when N went into another branch than the
 * backport, and not into the one the backport came from (a release of `develop` is no backport).
 * Only merged pull requests of the repository, and at most {@link MAX_BACKPORT_READS} reads a run.
 */
import type { ServiceClient } from '../client/client.js'
import { ServiceError } from '../client/errors.js'
import {
  getPull,
  isMerged,
  isOfRepository,
  pullsForCommit,
  searchMergedPullsByTitle,
  type CommitSummary,
  type Pull,
  type SearchItem
} from '../service/pulls.js'
import { firstLineOf } from '../shared/result.js'
import { namedAndMore } from '../runner/markdown.js'
import { LONG_LIVED } from './gathering.js'
import { MAX_BACKPORT_READS, list, searchableTitle, withoutReverted } from './references.js'
import { BOT_BRANCH, LINE_MERGE } from './squashed-branches.js'

/** One backport and the original it ships. */
export interface Backport {
  number: number
  of: number
}

export interface BackportsFound {
  /** originals not in the range, to label as well, ascending */
  originals: number[]
  backports: Backport[]
  /** numberless commits of the range whose `cherry picked from` line named a pull request */
  attributed: Set<string>
  warnings: string[]
  notes: string[]
}

/** A pull request a backport names, and whether the sign is one only a backport gives. */
export interface OriginalSign {
  backport: number
  original: number
  /** a convention only backports follow; otherwise N must have gone into another branch */
  explicit: boolean
}

interface Where {
  client: ServiceClient
  owner: string
  repo: string
  what: string
  /** the pull requests read so far, by number; the originals read join it */
  pulls: Map<number, Pull>
}

const EXPLICIT = [
  // patchback (aiohttp): `[PR #13222/8a3e7b21 backport][3.14] Title (#13223)`
  /\[PR #(\d+)\/[0-9a-f]+ backport\]/gi,
  // a cherry-pick bot: `Title (cherry-pick #4321 for 3.2) (#4330)`
  /\(cherry-pick #(\d+) for [^)]*\)/gi,
  // Kubernetes' `Automated cherry pick of #12: Title`, prow's `This is an automated cherry-pick of #12`
  /\bcherry[- ]?pick\s+of\s+#(\d+)\b/gi,
  // `Backport of #12`, `backport #12`, `Backports #12`, mergify's `Title (backport #12)`
  /\bbackport(?:s|ed)?(?:\s+of)?\s+#(\d+)\b/gi
]
/** `git cherry-pick -x`'s line; Django's `Backport of 1a2b3c4 from main` (a commit, no number). */
const PICKED_FROM = /(?:\(cherry picked from commit|\bbackport of) ([0-9a-f]{7,64})(?![0-9a-z])/gi

/** The explicit signs in a text: the numbers it names as an original. */
export function originalsNamed(text: string | null | undefined): number[] {
  if (!text) return []
  const found = new Set<number>()
  for (const pattern of EXPLICIT) {
    for (const match of text.matchAll(pattern)) {
      const n = Number(match[1])
      if (Number.isSafeInteger(n) && n > 0) found.add(n)
    }
  }
  return [...found]
}

/** The commits a message says it was picked from (`git cherry-pick -x`). */
export function pickedFrom(message: string): string[] {
  return [...new Set([...message.matchAll(PICKED_FROM)].map(m => (m[1] as string).toLowerCase()))]
}

/** `(#N)` inside a subject that ends in another `(#M)`: `[3.x] Fix the cache (#9) (#12)` names 9. */
export function innerNumbers(subject: string): number[] {
  const numbers = [...subject.matchAll(/\(#(\d+)\)/g)].map(m => Number(m[1]))
  return numbers.slice(0, -1).filter(n => Number.isSafeInteger(n) && n > 0)
}

/**
 * Finds each counted pull request's original and, for a commit of the range that belongs to no
 * pull request, the pull request of the commit it was picked from.
 */
export async function findBackports(
  where: Where,
  commits: CommitSummary[],
  counted: Set<number>,
  /** the pull request a commit of the range belongs to, when one was found */
  belongsTo: (sha: string) => number | undefined,
  /** commits of the range that belong to no pull request (looked up, none found) */
  numberless: Set<string>,
  /** signs found in the range's shape (a `(#N)` on a backport's branch, a copy's lookup) */
  shapeSigns: OriginalSign[]
): Promise<BackportsFound> {
  const { client, owner, repo, what, pulls } = where
  const found: BackportsFound = {
    originals: [],
    backports: [],
    attributed: new Set(),
    warnings: [],
    notes: []
  }
  const signs: OriginalSign[] = [...shapeSigns]
  const picks: { sha: string; commit: string; backport: number | undefined }[] = []
  for (const number of counted) {
    const pull = pulls.get(number)
    for (const text of [pull?.title, pull?.body])
      for (const original of originalsNamed(withoutReverted(text)))
        signs.push({ backport: number, original, explicit: true })
  }
  for (const commit of commits) {
    const backport = belongsTo(commit.sha)
    const orphan = numberless.has(commit.sha)
    if (backport === undefined && !orphan) continue
    const message = withoutReverted(commit.message)
    if (backport !== undefined) {
      for (const original of originalsNamed(message))
        signs.push({ backport, original, explicit: true })
      const subject = message.split('\n')[0] ?? ''
      for (const original of innerNumbers(subject))
        signs.push({ backport, original, explicit: false })
    }
    // A pick whose subject names its pull request needs no lookup: the subject counted it.
    if (
      backport === undefined ||
      orphan ||
      !counted.has(backport) ||
      !namesItself(commit, backport)
    )
      for (const sha of pickedFrom(message)) picks.push({ sha, commit: commit.sha, backport })
  }

  let reads = 0
  const leftOut = new Set<string>()
  const read = async (number: number): Promise<Pull | undefined> => {
    const known = pulls.get(number)
    if (known) return known
    if (reads >= MAX_BACKPORT_READS) {
      leftOut.add(`#${number}`)
      return undefined
    }
    reads++
    const pull = await getPull(client, owner, repo, number)
    return pull && isMerged(pull) && isOfRepository(pull, owner, repo) ? pull : undefined
  }
  const pairs = new Map<string, Backport>()
  const add = (backport: number | undefined, original: Pull) => {
    if (!counted.has(original.number) && !found.originals.includes(original.number)) {
      found.originals.push(original.number)
      pulls.set(original.number, original)
    }
    if (backport !== undefined && backport !== original.number)
      pairs.set(`${backport}/${original.number}`, { number: backport, of: original.number })
  }
  const unreadable = (of: string, error: unknown) => {
    if (error instanceof ServiceError && (error.fatal || error.notTheApi)) throw error
    found.warnings.push(`${what}: could not read ${of}: ${firstLineOf(error)}`)
  }

  for (const sign of signs) {
    if (sign.original === sign.backport || pairs.has(`${sign.backport}/${sign.original}`)) continue
    let original: Pull | undefined
    try {
      original = await read(sign.original)
    } catch (error) {
      unreadable(`#${sign.original}, the original of backport #${sign.backport}`, error)
      continue
    }
    if (!original || !isMerged(original) || !isOfRepository(original, owner, repo)) continue
    if (!sign.explicit && !wentElsewhere(pulls.get(sign.backport), original)) continue
    if (sameBranch(pulls.get(sign.backport), original)) continue
    add(sign.backport, original)
  }
  for (const pick of picks) {
    if (reads >= MAX_BACKPORT_READS) {
      leftOut.add(pick.sha.slice(0, 7))
      continue
    }
    reads++
    let answers: Pull[]
    try {
      answers = await pullsForCommit(client, owner, repo, pick.sha)
    } catch (error) {
      unreadable(`the pull request of commit ${pick.sha.slice(0, 7)}`, error)
      continue
    }
    const original = answers.find(
      p => isMerged(p) && isOfRepository(p, owner, repo) && p.number !== pick.backport
    )
    if (!original) continue
    if (pick.backport !== undefined && sameBranch(pulls.get(pick.backport), original)) continue
    add(pick.backport, original)
    if (pick.backport === undefined) {
      found.attributed.add(pick.commit)
      found.notes.push(
        `${what}: commit ${pick.commit.slice(0, 7)} was picked from ${pick.sha.slice(0, 7)}, ` +
          `of #${original.number}: #${original.number} counts`
      )
    }
  }
  // Last, by title, for what no sign named (an explicit sign the budget left unread included):
  // a commit of no pull request (a hand-picked commit), a backport onto a release line titled
  // as one (`[3.14] Title`), a pick whose subject carries another pull request's number or came
  // in a release pull request: the merged pull request of the same title, itself no backport,
  // that went into another branch (`Title` of `[3.14] Title`).
  const signed = new Set([
    ...signs.filter(g => g.explicit).map(g => g.backport),
    ...[...pairs.values()].map(p => p.number)
  ])
  const titles = new Map<string, { backport?: number; commit?: string }>()
  const wish = (title: string, want: { backport?: number; commit?: string }) => {
    if (searchableTitle(title) && !titles.has(title)) titles.set(title, want)
  }
  for (const commit of commits) {
    if (numberless.has(commit.sha) && !found.attributed.has(commit.sha))
      wish(plainTitle(commit.message.split('\n')[0] ?? ''), { commit: commit.sha })
  }
  for (const number of counted) {
    const pull = pulls.get(number)
    if (pull?.title && !signed.has(number) && titledAsBackport(pull))
      wish(plainTitle(pull.title), { backport: number })
  }
  for (const commit of commits) {
    const backport = belongsTo(commit.sha)
    const pull = backport === undefined ? undefined : pulls.get(backport)
    if (!pull?.title || signed.has(pull.number) || !ontoLine(pull)) continue
    if ((commit.parents?.length ?? 1) > 1 || BOT_BRANCH.test(pull.head?.ref ?? '')) continue
    const first = commit.message.split('\n')[0] ?? ''
    if (!/\(#\d+\)\s*$/.test(first) && !/\b(?:release|prepare)/i.test(pull.title)) continue
    const subject = plainTitle(first)
    if (subject !== plainTitle(pull.title)) wish(subject, { backport: pull.number })
  }
  for (const [title, want] of titles) {
    if (reads >= MAX_BACKPORT_READS) {
      leftOut.add(`"${title.slice(0, 40)}"`)
      continue
    }
    reads++
    let items: SearchItem[]
    try {
      items = await searchMergedPullsByTitle(client, owner, repo, title)
    } catch (error) {
      unreadable(`the pull requests titled "${title.slice(0, 40)}"`, error)
      continue
    }
    // One merged pull request of that title, or the title names none: two that share it (an old
    // `Fix the flaky test` and a new one) leave the commit to the warning rather than a guess.
    const alike = items.filter(
      i =>
        i.number !== want.backport &&
        Boolean(i.pull_request?.merged_at) &&
        plainTitle(i.title ?? '') === title &&
        !titledAsBackport({ number: i.number, title: i.title ?? '' })
    )
    const same = alike[0]
    if (alike.length > 1 && want.backport !== undefined) {
      found.notes.push(
        `${what}: #${want.backport} looks like a backport, but ${list(alike.map(i => i.number).sort((a, b) => a - b))} ` +
          'share its title: none is labeled as its original (name it: `backport of #N`)'
      )
    }
    if (!same || alike.length > 1) continue
    let original: Pull | undefined
    try {
      original = await read(same.number)
    } catch (error) {
      unreadable(`#${same.number}, titled "${title.slice(0, 40)}"`, error)
      continue
    }
    if (!original || !isMerged(original) || !isOfRepository(original, owner, repo)) continue
    if (want.backport !== undefined && !wentElsewhere(pulls.get(want.backport), original)) continue
    add(want.backport, original)
    if (want.commit !== undefined) {
      found.attributed.add(want.commit)
      found.notes.push(
        `${what}: commit ${want.commit.slice(0, 7)} has the title of #${original.number}: ` +
          `#${original.number} counts`
      )
    }
  }
  found.backports = [...pairs.values()].sort((a, b) => a.number - b.number || a.of - b.of)
  found.originals.sort((a, b) => a - b)
  if (found.backports.length > 0) {
    found.notes.push(
      `${what}: ${found.backports.map(b => `#${b.number} is a backport of #${b.of}`).join(', ')}` +
        (found.originals.length > 0 ? `; labeled with the originals ${list(found.originals)}` : '')
    )
  }
  if (leftOut.size > 0) {
    found.warnings.push(
      `${what}: backports name more originals than the ${MAX_BACKPORT_READS} read in one run: ` +
        `left out ${namedAndMore([...leftOut], 10)}; list their pull requests in \`pull-requests\` ` +
        'in a step of their own'
    )
  }
  return found
}

/**
 * One warning for every commit of the range no pull request was found for: those looked up and
 * found in none (a commit picked by hand, pushed without a pull request), and those the lookups
 * never reached. Never silent: it names a few and says how to attribute them.
 */
export function unattributed(
  what: string,
  orphans: string[],
  left: string[],
  main: Set<string>,
  /** why some were not looked up */
  why: string
): string {
  const parts: string[] = []
  if (orphans.length > 0) {
    parts.push(
      `${orphans.length} commit${orphans.length === 1 ? '' : 's'} of the range belong` +
        `${orphans.length === 1 ? 's' : ''} to no pull request (looked up, found in none: ` +
        `${shas(orphans)})`
    )
  }
  if (left.length > 0) {
    const onMain = left.filter(sha => main.has(sha)).length
    parts.push(
      `${left.length} commit${left.length === 1 ? ' that names' : 's that name'} no pull request ` +
        `${left.length === 1 ? 'was' : 'were'} not looked up (${onMain} on the main line, ` +
        `${left.length - onMain} on merged branches: ${shas(left)}), because ${why}`
    )
  }
  return (
    `${what}: ${parts.join('; ')}. The pull requests that brought them, if any, are not ` +
    'labeled: pick commits with `git cherry-pick -x` (its "cherry picked from commit" line ' +
    'names the original, whose pull request is labeled), or list them in `pull-requests` ' +
    'in a step of their own.'
  )
}

/**
 * Whether a pull request that merged a branch holding another's `(#N)` is a backport of it: its
 * title or branch says so (`[3.14] Title`, `backport-123-to-3.x`, `cherry-pick-…`), or it went
 * into a release line.
 */
export function looksLikeBackport(pull: Pull): boolean {
  const head = pull.head?.ref ?? ''
  const base = pull.base?.ref ?? ''
  if (LINE_MERGE.test(pull.title ?? '')) return false
  return (
    /^\s*\[[^\]]+\]/.test(pull.title ?? '') ||
    /backport|cherry[-_ ]?pick/i.test(`${pull.title ?? ''} ${head}`) ||
    (LONG_LIVED.test(base) && /\d/.test(base))
  )
}

/**
 * A title as its original would carry it: without a leading `[3.14]`, a trailing `(#N)`, a
 * cherry-pick bot's `(cherry-pick #N for 3.2)`, in one case and spacing.
 */
export function plainTitle(title: string): string {
  return title
    .replace(/^\s*(?:\[[^\]]*\]\s*)+/, '')
    .replace(/(?:\s*\((?:#\d+|cherry-pick #\d+ for [^)]*|backport #\d+)\))+\s*$/i, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase()
}

/** A title a backport carries: `[3.14] Title`, `[PR #N/… backport]`, `… (cherry-pick #N for 3.2)`. */
function titledAsBackport(pull: { number: number; title?: string | null | undefined }): boolean {
  const title = pull.title ?? ''
  return /^\s*\[[^\]]*(?:\d|backport)[^\]]*\]/i.test(title) || originalsNamed(title).length > 0
}

/** A pull request onto a release line: its base is one (`3.14`, `tokio-1.52.x`) or its title says so. */
function ontoLine(pull: Pull): boolean {
  const base = pull.base?.ref ?? ''
  if (LINE_MERGE.test(pull.title ?? '')) return true
  return (
    (LONG_LIVED.test(base) && /\d/.test(base)) || /^\s*\[[^\]]*\d[^\]]*\]/.test(pull.title ?? '')
  )
}

/** Whether a commit's subject names the pull request it belongs to. */
function namesItself(commit: CommitSummary, number: number): boolean {
  const subject = commit.message.split('\n')[0] ?? ''
  return subject.includes(`#${number}`)
}

/**
 * A backport goes into another branch than its original did, and its original did not go into
 * the branch the backport came from (that is a release of `develop`, which carries it).
 */
function wentElsewhere(backport: Pull | undefined, original: Pull): boolean {
  const into = original.base?.ref
  const base = backport?.base?.ref
  if (into === undefined || base === undefined) return false
  return into !== base && into !== backport?.head?.ref
}

/**
 * An original merged into the very branch its "backport" went into: nothing copied, and it
 * shipped with that branch before (`Like backport #12 did` in a body on main).
 */
function sameBranch(backport: Pull | undefined, original: Pull): boolean {
  const into = original.base?.ref
  return into !== undefined && into === backport?.base?.ref
}

function shas(list: string[]): string {
  return namedAndMore(
    list.map(sha => sha.slice(0, 7)),
    10
  )
}
