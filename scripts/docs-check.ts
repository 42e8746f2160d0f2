/**
 * What __tests__/unit/docs.test.ts checks of README.md and docs/*.md, kept apart so that a writer
 * can run it too: `npm run -s build:tools && node build/scripts/docs-check.js` lists every pointer that names no test, every
 * promise without a pointer and every link that resolves to nothing; `--resolve` completes the
 * pointers written with a test name cut short (`name ...`) when one test alone starts so.
 *
 * A pointer is an HTML comment beside a sentence, invisible when rendered:
 * `<!-- test: __tests__/integration/records.test.ts › the exact jest test name -->`
 * (describe blocks first, joined with ' › ', as jest prints them).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { projectRoot } from './run-action.js'

/** README.md first, then every page of docs/, as paths relative to the project. */
export function documentationFiles(root = projectRoot()): string[] {
  const docs = existsSync(join(root, 'docs'))
    ? readdirSync(join(root, 'docs'))
        .filter(f => f.endsWith('.md'))
        .sort()
        .map(f => `docs/${f}`)
    : []
  return ['README.md', ...docs]
}

// ---------------------------------------------------------------- test names of a test file

export interface TestTitles {
  /** each test as jest names it: its describe blocks' titles, outermost first, then its own */
  tests: string[][]
  /**
   * the tests of `tests` that hold nothing when jest runs: `.skip`, `.todo` and `.failing` (a
   * test that passes when its body fails), or inside a `describe.skip`
   */
  idle: string[][]
}

/** Modifiers after which a test holds no promise: it does not run, or passes when it fails. */
const IDLE = /\.(skip|todo|failing)\b/

/**
 * The tests a file declares: `test(` / `it(` / `describe(` with any modifiers (`.concurrent`,
 * `.skip`), and `.each(table)(title` for the table forms, each with the describe blocks around
 * it. Read from the text, not by running jest: a title is a string literal (quotes or a
 * template, `${...}` kept as written).
 */
export function testTitles(text: string): TestTitles {
  const tests: string[][] = []
  const idle: string[][] = []
  const describes: Array<{ title: string; end: number; idle: boolean }> = []
  const callee = /(?<![.\w$])(describe|test|it)((?:\.[a-z]+)*)\s*\(/y
  for (let i = 0; i < text.length; i++) {
    const skipped = skipNonCode(text, i)
    if (skipped !== i) {
      i = skipped
      continue
    }
    callee.lastIndex = i
    const m = callee.exec(text)
    if (!m) continue
    const open = m.index + m[0].length - 1
    let at = open + 1
    if (/\.each\b/.test(m[2] ?? '')) {
      at = skipBalanced(text, open)
      const call = /^\s*\(/.exec(text.slice(at))
      if (!call) continue
      at += call[0].length
    }
    const literal = stringAt(text, at)
    if (literal === undefined) continue
    i = open
    const enclosing = describes.filter(d => d.end > m.index)
    const around = enclosing.map(d => d.title)
    const isIdle = IDLE.test(m[2] ?? '') || enclosing.some(d => d.idle)
    if (m[1] === 'describe')
      describes.push({ title: literal, end: skipBalanced(text, at - 1), idle: isIdle })
    else {
      const test = [...around, literal]
      tests.push(test)
      if (isIdle) idle.push(test)
    }
  }
  return { tests, idle }
}

/**
 * When a string, comment or regular expression literal starts at `i`, the index of its last
 * character; else `i` itself.
 */
function skipNonCode(text: string, i: number): number {
  const c = text[i]
  if (c === "'" || c === '"' || c === '`') return endOfString(text, i)
  if (c === '/' && text[i + 1] === '/') {
    const end = text.indexOf('\n', i)
    return end < 0 ? text.length : end
  }
  if (c === '/' && text[i + 1] === '*') {
    const end = text.indexOf('*/', i + 2)
    return end < 0 ? text.length : end + 1
  }
  if (c === '/' && /([(,=:[!&|?{};>]|\breturn)\s*$|^\s*$/.test(text.slice(Math.max(0, i - 20), i)))
    return endOfRegex(text, i)
  return i
}

/** From an opening bracket at `at`, the index just past its closing one (strings skipped). */
function skipBalanced(text: string, at: number): number {
  let depth = 0
  for (let i = at; i < text.length; i++) {
    const skipped = skipNonCode(text, i)
    if (skipped !== i) {
      i = skipped
      continue
    }
    const c = text[i]
    if (c === '(' || c === '[' || c === '{') depth++
    else if (c === ')' || c === ']' || c === '}') {
      depth--
      if (depth === 0) return i + 1
    }
  }
  return text.length
}

/** From a regular expression literal's `/` at `at`, the index of its closing `/`. */
function endOfRegex(text: string, at: number): number {
  let inClass = false
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i]
    if (c === '\\') i++
    else if (c === '[') inClass = true
    else if (c === ']') inClass = false
    else if (c === '/' && !inClass) return i
    else if (c === '\n') return i
  }
  return text.length
}

function endOfString(text: string, at: number): number {
  const quote = text[at]
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === '\\') i++
    else if (quote === '`' && text[i] === '$' && text[i + 1] === '{')
      i = skipBalanced(text, i + 1) - 1
    else if (text[i] === quote) return i
  }
  return text.length
}

