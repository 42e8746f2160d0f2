/**
 * The job summary's building blocks, shared by each job's section (records/, cluster/, labels/),
 * and the one wording of what a list, a table or a message leaves out: "... and 4 more".
 */
import { showControls } from '../shared/untrusted.js'

/** `... and 4 more` (`... and 4 more problems` with `what`): how every cut list says what is left out. */
export function andMore(count: number, what?: string): string {
  return `... and ${count} more${what ? ` ${what}` : ''}`
}

/** `a, b, c, ... and 4 more`: the first `shown` of `names`, then how many more. */
export function namedAndMore(names: readonly string[], shown: number, separator = ', '): string {
  const named = names.slice(0, shown).join(separator)
  return names.length > shown ? `${named}${separator}${andMore(names.length - shown)}` : named
}

/** A summary is for reading: a 5000-deployment cluster shows its first rows and a count. */
export const MAX_SUMMARY_ROWS = 100

/**
 * A value the step does not own (a name, a service's words), shown as the text it is in a table
 * cell, a list item or bold: the one place the summary renders such text. Markdown's markup
 * characters are backslash-escaped, `<`, `>` and `&` written as entities (no HTML, no comment that
 * hides the rest), `://`, `www.` and `@` broken so that no link is made of them, and each control
 * character (a CR or LF would end the table row) written as its escape, `\n`, `\r`, `\u001b`.
 */
export function cell(text: string): string {
  return showControls(text)
    .replace(/[\\`*_~[\]|$!]/g, '\\$&')
    .replace(/[&<>]/g, c => ENTITIES[c] as string)
    .replace(/:(?=\/\/)/g, '\\:')
    .replace(/(www)\./gi, '$1\\.')
    .replace(/@/g, '\\@')
}

/**
 * A value the step does not own as inline code in a table cell (label names, paths): literal
 * inside the backticks, which are longer than any run of them in the value; `|` escaped, as a
 * table needs even in code, and control characters written as their escapes.
 */
export function codeCell(text: string): string {
  const shown = showControls(text).replace(/\|/g, '\\|')
  const longest = Math.max(0, ...[...shown.matchAll(/`+/g)].map(m => m[0].length))
  const fence = '`'.repeat(longest + 1)
  const pad = /^[ `]|[ `]$/.test(shown) ? ' ' : ''
  return `${fence}${pad}${shown}${pad}${fence}`
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' }

/** The first MAX_SUMMARY_ROWS lines of a list, and a count of the rest (the log has them all). */
export function firstRows<T>(items: readonly T[], line: (item: T) => string): string[] {
  const rows = items.slice(0, MAX_SUMMARY_ROWS).map(line)
  if (items.length > MAX_SUMMARY_ROWS)
    rows.push(`- ${andMore(items.length - MAX_SUMMARY_ROWS)} (the log has them all)`)
  return rows
}

/** The line under a table that was cut at MAX_SUMMARY_ROWS, naming the output that has the rest. */
export function moreInOutput(count: number, output: string): string[] {
  if (count <= MAX_SUMMARY_ROWS) return []
  return [
    '',
    `${andMore(count - MAX_SUMMARY_ROWS)} in the \`${output}\` output (\`truncated\` counts any it could not hold).`
  ]
}
