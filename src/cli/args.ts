import type { RawInputs } from '../inputs/names.js'
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

/** Inputs that take a list: a repeated flag adds one item (a line) each. */
const LIST_INPUTS = new Set([
  'labels',
  'remove-labels',
  'tags',
  'runtime-risks',
  'namespaces',
  'exclude-namespaces',
  'pull-requests'
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
  let bareVersion = false
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ''
    if (arg === '-h' || arg === '-V') {
      out[arg === '-h' ? 'help' : 'version'] = true
      continue
    }
    if (!arg.startsWith('--') || arg === '--') {
      out.problems.push(`unexpected argument \`${arg}\`: every value goes after its flag`)
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
      out.problems.push(`unknown flag \`--${name}\`${suggestion(name, declared)}`)
      continue
    }
    let value = inline
    if (value === undefined) {
      const next = argv[i + 1]
      if (name === 'version' && (next === undefined || next.startsWith('--'))) {
        bareVersion = true
        continue
      }
      if (isSwitch(input)) {
        // any letter case, as the input itself reads it (`--dry-run TRUE` is `--dry-run=TRUE`)
        if (next !== undefined && /^(true|false)$/i.test(next)) value = argv[++i]
        else value = 'true'
      } else if (next === undefined || next.startsWith('--')) {
        out.problems.push(
          `\`--${name}\` needs a value (\`--${name} VALUE\` or \`--${name}=VALUE\`)`
        )
        out.unread.add(name)
        continue
      } else value = argv[++i]
    }
    if (name === 'version' && value === '') {
      // `--version "$TAG"` with TAG empty: stops as the unquoted form does (VERSION_RULE)
      out.problems.push(EMPTY_VERSION)
      out.unread.add(name)
      continue
    }
    ;(given[name] ??= []).push(value ?? '')
  }
  if (bareVersion) {
    // Alone (`--debug` aside) it asks for the command line's version; among inputs it lacks a value.
    if (Object.keys(given).length === 0 && out.problems.length === 0) out.version = true
    else {
      out.problems.push(`\`--version\` needs a value here: ${VERSION_RULE}`)
      out.unread.add('version')
    }
  }
  for (const [name, values] of Object.entries(given)) {
    if (values.length > 1 && !LIST_INPUTS.has(name)) {
      out.problems.push(`\`--${name}\` is given ${values.length} times; it takes one value`)
      out.unread.add(name)
      continue
    }
    out.raw[name as keyof RawInputs] = values.join('\n')
  }
  return out
}

/** ` (did you mean --x?)` for a flag spelled with `_`, in another case, or a known prefix. */
function suggestion(name: string, declared: readonly DeclaredInput[]): string {
  const wanted = name.toLowerCase().replace(/_/g, '-')
  const match =
    declared.find(input => input.name === wanted) ??
    declared.find(input => wanted.length >= 3 && input.name.startsWith(wanted))
  return match ? ` (did you mean \`--${match.name}\`?)` : ''
}