/** The string literal starting at `at` (white space skipped), unescaped; undefined if none. */
function stringAt(text: string, at: number): string | undefined {
  const start = at + (/^\s*/.exec(text.slice(at))?.[0].length ?? 0)
  const quote = text[start]
  if (quote !== "'" && quote !== '"' && quote !== '`') return undefined
  const end = endOfString(text, start)
  const raw = text.slice(start + 1, end)
  return raw.replace(/\\(.)/g, '$1')
}

/** A title as a pattern: jest's `%s`-style and `$name` placeholders and `${...}` match anything. */
function titlePattern(title: string): RegExp {
  const parts = title.split(/(%[sdifjoOp#]|\$\{[^}]*\}|\$[a-zA-Z_][\w.]*)/)
  const source = parts.map((p, i) => (i % 2 ? '.+?' : p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
  return new RegExp(`^${source.join('')}$`, 's')
}

/** Whether `name` (one part of a pointer) is `title` as written or an instance of it. */
export function titleMatches(title: string, name: string): boolean {
  return title === name || titlePattern(title).test(name)
}

// ---------------------------------------------------------------- pointers

export interface Pointer {
  /** the documentation file and line (1-based) */
  where: string
  file: string
  name: string
}

const POINTER = /<!-- test: (\S+) › (.+?) -->/g
/**
 * A promise held by a check outside jest (`.ci/run`, a script it runs):
 * `<!-- check: .ci/run › what it checks -->`. The file must exist; what it checks is for the reader.
 */
const CHECK = /<!-- check: (\S+) › (.+?) -->/g

export function checksIn(path: string, text: string): Pointer[] {
  const found: Pointer[] = []
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(CHECK))
      found.push({ where: `${path}:${i + 1}`, file: m[1] ?? '', name: m[2] ?? '' })
  })
  return found
}

export function pointersIn(path: string, text: string): Pointer[] {
  const found: Pointer[] = []
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(POINTER))
      found.push({ where: `${path}:${i + 1}`, file: m[1] ?? '', name: m[2] ?? '' })
  })
  return found
}

export interface CommentProblem {
  where: string
  problem: string
}

/**
 * Pointers a reader would see, or that are no pointer at all. GitHub (cmark-gfm) hides a comment
 * that opens a line as an HTML block whatever it holds; a comment inside a line (after a
 * sentence, in a table cell) it hides only when its text holds no `--`, does not start with `>` or
 * `->` and does not end with `-`, and shows it as text otherwise: `<!-- test: ... › --help ... -->`
 * after a sentence shows the test file on the page. In a code block every comment is shown. And a
 * comment that starts like a pointer but is not one (`<!-- test: file - name -->`) is checked by
 * nothing: it is named too.
 */
export function commentProblems(path: string, text: string): CommentProblem[] {
  const found: CommentProblem[] = []
  let fence = false
  text.split('\n').forEach((line, i) => {
    const where = `${path}:${i + 1}`
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence
      return
    }
    if (fence) {
      if (/<!--\s*(test|check)\s*:/.test(line))
        found.push({ where, problem: 'a pointer inside a code block is shown as text' })
      return
    }
    for (const m of line.matchAll(/<!--([\s\S]*?)-->/g)) {
      const body = m[1] ?? ''
      if (!/^\s*(tests?|checks?)\s*:/.test(body)) continue
      if (
        !new RegExp(`^${POINTER.source}$`).test(m[0]) &&
        !new RegExp(`^${CHECK.source}$`).test(m[0])
      )
        found.push({
          where,
          problem: `not a pointer (\`<!-- test: file › name -->\`), so checked by nothing: ${m[0].slice(0, 60)}`
        })
      const inline = line.slice(0, m.index).trim() !== ''
      if (inline && (body.includes('--') || /^-?>/.test(body) || body.endsWith('-')))
        found.push({
          where,
          problem:
            'a comment inside a line whose text holds `--` is shown as text by GitHub: start its line with it'
        })
    }
  })
  return found
}

/**
 * Why a check pointer holds nothing, or undefined. It must name something that runs checks (the
 * CI script `.ci/run` and what sits beside it, a script of scripts/, a workflow): any existing file,
 * `<!-- check: package.json › ... -->`, would let a promise pass with no check behind it.
 */
