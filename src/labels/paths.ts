/**
 * The `paths` input: globs as GitHub reads `on.push.paths` (its filter-pattern cheat sheet),
 * matched against the files a pull request changed. `*` is any run of characters but `/`, `**`
 * any run at all (`**\/` also none: `**\/README.md` matches `README.md`), `?` makes the character
 * before it optional and `+` repeats it, `[a-z0-9]` is one of the characters or ranges listed,
 * `\` takes the next character as it is, and `!` first negates: the patterns are read in order
 * and the last one that matches a file says whether it is in. Dots are ordinary characters (`*`
 * matches `.env`). A path is matched whole, from the repository's root, case included, by an
 * automaton that reads each character once (a pull request's file names are untrusted).
 */
import { hasControlCharacters } from '../shared/untrusted.js'

export interface PathPattern {
  /** as the user wrote it, `!` included */
  source: string
  negated: boolean
  /** whether a file's whole path, from the repository's root, matches */
  matches: (file: string) => boolean
}

/** The patterns in the order given; a file is in when the last pattern that matches it is not `!`. */
export interface PathFilter {
  patterns: PathPattern[]
}

/**
 * The patterns of the input, as `labels` is split: several lines are one pattern each (a comma
 * stays part of it), one line is comma-separated, `\,` is a comma of the pattern. Blank items
 * are dropped; the order is kept and nothing is merged (a later pattern may undo an earlier `!`).
 */
export function splitPatterns(value: string): string[] {
  const separator = /\n/.test(value.trim()) ? /\r?\n/ : /(?<!\\),/
  return value
    .split(separator)
    .map(item => item.replace(/\\,/g, ',').trim())
    .filter(Boolean)
}

/** Reads the input: the filter, or each bad pattern's problem (none when the value is empty). */
export function parsePaths(value: string): { filter?: PathFilter; problems: string[] } {
  const problems: string[] = []
  const patterns: PathPattern[] = []
  for (const source of splitPatterns(value)) {
    const compiled = compilePattern(source)
    if (typeof compiled === 'string') problems.push(`\`${shown(source)}\` ${compiled}`)
    else patterns.push(compiled)
  }
  if (problems.length === 0 && patterns.length > 0 && patterns.every(p => p.negated)) {
    problems.push(
      'holds only `!` patterns, which match nothing on their own: give the paths that count ' +
        'first (`web/**`), then the ones to leave out (`!web/docs/**`)'
    )
  }
  // `,` alone would turn the filter off: every service's pull requests would count.
  if (problems.length === 0 && patterns.length === 0 && value.trim() !== '')
    problems.push(
      'holds no pattern, only separators: give the paths that count (`web/**`), or leave `paths` out'
    )
  if (problems.length > 0 || patterns.length === 0) return { problems }
  return { filter: { patterns }, problems }
}

/** Whether `file` is in: the last pattern that matches it decides, and none matching is out. */
export function pathIncluded(filter: PathFilter, file: string): boolean {
  let included = false
  for (const pattern of filter.patterns) {
    if (pattern.negated === included && pattern.matches(file)) included = !pattern.negated
  }
  return included
}

/** The first of `files` the filter takes in, if any: a pull request that changed it counts. */
export function firstIncluded(filter: PathFilter, files: Iterable<string>): string | undefined {
  for (const file of files) if (pathIncluded(filter, file)) return file
  return undefined
}

/**
 * The patterns with no special character (`web`, `!web/docs`): each matches one file of that
 * path, not a folder's files. Said when a pull request changed a file inside such a path.
 */
