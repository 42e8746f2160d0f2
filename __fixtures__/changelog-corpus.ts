/**
 * The changelog corpus's explanation of extras (__tests__/reliability/changelog-corpus.test.ts):
 * a pull request labeled for a version whose changelog does not list it is right to label when
 * the version's range accounts for it, for one of these reasons. A number the range does not
 * account for gets none: the test fails on it.
 */
import { numberOf } from './release-corpus.js'

/** Why a labeled pull request the changelog does not list is right to label. */
export const REASONS = {
  'backport-pull': 'the backport, cherry-pick or forward-merge pull request of a listed original',
  'original-unlisted': 'the original of a backport in the range, which the changelog omits',
  release: "the release's own pull request (version bump, changelog)",
  dependency: 'a dependency update (changelogs omit them)',
  internal: 'CI, tests, docs or tooling (changelogs omit internal changes)',
  unlisted: 'named by a subject of the range (it shipped) but not in the changelog',
  lookup: "found by the commit lookup from a pull request ref of the range's commits"
} as const
export type Reason = keyof typeof REASONS

const RELEASE =
  /^(?:\[[^\]]*\]\s*)*(?:release\b|bump version|chore: prepare|chore\([^)]*\): release|prepare (?:for )?(?:the )?release)/i
const DEPENDENCY =
  /^(?:\[[^\]]*\]\s*)*(?:bump |build\(deps|chore\(deps|fix\(deps|deps\b|\[pre-commit\.ci\]|update (?:dependency|module|\S+ to v?\d)|chore\(deps-dev)/i
const INTERNAL =
  /^(?:\[[^\]]*\]\s*)*(?:(?:ci|test|tests|docs?|chore|build|refactor|style|perf|bench|tooling)\b[(:!]|.*\b(?:CI|tests?|benchmarks?|workflows?|lint|linters?|typos?|docs?|documentation|changelog|readme|codecov|coverage|dependabot|pre-commit|mypy)\b)/i

/** Original numbers a backport's subject names: `[PR #O/… backport]`, `(cherry-pick #O …)`, `(#O) (#N)`. */
export function originalsNamed(subject: string): number[] {
  const found = [
    ...subject.matchAll(/\[PR #(\d+)\/[0-9a-f]+ backport\]/g),
    ...subject.matchAll(/\(cherry[- ]pick #(\d+)[^)]*\)/gi),
    ...subject.matchAll(/\(#(\d+)\)(?=\s*\(#\d+\)\s*$)/g)
  ]
  return found.map(m => Number(m[1]))
}

const titleOf = (subject: string) =>
  subject
    .replace(/^\[PR #\d+\/[0-9a-f]+ backport\]\[[^\]]+\]\s*/, '')
    .replace(/^\[[^\]]+\]\s*/, '')
    .replace(/(?:\s*\((?:#\d+|cherry[- ]pick #\d+[^)]*)\))+\s*$/i, '')
    .trim()
    .toLowerCase()

/**
 * The reason an extra is right to label, from the range's subjects and the lookup's answers;
 * undefined when nothing in the range accounts for it.
 */
export function classify(
  n: number,
  range: { subject: string; lookup: number[] }[],
  listed: Set<number>,
  titles: Record<string, string>
): Reason | undefined {
  const naming = range.filter(c => numberOf(c.subject) === n)
  const listedTitles = new Set([...listed].flatMap(l => (titles[l] ? [titleOf(titles[l])] : [])))
  for (const { subject } of naming) {
    if (originalsNamed(subject).some(o => listed.has(o))) return 'backport-pull'
    if (/^Merge '[^']+' into '[^']+'/.test(subject)) return 'backport-pull'
    if (listedTitles.has(titleOf(subject))) return 'backport-pull'
  }
  const subjects = naming.map(c => c.subject)
  if (subjects.some(s => RELEASE.test(s))) return 'release'
  if (subjects.some(s => DEPENDENCY.test(s))) return 'dependency'
  if (subjects.some(s => INTERNAL.test(titleOf(s)))) return 'internal'
  if (subjects.length > 0) return 'unlisted'
  if (range.some(c => originalsNamed(c.subject).includes(n))) return 'original-unlisted'
  // a numberless pick of n in the range (a release pull request of picks onto a release line,
  // for several crates at once: n is in another crate's changelog)
  const title = titles[n] === undefined ? undefined : titleOf(titles[n])
  if (title && range.some(c => numberOf(c.subject) === undefined && titleOf(c.subject) === title))
    return 'original-unlisted'
  if (range.some(c => c.lookup.includes(n))) return 'lookup'
  return undefined
}
