/**
 * Release tags in version order: `v1.2.3`, `1.2.3`, `app-v1.2.3`, `v6.1`, `2022.06.22.1` (a
 * prefix, then two to four dot-separated numbers, pre-release and build parts allowed), ordered
 * as semver orders them, a missing number read as 0 (`v6.1` is 6.1.0; `2022.06.22.1` comes after
 * `2022.06.22`). The previous release of a tag is counted as release tools count it: a final
 * release starts at the highest final release below it, its release candidates skipped; a
 * pre-release at the highest tag below it. Only tags of the same prefix count, a `v` before the
 * numbers optional: projects that switch between `5.0.0-beta.2` and `v5.0.0-beta.3`
 * (expressjs/express) tag one line.
 */

export interface Version {
  /** the tag */
  name: string
  /** what comes before the numbers (`v`, `app-v`, or nothing); tags of one form share it */
  prefix: string
  /** the two to four numbers, as written (`v6.1` is `[6, 1]`) */
  core: number[]
  /** the pre-release identifiers (`beta.3` is `['beta', 3]`); empty for a final release */
  pre: (string | number)[]
}

// A prefix that does not end in a digit or a dot, two to four numbers, a pre-release (after a
// `-`, or straight after the numbers when it starts with a letter: `1.7rc1`, `2024.9.0b1`, as
// Python projects tag), build metadata.
const VERSION =
  /^((?:.*[^\d.])?)(\d+(?:\.\d+){1,3})(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)|([A-Za-z][0-9A-Za-z-]*(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/

/** The version a tag names, or undefined when it names none. */
export function parseVersion(name: string): Version | undefined {
  const match = VERSION.exec(name)
  if (!match) return undefined
  const core = (match[2] as string).split('.').map(Number)
  if (!core.every(Number.isSafeInteger)) return undefined
  const pre = (match[3] ?? match[4] ?? '')
    .split('.')
    .filter(part => part !== '')
    .map(part => (/^\d+$/.test(part) && Number.isSafeInteger(Number(part)) ? Number(part) : part))
  return { name, prefix: match[1] ?? '', core, pre }
}

export function isFinal(version: Version): boolean {
  return version.pre.length === 0
}

/** Semver precedence: negative when `a` comes before `b`, 0 when they tie (build metadata). */
export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < Math.max(a.core.length, b.core.length); i++) {
    const d = (a.core[i] ?? 0) - (b.core[i] ?? 0)
    if (d !== 0) return d
  }
  // A pre-release comes before its release.
  if (a.pre.length === 0 || b.pre.length === 0) return b.pre.length - a.pre.length
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const order = compareIdentifiers(a.pre[i] as string | number, b.pre[i] as string | number)
    if (order !== 0) return order
  }
  return a.pre.length - b.pre.length
}

/**
 * Numeric identifiers come before alphanumeric ones, which compare in ASCII order, except that
 * one ending in a number compares that number as a number against another of the same letters:
 * `rc2` before `rc10`, as the projects that tag `rc1` ... `rc10` mean.
 */
function compareIdentifiers(x: string | number, y: string | number): number {
  if (x === y) return 0
  if (typeof x === 'number' && typeof y === 'number') return x - y
  if (typeof x === 'number') return -1
  if (typeof y === 'number') return 1
  const mx = /^(.*?)(\d+)$/.exec(x)
  const my = /^(.*?)(\d+)$/.exec(y)
  if (mx && my && mx[1] === my[1]) {
    const d = Number(mx[2]) - Number(my[2])
    if (d !== 0 && Number.isSafeInteger(d)) return d
  }
  return x < y ? -1 : 1
}

export interface Previous {
  /** the tag the range starts from */
  name: string
  /** the pre-releases of the form between it and the current tag, passed over (a final release) */
  skipped: string[]
  /** tags of the form that name no version and sort between the two, passed over */
  notVersions: string[]
}

/**
 * The previous release of `current` among `names`, of its form: for a final release the highest
 * final release below it (its release candidates, betas and alphas are skipped), for a
 * pre-release the highest version below it, pre-release or final. Among tags of one version
 * (`v6.1` and `v6.1.0`; `v1.2.3+a` and `v1.2.3+b`) the one that writes more numbers, then the
 * first by name. Undefined when none is below.
 */
export function previousRelease(current: Version, names: string[]): Previous | undefined {
  const final = isFinal(current)
  const form = formKey(current)
  const below: Version[] = []
  let best: Version | undefined
  for (const name of names) {
    const version = parseVersion(name)
    if (!version || formKey(version) !== form) continue
    if (compareVersions(version, current) >= 0) continue
    below.push(version)
    if (final && !isFinal(version)) continue
    if (!best || ahead(version, best)) best = version
  }
  if (!best) return undefined
  const from = best
  const skipped = below
    .filter(v => !isFinal(v) && compareVersions(v, from) > 0)
    .sort(compareVersions)
    .map(v => v.name)
  const notVersions = names
    .filter(name => !parseVersion(name) && sortsBetween(name, from, current))
    .sort(naturalOrder)
  return { name: from.name, skipped, notVersions }
}

/**
 * Whether `a` is to be taken before `b`: a higher version; of one version (`v6.1` and `v6.1.0`,
 * `v1.2.3+a` and `v1.2.3+b`) the one that writes more numbers, then the first by name.
 */
function ahead(a: Version, b: Version): boolean {
  const order = compareVersions(a, b)
  if (order !== 0) return order > 0
  if (a.core.length !== b.core.length) return a.core.length > b.core.length
  return a.name < b.name
}

/**
 * Whether a tag that names no version reads as one of the form between `low` and `high`: it
 * starts with the form's prefix and a digit (`v6.1.x`, `v6.1b`, `v6.1.0.0.1`), and its rest
 * sorts between theirs in natural order (numbers as numbers).
 */
function sortsBetween(name: string, low: Version, high: Version): boolean {
  const match = /^(.*?)(\d.*)$/.exec(name)
  if (!match || (match[1] as string).replace(/[vV]$/, '') !== formKey(high)) return false
  const rest = match[2] as string
  const numbers = (v: Version) => v.name.slice(v.prefix.length)
  return naturalOrder(numbers(low), rest) < 0 && naturalOrder(rest, numbers(high)) < 0
}

function naturalOrder(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true })
}

/** The prefix without a last `v` (`app-v` and `app-` are one form, so are `v` and nothing). */
function formKey(version: Version): string {
  return version.prefix.replace(/[vV]$/, '')
}

/** How a form reads in the log: `v1.2.3` for the prefix `v`. */
export function formOf(version: Version): string {
  return `${version.prefix}1.2.3`
}
