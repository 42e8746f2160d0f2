/**
 * Untrusted text in the log and the summary (issue 33): the one log writer and the one cell
 * renderer, over generated hostile strings; the lint rule that keeps every log line going
 * through the writer. The same through the bundled action: reliability/untrusted-log.test.ts.
 */
import { jest } from '@jest/globals'
import { ESLint } from 'eslint'
import fc from 'fast-check'
import { join } from 'node:path'
import { foreignCommands, hostileText, runnerCommands } from '../../__fixtures__/runner-commands.js'
import { actionLog, failStep, WARNING_ANNOTATIONS } from '../../src/runner/log-writer.js'
import { cell, codeCell } from '../../src/runner/markdown.js'
import { cliLog } from '../../src/runner/stdio-writer.js'
import { logLine, logLines } from '../../src/shared/untrusted.js'

fc.configureGlobal({ seed: Number(process.env['FC_SEED'] ?? 20261122) })

/** What the action's log writer puts on stdout while `act` runs. */
function stdoutOf(act: () => void): string {
  let written = ''
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation(chunk => {
    written += String(chunk)
    return true
  })
  try {
    act()
  } finally {
    spy.mockRestore()
    process.exitCode = undefined
  }
  return written
}

describe('the log writer', () => {
  test('no generated string becomes a workflow command, at any level', () => {
    let warnings = 0
    fc.assert(
      fc.property(hostileText(), text => {
        const out = stdoutOf(() => {
          actionLog.info(text)
          actionLog.warning(text)
          actionLog.debug(text)
          failStep(`Failed: ${text}\n  ${text}`)
        })
        expect(foreignCommands(out)).toEqual([])
        // One line per message, and the failure's two lines in one `::error::` command; the
        // warning past GitHub's annotations adds the line that says the rest are log lines.
        warnings++
        expect(out.split('\n')).toHaveLength(warnings === WARNING_ANNOTATIONS + 1 ? 6 : 5)
      }),
      { numRuns: 2000 }
    )
  })

  test('the command line writes lines of the same kind', () => {
    fc.assert(
      fc.property(hostileText(), fc.boolean(), (text, debug) => {
        let out = ''
        const log = cliLog(t => (out += t), debug)
        log.info(text)
        log.warning(text)
        log.debug(text)
        expect(runnerCommands(out)).toEqual([])
        expect(runnerCommands(logLines(`${text}\n${text}`))).toEqual([])
      }),
      { numRuns: 2000 }
    )
  })

  test('the escaped form reads as the text: JSON escapes, nothing dropped', () => {
    fc.assert(
      fc.property(
        hostileText().filter(t => !/["\\]/.test(t)),
        text => {
          // `\::` at the start is the one mark that is not JSON's.
          const line = logLine(text).replace(/^(\s*)\\::/, '$1::')
          expect(JSON.parse(`"${line}"`)).toBe(text)
        }
      ),
      { numRuns: 2000 }
    )
  })

  test.each([
    ['a line feed', 'web\n::add-mask::x', 'web\\n::add-mask::x'],
    ['a lone carriage return', 'done\r::error::x', 'done\\r::error::x'],
    ['`##[` with no control character', '##[add-mask]secret', '##\\u005badd-mask]secret'],
    ['a leading `::` after white space', '  ::stop-commands::t', '  \\::stop-commands::t'],
    ['an escape sequence', '\u001b[31mred', '\\u001b[31mred'],
    ['a next-line character', 'a\u0085::b', 'a\\u0085::b']
  ])('%s', (_what, text, shown) => {
    expect(logLine(text)).toBe(shown)
    expect(runnerCommands(logLine(text))).toEqual([])
  })

  test('JSON through the writer stays the same JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), hostileText(), (value, text) => {
        const json = JSON.stringify({ value, text })
        expect(JSON.parse(logLines(json))).toEqual(JSON.parse(json))
        expect(runnerCommands(logLines(json))).toEqual([])
      }),
      { numRuns: 1000 }
    )
  })
})

/** `markdown` with each code span (a backtick run, to the next run of the same length) cut out. */
function withoutCodeSpans(markdown: string): string {
  let out = ''
  let i = 0
  while (i < markdown.length) {
    const open = /`+/.exec(markdown.slice(i))
    if (!open) return out + markdown.slice(i)
    out += markdown.slice(i, i + open.index)
    const start = i + open.index + open[0].length
    const close = [...markdown.slice(start).matchAll(/`+/g)].find(
      m => m[0].length === open[0].length
    )
    if (!close) return out + markdown.slice(i + open.index)
    out += ' '
    i = start + (close.index ?? 0) + open[0].length
  }
  return out
}

