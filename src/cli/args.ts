// Over 300 lines: one parser of the command line's flags, with the messages that name each bad
// flag without quoting a value (an unknown flag, a glued value, --version's two meanings, lists).
import type { RawInputs } from '../inputs/names.js'
import { splitNames } from '../shared/text.js'
import { splitPatterns } from '../labels/paths.js'
import type { DeclaredInput } from './action-yml.js'

export interface CliArgs {
  /** the inputs, by action.yml name, as the flags gave them */
  raw: RawInputs
  help: boolean
  /** `--version` alone or `-V`: print the command line's own version */
  version: boolean
  debug: boolean
  /** each bad flag or argument, in the user's words */
  problems: string[]
  /** the inputs whose flag is among the problems (given, but no value could be read) */
  unread: Set<string>
}

/**
 * Inputs that take a list: a repeated flag appends, each value read as it would be alone
 * (`--labels a,b --labels c` is the three labels a, b and c).
 */
const LIST_INPUTS = new Set([
  'labels',
  'remove-labels',
  'tags',
  'runtime-risks',
  'namespaces',
  'exclude-namespaces',
  'pull-requests',
  'paths'
])

/** Flags of the command line itself, not inputs of the action. */
const OWN_FLAGS = new Set(['help', 'debug'])

/**
 * `--version` is two things by one rule: with a value (`--version 1.2.3`, `--version=1.2.3`) it is
 * the artifact's version, the `version` input; alone it prints the command line's own version.
 * With other flags but no value it is a problem, not a version print, so that a pipeline whose
 * variable came out empty (`--version $TAG --environment ...`) stops instead of recording nothing;
 * so is an empty value (`--version "$TAG"`), instead of recording without a version.
 */
export const VERSION_RULE =
  '`--version` alone (or `-V`) prints this version; with a value (`--version VALUE`) it is the ' +
  "artifact's version, the `version` input"

/** `--version ''` or `--version=`: a version variable that came out empty, quoted. */
const EMPTY_VERSION =
  "`--version` is empty (a variable that came out empty?): give the artifact's version, or leave " +
  'the flag out'

/**
 * `--environment "$ENV"` with ENV empty, or `--environment=`: any input's flag given an empty
 * value is a problem, as `--version`'s is. Quoted, an empty variable is still a flag the pipeline
 * meant to set; read as "not given" it changes what runs (no environment: the storage record
 * alone, no word).
 */
const emptyValue = (name: string) =>
  `\`--${name}\` is empty (a variable that came out empty?): give it a value, or leave the flag out`

/**
 * `--tag " "`, `--version $'\r'` (a CRLF file read by `$(cat VERSION)`): a value of white space
 * alone is as empty as `""` once the input is trimmed, so it is the same problem.
 */
const blankValue = (name: string) =>
  `\`--${name}\` is only white space (a variable that came out blank, or a line end \`\\r\` from ` +
  'a Windows file?): give it a value, or leave the flag out'

/** `-V` among other flags: refused, so a pipeline that meant `--version VALUE` stops. */
const DASH_V_AMONG_FLAGS =
  '`-V` prints this version and is given alone; among other flags nothing would be recorded: ' +
  "give the artifact's version as `--version VALUE`"

/**
 * The longest unknown flag name a message quotes. A name is quoted only when it looks like a flag
 * name (letters, digits, `-` and `_`, at most this long) and does not start with a known flag
 * followed by more than a `-`: anything else may be a value glued to its flag (`--token"$T"` is
 * `--tokenghp_...`), so it is described by its length, never quoted, not even in part.
 */
const NAME_SHOWN = 40
const FLAG_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/

/** An input whose default is `true` or `false`: `--dry-run` alone means `true`. */
export function isSwitch(input: DeclaredInput): boolean {
  return input.default === 'true' || input.default === 'false'
}

/**
 * The command line's flags: `--<input> VALUE` or `--<input>=VALUE` for every input action.yml
 * declares (a switch alone means `true`), `--help` / `-h`, `--version` / `-V` (VERSION_RULE),
 * `--debug`. Nothing is
 * thrown: every unknown flag, missing value, repeated single-value flag and stray argument is a
 * problem, so one run names them all.
 */
