/**
 * The job summary's building blocks, shared by each job's section (records/, cluster/, labels/),
 * and the one wording of what a list, a table or a message leaves out: "... and 4 more".
 *
 * Text the step does not own (a name, a service's words, an input filled from event text) never
 * becomes a link, an image, HTML, a mention or a reference, as github.com renders a summary: its
 * GFM parser (cmark-gfm with the autolink, table, strikethrough and tagfilter extensions), then
 * filters over the HTML that link `@user`, `#12`, `org/repo#12`, `GH-12` and commit shas in any
 * text but code. Escaping cannot stop those filters (`\@octocat` renders as `@octocat`, which the
 * mention filter then links) nor the autolink extension (`foo\@evil.example` still becomes a
 * `mailto:` link), so such text is shown in code spans, which neither touches: a word of plain
 * letters, digits and sentence punctuation stays prose, any other word goes into a code span.
 * `__tests__/unit/summary-gfm.test.ts` renders hostile runs with cmark-gfm and checks the HTML.
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
 * A word that stays prose: letters, digits and sentence punctuation, and none of what GitHub would
 * link or mark up in it: no 7 hex digits in a row (a commit sha), no `www.`, no `GH-1`, no
 * `:name:` (an emoji). Anything else (`@`, `#`, `/`, `<`, `&`, `*`, `_`, `[`, `|`, a backtick, a
 * backslash, ...) makes the word code.
 */
function isPlainWord(word: string, first: boolean): boolean {
  if (!/^[\p{L}\p{N}.,:;!?()'"-]+$/u.test(word)) return false
  if (/[0-9a-f]{7}/i.test(word) || /www\./i.test(word) || /gh-\d/i.test(word)) return false
  if (/:[\p{L}\p{N}_+-]+:/u.test(word)) return false
  // At the start, `1.` or `-` would begin a list inside a list item.
  return !(first && /^(\d+[.)]|[-+]+)$/.test(word))
}

/**
 * Text the step does not own, as text. Control characters are written as their escapes (`\n`,
 * `\r`, `\u001b`: a CR or LF would end a table row); plain words stay prose and each run of other
 * words is one code span. `table`: the text is in a table cell, where `|` is escaped even in code.
 */
function inert(text: string, table: boolean): string {
  const parts = showControls(text).split(/(\s+)/)
  const out: string[] = []
  let run: string[] = []
  const flush = () => {
    if (run.length === 0) return
    // the spaces between the words of a run stay inside its code span
    const trailing = /^\s+$/.test(run.at(-1) ?? '') ? (run.pop() as string) : ''
    out.push(code(run.join(''), table), trailing)
    run = []
  }
  let first = true
  for (const part of parts) {
    if (part === '') continue
    if (/^\s+$/.test(part)) {
      if (run.length > 0) run.push(part)
      else out.push(part)
      continue
    }
    if (isPlainWord(part, first)) {
      flush()
      out.push(part)
    } else run.push(part)
    first = false
  }
  flush()
  return out.join('')
}

/** Text the step does not own, in a table cell: plain words as prose, any other as code. */
export function cell(text: string): string {
  return inert(text, true)
}

/** Text the step does not own, outside a table (a list item, a sentence): as `cell` does. */
export function inline(text: string): string {
  return inert(text, false)
}

/**
 * The step's own words (a failure's hint: "add `artifact-metadata: write` under `permissions:`"),
 * which may quote values it does not own: each backtick-quoted part as code, the rest as `inline`.
 */
export function stepWords(text: string, table = false): string {
  const pieces = text
    .split(/`([^`\n]+)`/)
    .map((part, i) => (i % 2 === 1 ? code(part, table) : inert(part, table)))
  // Two code spans that touch would fuse into one longer backtick string (a quoted value against
  // a quote of text the step does not own): a space keeps them apart.
  return pieces.reduce(
    (joined, piece) => joined + (joined.endsWith('`') && piece.startsWith('`') ? ' ' : '') + piece,
    ''
  )
}

/** The longest backtick string cmark-gfm reads as a code span's fence. */
const MAX_FENCE = 80

/**
 * A value the step does not own as inline code, whole (names, label names, paths, digests):
 * literal inside the backticks, which are longer than any run of them in the value; control
 * characters written as their escapes. Empty text is nothing (an empty code span is not one).
 */
export function code(text: string, table = false): string {
  const shown = table ? showControls(text).replace(/\|/g, '\\|') : showControls(text)
  // cmark-gfm takes no backtick string longer than MAX_FENCE as a code span's fence: a value with
  // a run of MAX_FENCE backticks would leave its text live Markdown. Such runs are shown as escaped
  // backticks between code spans.
  const parts = shown.split(new RegExp(`(\`{${MAX_FENCE},})`))
  return parts.map((part, i) => (i % 2 === 1 ? part.replace(/`/g, '\\`') : span(part))).join('')
}

/** `shown` (holding no run of MAX_FENCE backticks) as one code span. */
function span(shown: string): string {
  if (shown === '') return ''
  const longest = Math.max(0, ...[...shown.matchAll(/`+/g)].map(m => m[0].length))
  const fence = '`'.repeat(longest + 1)
  const pad = /^[ `]|[ `]$/.test(shown) ? ' ' : ''
  return `${fence}${pad}${shown}${pad}${fence}`
}

/** `code` in a table cell: `|` escaped, as a table needs even in code. */
export function codeCell(text: string): string {
  return code(text, true)
}

/**
 * The first MAX_SUMMARY_ROWS lines of a list, and a count of the rest saying where they are
 * (`where`: "in the `failed` output and the log"; the log by default).
 */
export function firstRows<T>(
  items: readonly T[],
  line: (item: T) => string,
  where = 'in the log'
): string[] {
  const rows = items.slice(0, MAX_SUMMARY_ROWS).map(line)
  if (items.length > MAX_SUMMARY_ROWS)
    rows.push(`- ${andMore(items.length - MAX_SUMMARY_ROWS)} ${where}`)
  return rows
}

/** The line under a table that was cut at MAX_SUMMARY_ROWS, naming the output that has the rest. */
export function moreInOutput(count: number, output: string, alsoInLog = false): string[] {
  if (count <= MAX_SUMMARY_ROWS) return []
  return [
    '',
    `${andMore(count - MAX_SUMMARY_ROWS)} in the \`${output}\` output${alsoInLog ? ' and the log' : ''} (\`truncated\` counts any it could not hold).`
  ]
}