export function checkProblem(check: Pointer, root = projectRoot()): string | undefined {
  if (!/^(\.ci\/[^/]+|scripts\/.+|\.github\/workflows\/[^/]+\.ya?ml)$/.test(check.file))
    return `${check.file} runs no check: name .ci/run, a script of scripts/ or a workflow`
  if (!existsSync(join(root, check.file))) return `no file ${check.file}`
  return undefined
}

const titleCache = new Map<string, TestTitles | undefined>()
function titlesOf(root: string, file: string): TestTitles | undefined {
  if (!titleCache.has(file)) {
    const path = join(root, file)
    titleCache.set(
      file,
      /^__tests__\/.+\.test\.ts$/.test(file) && existsSync(path)
        ? testTitles(readFileSync(path, 'utf8'))
        : undefined
    )
  }
  return titleCache.get(file)
}

/** Why a pointer names no test, or undefined when it names one. */
export function pointerProblem(pointer: Pointer, root = projectRoot()): string | undefined {
  const titles = titlesOf(root, pointer.file)
  if (!titles) return `${pointer.file} is not a test file of __tests__/`
  const parts = pointer.name.split(' › ')
  const names = (test: string[]) =>
    test.length === parts.length && test.every((title, i) => titleMatches(title, parts[i] ?? ''))
  if (!titles.tests.some(names)) return `${pointer.file} has no test named "${pointer.name}"`
  if (!titles.tests.some(test => names(test) && !titles.idle.includes(test)))
    return `${pointer.file}: "${pointer.name}" is skipped, a todo or failing: it holds nothing`
  return undefined
}

// ---------------------------------------------------------------- promises and their pointers

/**
 * Words that state what the action does (a behaviour a user relies on): a paragraph, list item or
 * table holding one needs a pointer beside it.
 */
export const PROMISE =
  /\b(always|never|is written|are written|is sent|are sent|fails?|is retried|are retried|retries|is refused|are refused|stops?|waits?|is decommissioned|are decommissioned|is skipped|are skipped|skips|failed|retry|refuses|rejects?|is rejected|are rejected|decommissions|is deleted|is dropped|are dropped|drops|is ignored|are ignored|ignores|is kept|are kept|keeps)\b/i

export interface Unit {
  where: string
  text: string
  pointers: number
}

/**
 * The prose of a page cut where a reader sees one statement: a paragraph, a list item (with its
 * continuation lines) or a table, each with the pointers that follow it before the next one.
 * Code blocks and headings are left out.
 */
export function unitsOf(path: string, text: string): Unit[] {
  const units: Unit[] = []
  let current: Unit | undefined
  let fence = false
  const lines = text.split('\n')
  lines.forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence
      current = undefined
      return
    }
    if (fence) return
    if (/^\s*<!-- (test|check): /.test(line)) {
      if (current) current.pointers += pointersIn(path, line).length + checksIn(path, line).length
      return
    }
    if (/^\s*<!--/.test(line)) return
    if (/^\s*$/.test(line) || /^#/.test(line)) {
      // a blank line ends a paragraph, but its pointers may follow it: `current` takes them
      if (/^#/.test(line)) current = undefined
      return
    }
    const startsItem = /^\s*([-*]|\d+\.) /.test(line)
    const inTable = line.startsWith('|')
    const continues =
      current !== undefined &&
      !startsItem &&
      lines[i - 1] !== undefined &&
      !/^\s*$/.test(lines[i - 1] ?? '') &&
      !/^\s*<!--/.test(lines[i - 1] ?? '') &&
      (inTable === current.text.startsWith('|') || !inTable)
    if (continues && current) {
      current.text += '\n' + line
      return
    }
    current = { where: `${path}:${i + 1}`, text: line, pointers: 0 }
    units.push(current)
  })
  return units
}

/** The units that state a behaviour with no pointer beside them. */
export function promisesWithoutPointer(path: string, text: string): Unit[] {
  return unitsOf(path, text).filter(u => u.pointers === 0 && PROMISE.test(stripCode(u.text)))
}

