/**
 * Release tags in version order: `v1.2.3`, `1.2.3`, `app-v1.2.3` (a prefix, then a semantic
 * version, pre-release and build parts allowed), ordered as semver orders them. The previous
 * release of a tag is the tag of the highest version below it among tags of the same prefix,
 * a `v` before the numbers optional: projects that switch between `5.0.0-beta.2` and
 * `v5.0.0-beta.3` (expressjs/express) tag one line.
 */

export interface Version {
  /** the tag */
  name: string
  /** what comes before the numbers (`v`, `app-v`, or nothing); tags of one form share it */
  prefix: string
  core: [number, number, number]
  /** the pre-release identifiers (`beta.3` is `['beta', 3]`); empty for a release */
  pre: (string | number)[]
}

// A prefix that does not end in a digit or a dot, three numbers, a pre-release, build metadata.
const VERSION =
  /^((?:.*[^\d.])?)(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/

/** The version a tag names, or undefined when it names none. */
export function parseVersion(name: string): Version | undefined {
  const match = VERSION.exec(name)
  if (!match) return undefined
  const core = [match[2], match[3], match[4]].map(Number) as [number, number, number]
  if (!core.every(Number.isSafeInteger)) return undefined
  const pre = (match[5] ?? '')
    .split('.')
    .filter(part => part !== '')
    .map(part => (/^\d+$/.test(part) && Number.isSafeInteger(Number(part)) ? Number(part) : part))
  return { name, prefix: match[1] ?? '', core, pre }
}

/** Semver precedence: negative when `a` comes before `b`, 0 when they tie (build metadata). */
export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) {
    const d = (a.core[i] as number) - (b.core[i] as number)
    if (d !== 0) return d
  }
  // A pre-release comes before its release.
  if (a.pre.length === 0 || b.pre.length === 0) return b.pre.length - a.pre.length
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i] as string | number
    const y = b.pre[i] as string | number
    if (x === y) continue
    // Numeric identifiers come before alphanumeric ones; those compare in ASCII order.
    if (typeof x === 'number' && typeof y === 'number') return x - y
    if (typeof x === 'number') return -1
    if (typeof y === 'number') return 1
    return x < y ? -1 : 1
  }
  return a.pre.length - b.pre.length
}

/**
 * The tag of the highest version below `current` among `names` of its form; among tags of one
 * version (`v1.2.3+a`, `v1.2.3+b`) the first by name. Undefined when none is below it.
 */
export function previousRelease(current: Version, names: string[]): string | undefined {
  let best: Version | undefined
  for (const name of names) {
    const version = parseVersion(name)
    if (!version || formKey(version) !== formKey(current)) continue
    if (compareVersions(version, current) >= 0) continue
    const order = best ? compareVersions(version, best) : 1
    if (!best || order > 0 || (order === 0 && version.name < best.name)) best = version
  }
  return best?.name
}

/** The prefix without a last `v` (`app-v` and `app-` are one form, so are `v` and nothing). */
function formKey(version: Version): string {
  return version.prefix.replace(/[vV]$/, '')
}

/** How a form reads in the log: `v1.2.3` for the prefix `v`. */
export function formOf(version: Version): string {
  return `${version.prefix}1.2.3`
}