export function plainPaths(filter: PathFilter): { source: string; path: string }[] {
  return filter.patterns.flatMap(p => {
    const path = p.negated ? p.source.slice(1) : p.source
    return /[*?+[\\]/.test(path) ? [] : [{ source: p.source, path }]
  })
}

/** How the filter reads in the log: `web/**, !web/docs/**`. */
export function describePaths(filter: PathFilter): string {
  return filter.patterns.map(p => p.source).join(', ')
}

/** A class's characters: letters and digits, and ranges within one of a-z, A-Z, 0-9. */
const RANGE_ENDS = [/[a-z]/, /[A-Z]/, /[0-9]/]

/** One pattern compiled, or what is wrong with it (the caller names the pattern). */
function compilePattern(given: string): PathPattern | string {
  if (hasControlCharacters(given)) return 'holds control characters'
  const yaml = yamlLeftIn(given)
  if (yaml) return yaml
  const negated = given.startsWith('!')
  const body = negated ? given.slice(1) : given
  if (body === '') return 'is `!` and nothing after it: name the paths to leave out'
  if (body.startsWith('/') || body.startsWith('./'))
    return (
      "starts with `/` or `./`: patterns start at the repository's root without it " +
      `(\`${body.replace(/^\.?\/+/, '')}\`)`
    )
  if (body.endsWith('/'))
    return `ends with \`/\`, which no file does: a folder's files are \`${body}**\``
  const steps: Step[] = []
  // Code points, as a file's name is read: `é?` makes the whole `é` optional.
  const chars = [...body]
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string
    const last = steps[steps.length - 1]
    if (c === '*') {
      if (chars[i + 1] === '*') {
        // `**/` also matches no folder at all (`**/README.md` matches `README.md`).
        if (chars[i + 2] === '/') {
          steps.push('folders')
          i += 2
        } else {
          steps.push({ test: () => true, repeat: '*' })
          i += 1
        }
      } else steps.push({ test: x => x !== '/', repeat: '*' })
    } else if (c === '?' || c === '+') {
      if (typeof last !== 'object' || last.repeat !== '')
        return (
          `has \`${c}\` after no character: \`${c}\` makes the character before it ` +
          `${c === '?' ? 'optional' : 'repeat'} (\`\\${c}\` is the character itself)`
        )
      last.repeat = c
    } else if (c === '[') {
      const end = chars.indexOf(']', i + 1)
      if (end < 0) return 'has a `[` without its `]` (`\\[` is the character itself)'
      const set = classOf(chars.slice(i + 1, end).join(''))
      if ('problem' in set) return set.problem
      // One character against one class: no backtracking.
      const one = new RegExp(`^${set.regex}$`, 'u')
      steps.push({ test: x => one.test(x), repeat: '' })
      i = end
    } else if (c === '\\') {
      const next = chars[i + 1]
      if (next === undefined)
        return 'ends with a lone `\\`: `\\` takes the character after it as it is'
      steps.push({ test: x => x === next, repeat: '' })
      i += 1
    } else steps.push({ test: x => x === c, repeat: '' })
  }
  return { source: given, negated, matches: automaton(steps) }
}

/**
 * What a pattern is read into: one character (of a test) with how often it repeats, or `**\/`
 * (`folders`: none, or any run that ends in `/`). `*` is any character but `/`, repeated.
 */
type Step = { test: (c: string) => boolean; repeat: '' | '?' | '+' | '*' } | 'folders'

/** A node of the automaton: one that reads a character its test takes, or one that reads none. */
interface Node {
  test?: (c: string) => boolean
  out: number[]
}

/**
 * The steps as an automaton run over all its states at once, not a regular expression: a file's
 * name comes from a pull request, and a backtracking match of `**\/src/**\/test/**` against a
 * long crafted name takes seconds; this reads each character once per state.
 */
