/**
 * The one-line summary CI reads, from a real jest run over suites made for the purpose: one that
 * passes, one with a failing test, one that does not load, one whose afterAll hook fails.
 */
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'

const ROOT = resolve(import.meta.dirname, '../..')
const JEST = join(ROOT, 'node_modules/jest/bin/jest.js')
const REPORTER = join(ROOT, 'scripts/jest-plain-summary.js')

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plain-summary-'))
  await mkdir(join(dir, '__tests__'))
  const config = { reporters: [REPORTER], testMatch: ['**/__tests__/*.test.js'], transform: {} }
  await writeFile(join(dir, 'jest.config.json'), JSON.stringify(config))
})
afterAll(async () => rm(dir, { recursive: true, force: true }))

const SUITES: Record<string, string> = {
  'passes.test.js': "test('a', () => expect(1).toBe(1))\ntest.skip('b', () => {})\n",
  'fails.test.js': "test('c', () => expect(1).toBe(2))\n",
  'does-not-load.test.js':
    "const { nothing } = require('./missing.js')\ntest('d', () => nothing())\n",
  'hook-fails.test.js':
    "afterAll(() => { throw new Error('figures wrong') })\ntest('e', () => expect(1).toBe(1))\n"
}

/** The summary line of a jest run over the named suites only. */
async function summaryOf(names: string[]): Promise<{ line: string; code: number }> {
  for (const name of names) await writeFile(join(dir, '__tests__', name), SUITES[name] ?? '')
  const run = promisify(execFile)(
    process.execPath,
    [JEST, '--ci', ...names.map(n => `__tests__/${n}`)],
    { cwd: dir, env: { ...process.env, NODE_OPTIONS: '' } }
  )
  const { stdout, code } = await run.then(
    r => ({ stdout: r.stdout, code: 0 }),
    (e: { stdout: string; code: number }) => ({ stdout: e.stdout, code: e.code })
  )
  for (const name of names) await rm(join(dir, '__tests__', name))
  return { line: stdout.split('\n').find(l => l.startsWith('tests:')) ?? '', code }
}

test('passing and failing tests are counted', async () => {
  expect(await summaryOf(['passes.test.js', 'fails.test.js'])).toEqual({
    line: 'tests: 1 passed, 1 failed, 1 skipped',
    code: 1
  })
})

test('a suite that does not load is named, not "0 failed"', async () => {
  expect(await summaryOf(['passes.test.js', 'does-not-load.test.js'])).toEqual({
    line: 'tests: 1 passed, 0 failed, 1 skipped; 1 suite failed to run: __tests__/does-not-load.test.js',
    code: 1
  })
})

test('a failing afterAll hook is named too', async () => {
  expect(await summaryOf(['hook-fails.test.js'])).toEqual({
    line: 'tests: 1 passed, 0 failed, 0 skipped; 1 suite failed to run: __tests__/hook-fails.test.js',
    code: 1
  })
}, 30_000)
