import { isSwitch, VERSION_RULE } from './args.js'
import type { ActionYml } from './action-yml.js'

/**
 * The JSON outputs, embedded as JSON in the command line's stdout object, not as text: those whose
 * action.yml description says they hold a JSON array or object (one place says it for both).
 */
export function jsonOutputs(action: ActionYml): Set<string> {
  return new Set(
    action.outputs.filter(o => /JSON (array|object)/.test(o.description)).map(o => o.name)
  )
}

/** `--help`: every input of action.yml as a flag, with its default and description. */
export function helpText(action: ActionYml, version: string): string {
  const lines = [
    `record-deployment ${version}: the record-deployment action as a command line.`,
    '',
    'Usage: record-deployment [--<input> VALUE | --<input>=VALUE]...',
    '',
    ...wrap(action.description, 0),
    '',
    'The token comes from --token or GITHUB_TOKEN (prefer the variable: flags show in process',
    'lists), the API URL from --api-url or GITHUB_API_URL, the repository from --repository or',
    'GITHUB_REPOSITORY. Relative file paths are read from GITHUB_WORKSPACE, else this directory.',
    '',
    'Stdout: one JSON object, one key per output of the action (below); the JSON outputs are',
    'embedded as JSON, the others are strings. The log goes to stderr.',
    'Exit status: 0 everything was recorded; 1 something failed (stdout still says what was',
    'recorded, stderr what failed and what was not attempted), or stdout could not be written',
    '(closed or full: one line on stderr); 2 bad flags or inputs (an unknown flag, an empty value,',
    'a flag given twice), every one named on stderr, nothing sent.',
    '',
    'Flags, one per input of the action (action.yml):'
  ]
  for (const input of action.inputs) {
    const usage = isSwitch(input) ? `--${input.name}[=true|false]` : `--${input.name} VALUE`
    lines.push(`  ${usage}`)
    lines.push(...wrap(input.description, 6))
    const fallback = defaultText(input.default)
    if (fallback) lines.push(`      default: ${fallback}`)
  }
  lines.push(
    '  A list flag (--labels, --tags, --namespaces, ...) may be repeated: each value is read as',
    '  it is alone and the lists appended (--labels a,b --labels c is a, b and c).',
    '  An empty value, or one of white space alone, is bad input for every flag.',
    '',
    'Flags of the command line:',
    '  --debug          log every request with its status and time (also with RUNNER_DEBUG=1)',
    '  --help, -h       this text',
    `  --version, -V    print \`record-deployment ${version}\` and exit (given alone; -V among`,
    '                   other flags is bad input)',
    ...wrap(`The one rule: ${VERSION_RULE}.`, 6),
    '',
    'Outputs (keys of the JSON object on stdout):'
  )
  for (const output of action.outputs) {
    lines.push(`  ${output.name}`, ...wrap(output.description, 6))
  }
  return lines.join('\n') + '\n'
}

/** action.yml's `${{ github.token }}` is the variable GITHUB_TOKEN here, and so on. */
function defaultText(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined
  const expression = /^\$\{\{\s*github\.([a-z_]+)\s*\}\}$/.exec(value)
  return expression ? `env GITHUB_${expression[1]?.toUpperCase()}` : value
}

function wrap(text: string, indent: number, width = 96): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent + line.length + 1 + word.length > width) {
      lines.push(' '.repeat(indent) + line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  if (line) lines.push(' '.repeat(indent) + line)
  return lines
}
