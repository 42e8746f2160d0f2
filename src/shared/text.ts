import { looksBinary, looksLikeYaml } from './untrusted.js'

/** Newline- or comma-separated, trimmed, empty items and duplicates dropped. */
export function splitList(value: string): string[] {
  return [
    ...new Set(
      value
        .split(/[\n,]/)
        .map(item => item.trim())
        .filter(Boolean)
    )
  ]
}

/**
 * A list of names that may themselves hold commas (label names): a value of several lines has
 * one name per line, and commas stay part of the name; a value of one line is comma-separated.
 * Either way `\,` is a comma that belongs to the name. Trimmed, empty items and duplicates dropped.
 */
export function splitNames(value: string): string[] {
  // A comma not preceded by a backslash separates names on one line.
  const separator = /\n/.test(value.trim()) ? /\r?\n/ : /(?<!\\),/
  return [
    ...new Set(
      value
        .split(separator)
        .map(item => item.replace(/\\,/g, ',').trim())
        .filter(Boolean)
    )
  ]
}

/** Length as the service counts it: in Unicode code points, not UTF-16 units (an emoji is one). */
export function codePoints(value: string): number {
  let count = 0
  for (const _ of value) count++
  return count
}

/** The byte-order mark some editors write at the start of a UTF-8 file: not part of the text. */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/**
 * Why `text` (a file's content, or an input's) is not JSON, without quoting any of it: a file
 * named by mistake may be a credentials file, and the runner masks only whole secrets. Where
 * JSON.parse stopped (line and column), and what kind of content it looks like.
 */
export function notJsonReason(text: string, error: unknown): string {
  const position = jsonErrorPosition(error)
  let where = ''
  if (position !== undefined) {
    const before = text.slice(0, position).split('\n')
    where = ` at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`
  } else if (/end of JSON input/.test(error instanceof Error ? error.message : ''))
    where = ': it ends too early'
  return `is not valid JSON${where} (${contentKind(text)})`
}

/** Where JSON.parse stopped, as its message says (`... at position 12 ...`); undefined if it does not. */
export function jsonErrorPosition(error: unknown): number | undefined {
  const at = /at position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1]
  return at === undefined ? undefined : Number(at)
}

/** What kind of text `text` looks like, in words, never quoting it. */
function contentKind(text: string): string {
  const start = text.trimStart()
  if (start === '') return 'it is empty'
  if (looksBinary(text.slice(0, 4096))) return 'it holds binary data'
  if (start.startsWith('<')) return 'it looks like HTML or XML'
  if (looksLikeYaml(start)) return 'it looks like YAML'
  if (/^(export\s+)?[A-Za-z_][\w.-]*\s*=/.test(start)) return 'it looks like `key=value` lines'
  if (/^[[{]/.test(start)) return 'it starts as JSON'
  return 'it is text that does not start as JSON'
}

/** `sha256:0123456789ab…`: enough of a digest to tell it apart in a table or a log line. */
export function shortDigest(digest: string | undefined): string {
  return digest ? `${digest.slice(0, 19)}…` : ''
}

/**
 * A field name a file gave, as a message may show it: a short name of letters, digits, `_`, `-`
 * and `.` as it is; any other is content the step does not quote (docs/untrusted-input.md), only
 * described by its length.
 */
export function fieldName(key: PropertyKey): string {
  const name = String(key)
  return /^[A-Za-z0-9_.-]{1,64}$/.test(name) ? name : `(a name of ${codePoints(name)} characters)`
}
