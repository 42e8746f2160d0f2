/**
 * What the bundled action loads of Node's own modules between its start and its first request
 * (a single record), counted through a preload that lists them at the first socket: what can wait
 * is not loaded by then. Timings are the benchmark's (README "Performance"); this holds the cause.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
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

test('before its first request the action loads no node:http, node:assert, fs/promises, readline or perf_hooks', async () => {
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
  const waiting = ['http', 'assert', 'fs/promises', 'internal/readline/interface', 'perf_hooks']
  expect(waiting.filter(name => loaded.includes(name))).toEqual([])
})