describe('summary cells', () => {
  // How GitHub renders them (cmark-gfm, its filters): __tests__/unit/summary-gfm.test.ts.
  test('any generated string: outside code spans, plain words only, no markup character', () => {
    fc.assert(
      fc.property(hostileText(), text => {
        const shown = cell(text)
        const prose = withoutCodeSpans(shown)
        // eslint-disable-next-line no-control-regex
        expect(prose).not.toMatch(/[`*_~[\]|$<>&@#\\/=+\u0000-\u001f\u007f-\u009f\u2028\u2029]/)
        expect(prose).not.toMatch(/www\.|[0-9a-f]{7}/i)
      }),
      { numRuns: 3000 }
    )
  })

  test.each([
    ['a CR ends no row', 'a\rb', '`a\\rb`'],
    ['a comment hides nothing', '<!-- x', '`<!--` x'],
    ['an image is code', '<img src=x>', '`<img src=x>`'],
    ['a link is code', 'see [t](https://e.example) now', 'see `[t](https://e.example)` now'],
    ['an escaped mention is code, not a bare @', 'ping \\@octocat', 'ping `\\@octocat`'],
    ['a pipe is escaped even in code', 'a|b', '`a\\|b`']
  ])('%s', (_what, text, rendered) => {
    expect(cell(text)).toBe(rendered)
  })

  test('inline code: a fence longer than any backtick run, one line, pipes escaped', () => {
    fc.assert(
      fc.property(hostileText(), text => {
        const code = codeCell(text)
        // empty text is nothing: an empty code span is not one
        if (text === '') return expect(code).toBe('')
        const fence = /^`+/.exec(code)?.[0] as string
        expect(code.endsWith(fence)).toBe(true)
        const inside = code.slice(fence.length, -fence.length)
        expect([...inside.matchAll(/`+/g)].every(m => m[0].length !== fence.length)).toBe(true)
        // eslint-disable-next-line no-control-regex
        expect(inside).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/)
        expect(inside.replace(/\\\|/g, '')).not.toContain('|')
      }),
      { numRuns: 3000 }
    )
  })
})

describe('nothing logs around the writer', () => {
  const eslint = new ESLint({ cwd: join(import.meta.dirname, '../..') })
  test.each([
    [
      "core.info('x')",
      "import * as core from '@actions/core'\nexport const f = () => core.info('x')\n"
    ],
    [
      "{ warning } from '@actions/core'",
      "import { warning } from '@actions/core'\nexport const f = () => warning('x')\n"
    ],
    ['process.stdout.write', "export const f = () => process.stdout.write('x')\n"],
    ['console.log', "export const f = () => console.log('x')\n"]
  ])('%s in src/ fails the lint', async (_what, code) => {
    const [result] = await eslint.lintText(code, { filePath: 'src/somewhere.ts' })
    expect(result?.messages.map(m => m.ruleId)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^no-(restricted-(properties|syntax)|console)$/)
      ])
    )
  })

  test('the writers themselves may', async () => {
    const [result] = await eslint.lintText(
      "import * as core from '@actions/core'\nexport const f = () => core.info('x')\n",
      {
        filePath: 'src/runner/log-writer.ts'
      }
    )
    expect(result?.messages).toEqual([])
  })
})

describe('bidirectional controls', () => {
  // A label `deployed` + U+202E + `dorp` reads "deployedprod"; each control shows as its escape.
  test.each([
    ['a right-to-left override', '\u202e', '\\u202e'],
    ['a right-to-left mark', '\u200f', '\\u200f'],
    ['an isolate', '\u2067', '\\u2067'],
    ['an Arabic letter mark', '\u061c', '\\u061c']
  ])('%s shows as its escape, in the log and the summary', (_what, control, escaped) => {
    const name = `deployed${control}dorp`
    expect(stdoutOf(() => actionLog.info(`Label ${name} is as described`))).toBe(
      `Label deployed${escaped}dorp is as described\n`
    )
    expect(codeCell(name)).toBe(`\`deployed${escaped}dorp\``)
    expect(cell(name)).toBe(`\`deployed${escaped}dorp\``)
  })
})