function automaton(steps: Step[]): (file: string) => boolean {
  const nodes: Node[] = [{ out: [] }]
  const add = (node: Node): number => nodes.push(node) - 1
  let next = 0
  for (const step of [...steps].reverse()) {
    if (step === 'folders') {
      // none (straight on), or any run then `/`
      const slash = add({ test: c => c === '/', out: [next] })
      const loop = add({ out: [] })
      nodes[loop]?.out.push(add({ test: () => true, out: [loop] }), slash)
      next = add({ out: [loop, next] })
    } else if (step.repeat === '') next = add({ test: step.test, out: [next] })
    else if (step.repeat === '?') next = add({ out: [add({ test: step.test, out: [next] }), next] })
    else {
      const loop = add({ out: [] })
      const one = add({ test: step.test, out: [loop] })
      nodes[loop]?.out.push(one, next)
      next = step.repeat === '+' ? one : loop
    }
  }
  const start = next
  // The states reached, each once: `mark[id]` is the last character at which `id` was added.
  const mark = new Int32Array(nodes.length)
  const reach = (id: number, at: number, into: number[]): void => {
    if (mark[id] === at) return
    mark[id] = at
    const node = nodes[id] as Node
    if (node.test) into.push(id)
    else if (id === 0) into.push(0)
    else for (const to of node.out) reach(to, at, into)
  }
  return file => {
    mark.fill(0)
    let at = 1
    let states: number[] = []
    reach(start, at, states)
    for (const c of file) {
      at += 1
      const moved: number[] = []
      for (const id of states) {
        const node = nodes[id] as Node
        if (node.test?.(c)) for (const to of node.out) reach(to, at, moved)
      }
      if (moved.length === 0) return false
      states = moved
    }
    return states.includes(0)
  }
}

/**
 * `on.push.paths` is a YAML list of quoted patterns, often commented: pasted into `paths: |`,
 * its dashes, quotes and comments would be characters of the patterns, which then match no file
 * and leave every pull request out without a word. Each is named; `\` keeps the character.
 */
function yamlLeftIn(given: string): string | undefined {
  const leaveOut = 'which starts no comment inside the value: leave the comment out'
  if (given.startsWith('- '))
    return (
      'starts with `- `, a YAML list item: in `paths` give one pattern a line, without `- ` or ' +
      'quotes (`\\-` is the character itself)'
    )
  const quote = given[0]
  if ((quote === "'" || quote === '"') && given.length > 1 && given.endsWith(quote))
    return (
      'is in quotes, which are characters of the pattern here: write it without them ' +
      `(\`${given.slice(1, -1)}\`)`
    )
  if (given.startsWith('#'))
    return `starts with \`#\`, ${leaveOut} (\`\\#\` is the character itself)`
  if (/\s#/.test(given))
    return `has a \`#\` after a space, ${leaveOut} (\`\\#\` is the character itself)`
  // `web/{a,b}/**`: on one line its comma splits it into two patterns, one brace each; on its
  // own line the braces would be characters.
  const unescaped = given.replace(/\\./g, '')
  const opens = (unescaped.match(/\{/g) ?? []).length
  const closes = (unescaped.match(/\}/g) ?? []).length
  if (opens !== closes || /\{[^}]*,[^}]*\}/.test(unescaped)) {
    const brace = opens < closes ? '}' : '{'
    return (
      'has braces, which are no alternatives in these patterns (and a comma on one line splits ' +
      `it): one pattern for each (\`web/a/**, web/b/**\`); \`\\${brace}\` is the character itself`
    )
  }
  return undefined
}

function classOf(inside: string): { regex: string } | { problem: string } {
  if (inside === '')
    return { problem: 'has an empty `[]`: list the characters one place may be, like `[0-9]`' }
  if (inside.startsWith('!') || inside.startsWith('^'))
    return {
      problem:
        "has a negated class `[!...]`, which GitHub's patterns do not have: list the characters that match"
    }
  let out = ''
  const chars = [...inside]
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string
    if (c === '/')
      return { problem: 'has a `/` inside `[...]`: one place in a name is never a `/`' }
    if (chars[i + 1] === '-' && i + 2 < chars.length) {
      const to = chars[i + 2] as string
      const same = RANGE_ENDS.find(r => r.test(c) && r.test(to))
      if (!same || c > to)
        return { problem: `has the range \`${c}-${to}\`: a range goes up within a-z, A-Z or 0-9` }
      out += `${escapeClass(c)}-${escapeClass(to)}`
      i += 2
    } else out += escapeClass(c)
  }
  return { regex: `[${out}]` }
}

function escapeClass(c: string): string {
  return /[\]\\^-]/.test(c) ? `\\${c}` : c
}

/** A pattern in a message: long ones cut, so a mistaken paste does not flood the log. */
function shown(source: string): string {
  const chars = [...source]
  return chars.length > 80 ? `${chars.slice(0, 80).join('')}…` : source
}
