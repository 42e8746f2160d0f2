/**
 * The one module that decides what text is safe: which characters are control characters (for
 * the log's escapes, the refusal of names, the guess that a file is binary), whether a file looks
 * like YAML, and which names mix look-alike scripts. Every other module asks here.
 *
 * Text the step does not own (service answers, files, inputs often filled from event text) as it
 * may be shown in a log line. The runner reads the step's stdout and stderr line by line, a line
 * ending at a line feed or a lone carriage return, and runs as a workflow command a line that
 * starts with `::` after white space, or that holds `##[` anywhere. So a line here holds no
 * control character (each is written as its JSON escape: `\n`, `\r`, `\t`, `\u001b`), no `##[`
 * (written `##\u005b`), and does not start with `::` (written `\::`). The escapes are JSON's, so a
 * JSON text stays valid JSON and means the same after it, and they read as what they stand for.
 * log-writer.ts passes every log line through here.
 */

/**
 * Which characters are control characters, said once: every check and escape below reads these.
 * C0 controls (U+0000-U+001F) and DEL (U+007F) are never text a user meant to type; C1 controls
 * (U+0080-U+009F), the Unicode line and paragraph separators, and the bidirectional controls
 * (marks, embeddings, overrides, isolates) are not text a log line shows: several end a line for
 * some reader, and a right-to-left override makes a name read as another (`deployed\u202edorp`
 * shows as "deployedprod").
 */
const C0_AND_DEL = '\\u0000-\\u001f\\u007f'
const C1_SEPARATORS_AND_BIDI = '\\u0080-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069'
/** What a log line and a summary cell show as an escape. */
const CONTROL = new RegExp(`[${C0_AND_DEL}${C1_SEPARATORS_AND_BIDI}]`, 'g')
/** What a name, a tag or a description refuses (an input problem), and what marks binary data. */
const REFUSED = new RegExp(`[${C0_AND_DEL}]`, 'g')
/** The C0 white space a text file holds: tab, line feed, vertical tab, form feed, carriage return. */
const TEXT_WHITE_SPACE = '\t\n\v\f\r'

/** Whether `value` holds a C0 control or DEL; `allowed` lists exceptions (`'\t\n'`). */
export function hasControlCharacters(value: string, allowed = ''): boolean {
  for (const match of value.matchAll(REFUSED)) if (!allowed.includes(match[0])) return true
  return false
}

/** Whether `text` (a file's start) holds a control character no text file holds: binary data. */
export function looksBinary(text: string): boolean {
  return hasControlCharacters(text, `${TEXT_WHITE_SPACE}\u007f`)
}

/**
 * Whether `text` (a file's start) looks like YAML (kubectl's `-o yaml`, a hand-written file): after
 * any comment lines, a document marker (`---`, `%YAML`), a list item (`- `) or a mapping key
 * (`key:` then white space or the end). Only the first 4,096 characters are looked at.
 */
export function looksLikeYaml(text: string): boolean {
  let rest = text.slice(0, 4096).trimStart()
  while (rest.startsWith('#')) {
    const end = rest.indexOf('\n')
    if (end < 0) return false
    rest = rest.slice(end + 1).trimStart()
  }
  return /^(---|%YAML|- |[A-Za-z_][\w.-]*\s*:(\s|$))/.test(rest)
}

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

function escapeControl(char: string): string {
  return NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`
}

/** `text` with each control character written as its JSON escape (`\n`, `\r`, `\t`, `\u001b`). */
export function showControls(text: string): string {
  return text.replace(CONTROL, escapeControl)
}

/** One log line: every control character escaped, line breaks included. */
export function logLine(text: string): string {
  return neutralLine(showControls(text))
}

/**
 * Text of several lines (a failure report, a stack): each line neutralised as `logLine` does,
 * the line feeds between them kept (a CR LF pair counts as one).
 */
export function logLines(text: string): string {
  return text
    .split(/\r?\n/)
    .map(line => logLine(line))
    .join('\n')
}

/** `##[` anywhere and `::` at the start (after white space) made inert; no control is left here. */
function neutralLine(line: string): string {
  return line.replace(/##\[/g, '##\\u005b').replace(/^(\s*)::/, '$1\\::')
}

/**
 * Scripts whose letters look alike (`е` U+0435 is Cyrillic, `e` Latin; `ο` Greek, `o` Latin): a
 * name that mixes them reads as another name. Mixing other scripts is ordinary (`deployed:本番`).
 */
const LOOKALIKE_SCRIPTS = ['Latin', 'Greek', 'Cyrillic', 'Armenian', 'Cherokee'].map(
  script => [script, new RegExp(`\\p{Script=${script}}`, 'u')] as const
)

/**
 * When `text` holds letters of more than one script whose letters look alike, what it mixes, in
 * words: `Latin and Cyrillic (е U+0435)`, the letters of every script but the most used one
 * named. Undefined when it mixes none.
 */
export function mixedScripts(text: string): string | undefined {
  const letters = new Map<string, string[]>()
  for (const char of text) {
    const script = LOOKALIKE_SCRIPTS.find(([, pattern]) => pattern.test(char))?.[0]
    if (script === undefined) continue
    const list = letters.get(script) ?? []
    list.push(char)
    letters.set(script, list)
  }
  if (letters.size < 2) return undefined
  const ranked = [...letters].sort((a, b) => b[1].length - a[1].length)
  const [first, ...others] = ranked
  const named = others.map(([script, chars]) => {
    const shown = [...new Set(chars)]
      .slice(0, 5)
      .map(c => `${c} U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`)
    return `${script} (${shown.join(', ')})`
  })
  return `${first?.[0]} and ${named.join(' and ')}`
}
