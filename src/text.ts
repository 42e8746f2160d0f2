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

/** C0 controls and DEL, which are not text a user meant to send; `allowed` lists exceptions. */
export function hasControlCharacters(value: string, allowed = ''): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if ((code < 0x20 || code === 0x7f) && !allowed.includes(value[i] as string)) return true
  }
  return false
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