/** Text without inline code, links' targets and comments: what the reader reads as prose. */
const stripCode = (text: string) =>
  text
    .replace(/`[^`]*`/g, '')
    .replace(/\]\([^)]*\)/g, ']')
    .replace(/<!--[\s\S]*?-->/g, '')

// ---------------------------------------------------------------- links and anchors

/**
 * GitHub's heading anchors of a page: lower case, inline markup dropped, characters other than
 * letters, digits, spaces, `-` and `_` removed, spaces made `-`; a repeated one gets `-1`, `-2`.
 */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fence = false
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence
    if (fence) continue
    const heading = /^#{1,6} (.+?)\s*#*\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const base = slug(heading)
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n === 0 ? base : `${base}-${n}`)
  }
  for (const m of text.matchAll(/<a (?:name|id)="([^"]+)"/g)) anchors.add(m[1] ?? '')
  return anchors
}

export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-')
}

export interface Link {
  where: string
  target: string
}

/** The relative links of a page (`[text](target)`, `[id]: target`), outside code. */
export function linksIn(path: string, text: string): Link[] {
  const links: Link[] = []
  let fence = false
  text.split('\n').forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence
    if (fence) return
    const prose = line.replace(/`[^`]*`/g, '').replace(/<!--.*?-->/g, '')
    const targets = [
      // a title may be quoted either way or parenthesized; a target may be in angle brackets
      ...[
        ...prose.matchAll(/\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g)
      ].map(m => (m[1] ?? '').replace(/^<(.*)>$/, '$1')),
      ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/g)].map(m => m[1] ?? '')
    ]
    for (const target of targets)
      if (!/^[a-z][a-z+.-]*:/i.test(target)) links.push({ where: `${path}:${i + 1}`, target })
  })
  return links
}

/** Why a relative link of `from` resolves to nothing, or undefined when it resolves. */
export function linkProblem(
  from: string,
  target: string,
  root = projectRoot()
): string | undefined {
  const [pathPart = '', anchor] = target.split('#')
  const file = pathPart === '' ? from : normalize(join(dirname(from), decodeURI(pathPart)))
  if (file.startsWith('..')) return `${target} leaves the repository`
  const full = join(root, file)
  if (!existsSync(full)) return `${target}: ${file} does not exist`
  if (anchor === undefined || anchor === '') return undefined
  if (!file.endsWith('.md')) return `${target}: an anchor into a file that is not markdown`
  const anchors = anchorsOf(readFileSync(full, 'utf8'))
  // a browser reads `#caf%C3%A9` as `#café`
  if (!anchors.has(anchor) && !anchors.has(decodedAnchor(anchor)))
    return `${target}: ${file} has no heading with the anchor #${anchor}`
  return undefined
}

function decodedAnchor(anchor: string): string {
  try {
    return decodeURIComponent(anchor)
  } catch {
    return anchor
  }
}

// ---------------------------------------------------------------- the writer's command

/** Complete `<!-- test: file › name ... -->` where one test of the file alone starts with `name`. */
function resolvePointers(root: string, path: string): number {
  const text = readFileSync(join(root, path), 'utf8')
  let changed = 0
  const out = text.replace(/<!-- test: (\S+) › (.+?) -->/g, (whole, file: string, name: string) => {
    const titles = titlesOf(root, file)
    if (!titles || !pointerProblem({ where: '', file, name }, root)) return whole
    const stem = name
      .replace(/\s*(\.\.\.|…)\s*$/, '')
      .replace(/:$/, '')
      .trim()
    const hits = [
      ...new Set(
        titles.tests
          .map(t => t.join(' › '))
          .filter(t =>
            t
              .split(' › ')
              .pop()
              ?.startsWith(stem.split(' › ').pop() ?? '')
          )
      )
    ]
    if (hits.length !== 1) return whole
    changed++
    return `<!-- test: ${file} › ${hits[0]} -->`
  })
  if (changed) writeFileSync(join(root, path), out)
  return changed
}

if (process.argv[1] && /docs-check\.[jt]s$/.test(relative(process.cwd(), process.argv[1]))) {
  const root = projectRoot()
  const resolve = process.argv.includes('--resolve')
  let problems = 0
  const report = (line: string) => {
    console.log(line)
    problems++
  }
  for (const path of documentationFiles(root)) {
    if (resolve) {
      const n = resolvePointers(root, path)
      if (n) console.log(`${path}: ${n} pointers completed`)
    }
    const text = readFileSync(join(root, path), 'utf8')
    for (const p of pointersIn(path, text)) {
      const problem = pointerProblem(p, root)
      if (problem) report(`${p.where}: pointer: ${problem}`)
    }
    for (const c of commentProblems(path, text)) report(`${c.where}: ${c.problem}`)
    for (const c of checksIn(path, text)) {
      const problem = checkProblem(c, root)
      if (problem) report(`${c.where}: check: ${problem}`)
    }
    for (const u of promisesWithoutPointer(path, text))
      report(`${u.where}: promise without pointer: ${u.text.slice(0, 90)}`)
    for (const l of linksIn(path, text)) {
      const problem = linkProblem(path, l.target, root)
      if (problem) report(`${l.where}: link: ${problem}`)
    }
  }
  console.log(`${problems} problems`)
  process.exitCode = problems ? 1 : 0
}