export function parseCliArgs(argv: readonly string[], declared: readonly DeclaredInput[]): CliArgs {
  const byName = new Map(declared.map(input => [input.name, input]))
  const out: CliArgs = {
    raw: {},
    help: false,
    version: false,
    debug: false,
    problems: [],
    unread: new Set()
  }
  const given: Record<string, string[]> = {}
  const known = knownNames(declared)
  /** `--version` without a value, or `-V`: how many times (twice is not "alone"). */
  let versionAsked = 0
  let dashV = false
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ''
    if (arg === '-h') {
      out.help = true
      continue
    }
    if (arg === '-V') {
      // as `--version` alone: printed only when no other flag is given (see below)
      versionAsked++
      dashV = true
      continue
    }
    if (!arg.startsWith('--') || arg === '--') {
      // Never quoted: a stray word may be a secret (`--dry-run "$TOKEN"`).
      out.problems.push(
        `unexpected argument ${i + 1}${flagBefore(argv, i, declared)}, not shown: every value goes after ` +
          'its flag'
      )
      continue
    }
    const equals = arg.indexOf('=')
    const name = equals < 0 ? arg.slice(2) : arg.slice(2, equals)
    const inline = equals < 0 ? undefined : arg.slice(equals + 1)
    if (OWN_FLAGS.has(name)) {
      if (inline !== undefined) out.problems.push(`\`--${name}\` takes no value`)
      else out[name as 'help' | 'debug'] = true
      continue
    }
    const input = byName.get(name)
    if (!input) {
      // Its value (`--tokn "$T"`: a token) is taken with it and never shown.
      const next = argv[i + 1]
      const valued = inline !== undefined || (next !== undefined && !next.startsWith('-'))
      if (inline === undefined && valued) i++
      const glued = gluedTo(name, known)
      out.problems.push(
        glued !== undefined || !FLAG_NAME.test(name) || name.length > NAME_SHOWN
          ? `${flagShown(name, known)}${valued ? ' (its value not shown)' : ''}` +
              (glued !== undefined
                ? `: a value glued to \`--${glued}\`? Put a space or \`=\` between them`
                : FLAG_NAME.test(name)
                  ? ''
                  : ': a flag name is letters, digits and `-` (a value glued to its flag?)')
          : `unknown flag ${flagShown(name, known)}${valued ? ' (its value not shown)' : ''}` +
              suggestion(name, declared)
      )
      continue
    }
    let value = inline
    if (value === undefined) {
      const next = argv[i + 1]
      if (name === 'version' && (next === undefined || next.startsWith('--'))) {
        versionAsked++
        continue
      }
      if (isSwitch(input)) {
        // any letter case, as the input itself reads it (`--dry-run TRUE` is `--dry-run=TRUE`)
        // (`--dry-run "$DRY"` with DRY empty is an empty value, below)
        if (next !== undefined && /^(true|false|)$/i.test(next)) value = argv[++i]
        else value = 'true'
      } else if (next === undefined || next.startsWith('--')) {
        out.problems.push(
          `\`--${name}\` needs a value (\`--${name} VALUE\` or \`--${name}=VALUE\`)`
        )
        out.unread.add(name)
        continue
      } else value = argv[++i]
    }
    if (value === '') {
      // `--version "$TAG"` with TAG empty: stops as the unquoted form does (VERSION_RULE); so does
      // every other input's flag given an empty value
      out.problems.push(name === 'version' ? EMPTY_VERSION : emptyValue(name))
      out.unread.add(name)
      continue
    }
    if (value !== undefined && value.trim() === '') {
      out.problems.push(blankValue(name))
      out.unread.add(name)
      continue
    }
    ;(given[name] ??= []).push(value ?? '')
  }
  if (versionAsked > 0) {
    // Alone (`--debug` aside) it asks for the command line's version; among inputs it lacks a value.
    if (versionAsked === 1 && Object.keys(given).length === 0 && out.problems.length === 0)
      out.version = true
    else {
      out.problems.push(
        dashV ? DASH_V_AMONG_FLAGS : `\`--version\` needs a value here: ${VERSION_RULE}`
      )
      out.unread.add('version')
    }
  }
  for (const [name, values] of Object.entries(given)) {
    if (values.length > 1 && !LIST_INPUTS.has(name)) {
      out.problems.push(`\`--${name}\` is given ${values.length} times; it takes one value`)
      out.unread.add(name)
      // The first value is still read, so what depends on it (`--name` from a `--digest
      // IMG@sha256:...`) is not named missing; the input's own problems are left out (unread).
      out.raw[name as keyof RawInputs] = values[0] ?? ''
      continue
    }
    out.raw[name as keyof RawInputs] =
      values.length > 1 ? joinList(name, values) : (values[0] ?? '')
  }
  return out
}

