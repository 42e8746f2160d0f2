/**
 * What the bundled action loads of Node's own modules between its start and its first request
 * (a single record), counted through a preload that lists them at the first socket: what can wait
 * is not loaded by then. Timings are the benchmark's (README "Performance"); this holds the cause.
 */
import { parse } from 'acorn'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DIGEST, TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'
import { projectRoot, runAction } from '../../scripts/run-action.js'

let emulator: Emulator
let dir: string
beforeAll(async () => {
  emulator = await withEmulator()
  dir = mkdtempSync(join(tmpdir(), 'start-up-'))
})
afterAll(async () => {
  await emulator.close()
  rmSync(dir, { recursive: true, force: true })
})

test('before its first request the action loads no node:http, node:assert, fs/promises, readline, perf_hooks or child_process', async () => {
  const list = join(dir, 'modules.txt')
  const preload = join(projectRoot(), '__fixtures__/first-request-modules.mjs')
  const run = await runAction(
    { digest: `ghcr.io/acme/web@${DIGEST}`, environment: 'production' },
    { NODE_OPTIONS: `--import=${preload}`, FIRST_REQUEST_MODULES: list },
    { context: { token: TOKEN, apiUrl: emulator.url, eventName: 'push' } }
  )

  expect(run.code).toBe(0)
  const loaded = readFileSync(list, 'utf8').trim().split('\n')
  // What the action does load (its own modules come through the ES module loader) is listed.
  expect(loaded.length).toBeGreaterThan(0)
  // child_process: @actions/exec, evaluated only when git reads a range.
  const waiting = [
    'http',
    'assert',
    'fs/promises',
    'internal/readline/interface',
    'perf_hooks',
    'child_process'
  ]
  expect(waiting.filter(name => loaded.includes(name))).toEqual([])
})

test('the action is two files, at most 425 kB together: bad input reads only the first, without undici', async () => {
  const dist = join(projectRoot(), 'dist')
  // Two modules for the ES module loader to resolve, read and link before the first request (it
  // was five); what a run needs only once its inputs are sound is evaluated then, not at load.
  expect(readdirSync(dist).filter(name => /\.m?js$/.test(name) || !name.includes('.'))).toEqual([
    'cli.js',
    'index.js',
    'undici.js'
  ])
  const size = (file: string) => statSync(join(dist, file)).size
  // 355 kB when this was written: undici.js 160 kB (65 kB of it its HTTP parser's WebAssembly);
  // 364 kB with the redaction point, the one safe-text module and the release-tools rules; 374 kB
  // with `paths` (its glob matcher, each pull request's files from git or the service, their
  // messages: 7.6 kB); 5.5 kB more with the job summary's what and where, its fixes and the
  // grouped annotations (issue 45); 409 kB with the pacing under GitHub's hourly limits, the
  // streaming kubectl reader, the previous deployment and backports (issues 43 and 44; the cold
  // start it costs is docs/performance.md's).
  expect(size('index.js') + size('undici.js')).toBeLessThanOrEqual(425_000)
  expect(readFileSync(join(dist, 'index.js'), 'utf8')).not.toMatch(/undici\.error\.UND_ERR/)

  // Without dist/undici.js, bad input is answered all the same; a sound run needs the file.
  const copy = join(dir, 'dist-without-undici')
  cpSync(dist, copy, { recursive: true })
  rmSync(join(copy, 'undici.js'))
  const entry = join(copy, 'index.js')
  emulator.reset()
  const bad = await runAction(
    { digest: 'sha512:nope', environment: 'production' },
    {},
    { entry, context: { token: TOKEN, apiUrl: emulator.url } }
  )
  expect(bad.code).toBe(1)
  expect(bad.stdout).toMatch(/^::error::.*digest/m)
  expect(bad.stdout + bad.stderr).not.toMatch(/undici/)
  const sound = await runAction(
    { digest: `ghcr.io/acme/web@${DIGEST}`, environment: 'production' },
    {},
    { entry, context: { token: TOKEN, apiUrl: emulator.url } }
  )
  expect(sound.code).not.toBe(0)
  expect(sound.stdout + sound.stderr).toMatch(/undici\.js/)
  expect(emulator.requests).toEqual([])
})

/**
 * The top-level `var x = f((exports, module) => { ... })` of a bundle file: esbuild's wrapper of
 * each CommonJS module (undici's), with whether the function is in parentheses.
 */
function commonJsWrappers(file: string): { parenthesized: boolean }[] {
  const source = readFileSync(join(projectRoot(), 'dist', file), 'utf8')
  const program = parse(source, {
    ecmaVersion: 'latest',
    sourceType: 'module',
    preserveParens: true
  })
  const wrappers: { parenthesized: boolean }[] = []
  for (const statement of program.body) {
    if (statement.type !== 'VariableDeclaration') continue
    for (const { init } of statement.declarations) {
      if (init?.type !== 'CallExpression' || init.callee.type !== 'Identifier') continue
      if (init.arguments.length !== 1) continue
      const [argument] = init.arguments
      const parenthesized = argument?.type === 'ParenthesizedExpression'
      const inner = parenthesized ? argument.expression : argument
      if (inner?.type === 'ArrowFunctionExpression' && inner.body.type === 'BlockStatement')
        wrappers.push({ parenthesized })
    }
  }
  return wrappers
}

test("undici's modules are compiled in one pass: each module's function is in parentheses, in the action and the command line", () => {
  for (const file of ['undici.js', 'cli.js']) {
    const wrappers = commonJsWrappers(file)
    expect({ file, count: wrappers.length > 20 }).toEqual({ file, count: true })
    expect({ file, lazy: wrappers.filter(w => !w.parenthesized).length }).toEqual({ file, lazy: 0 })
  }
})

test("Node's own modules are read through their prototype, none of their properties copied at each import", () => {
  const dist = join(projectRoot(), 'dist')
  const files = ['index.js', 'undici.js', 'cli.js']
  const lookups: { file: string; module: string; copied: boolean }[] = []
  for (const file of files) {
    const text = readFileSync(join(dist, file), 'utf8')
    const shims =
      /var ([\w$]+)=process\.getBuiltinModule\("(node:[^"]+)"\);[\w$]+\.exports=([^}]*)\}/g
    for (const [, name, module, exported] of text.matchAll(shims)) {
      const through = `typeof ${name}=="function"?${name}:Object.create(${name})`
      lookups.push({ file, module: module as string, copied: exported !== through })
    }
  }
  // node:fs, os, path, buffer, child_process, ... in each file
  expect(lookups.length).toBeGreaterThan(5)
  expect(lookups.filter(lookup => lookup.copied)).toEqual([])
})