/**
 * A repeated list flag's values as one input value, each read as it would be alone: the label
 * inputs read one line as comma-separated but several lines as one name each (`splitNames`), so
 * each value is split first and every name put on its own line (a comma in a name kept as `\,`);
 * `paths` too, its patterns in order.
 * The other lists split on commas and line breaks alike.
 */
function joinList(name: string, values: readonly string[]): string {
  if (name !== 'labels' && name !== 'remove-labels' && name !== 'paths') return values.join('\n')
  // `paths` keeps its order and repeats (a later pattern may take back an earlier `!`).
  const split = name === 'paths' ? splitPatterns : splitNames
  return values
    .flatMap(value => split(value))
    .map(item => item.replace(/,/g, '\\,'))
    .join('\n')
}

/** Every flag name the command line knows. */
function knownNames(declared: readonly DeclaredInput[]): string[] {
  return [...declared.map(input => input.name), ...OWN_FLAGS, 'version']
}

/**
 * The known flag an unknown name starts with (in any letter case), when what follows it is not a
 * `-` (`--tokenghp_x` starts with `token`; `--labels-file` is a flag name of its own): the
 * longest such.
 */
function gluedTo(name: string, known: readonly string[]): string | undefined {
  return known
    .filter(
      flag =>
        name.length > flag.length &&
        name.toLowerCase().startsWith(flag) &&
        name[flag.length] !== '-'
    )
    .sort((a, b) => b.length - a.length)[0]
}

/**
 * An unknown flag as a message shows it: quoted when it looks like a flag name (NAME_SHOWN, not
 * glued to a known flag), else described by its length and the known flag it starts with.
 */
function flagShown(name: string, known: readonly string[]): string {
  if (FLAG_NAME.test(name) && name.length <= NAME_SHOWN && gluedTo(name, known) === undefined)
    return `\`--${name}\``
  const glued = gluedTo(name, known)
  const size = `${name.length + 2} characters`
  return glued === undefined
    ? `an unknown flag of ${size}, not shown`
    : `an unknown flag beginning with \`--${glued}\` (${size}), the rest not shown`
}

/** The flag before argument `i`, by its name alone (a value is never quoted), if there is one. */
function flagBefore(
  argv: readonly string[],
  i: number,
  declared: readonly DeclaredInput[]
): string {
  for (let j = i - 1; j >= 0; j--) {
    const arg = argv[j] ?? ''
    if (arg.startsWith('--') && arg !== '--') {
      const equals = arg.indexOf('=')
      const name = equals < 0 ? arg.slice(2) : arg.slice(2, equals)
      return ` (after ${flagShown(name, knownNames(declared))})`
    }
  }
  return ''
}

/**
 * ` (did you mean \`--x\`?)`: the known flag nearest to an unknown one: the same in another case
 * or with `_`, a known prefix (`--env`), a known flag at the end of a longer name
 * (`--github-token`), else the one fewest edits away (`--tokn`), within a third of its length.
 */
function suggestion(name: string, declared: readonly DeclaredInput[]): string {
  const wanted = name.toLowerCase().replace(/_/g, '-')
  if (wanted.length > 64) return ''
  const names = knownNames(declared)
  const near = (candidate: string) =>
    editDistance(wanted, candidate) <= Math.max(1, Math.floor(candidate.length / 3))
  const match =
    names.find(known => known === wanted) ??
    names.find(known => wanted.length >= 3 && known.startsWith(wanted)) ??
    names.filter(known => wanted.endsWith(`-${known}`)).sort((a, b) => b.length - a.length)[0] ??
    names.filter(near).sort((a, b) => editDistance(wanted, a) - editDistance(wanted, b))[0]
  return match ? ` (did you mean \`--${match}\`?)` : ''
}

/** Levenshtein distance: the fewest one-character insertions, deletions and changes. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      )
    previous = row
  }
  return previous[b.length] ?? 0
}
