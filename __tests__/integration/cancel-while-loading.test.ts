/**
 * Cancel while dist/undici.js is being evaluated (stalled by a preload written by the test; a loader
 * hook would block the main thread from the import on): SIGINT, then SIGTERM as the runner does.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DIGEST, TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'
import { runAction } from '../../scripts/run-action.js'

let emulator: Emulator
let dir: string
let preload: string
beforeAll(async () => {
  emulator = await withEmulator()
  dir = mkdtempSync(join(tmpdir(), 'cancel-while-loading-'))
  preload = join(dir, 'slow-undici.mjs')
  // dist/undici.js asks for node:net as it is evaluated: there the start stalls, busy, for
  // SLOW_UNDICI_MS, after writing SLOW_UNDICI_MARK (signals arrive while undici.js loads).
  writeFileSync(
    preload,
    "const { writeFileSync } = process.getBuiltinModule('node:fs')\n" +
      'const lookup = process.getBuiltinModule\nlet stalled = false\n' +
      'process.getBuiltinModule = function (id) {\n' +
      "  if (!stalled && id === 'node:net') {\n" +
      '    stalled = true\n    writeFileSync(process.env.SLOW_UNDICI_MARK, String(Date.now()))\n' +
      '    const end = Date.now() + Number(process.env.SLOW_UNDICI_MS)\n    while (Date.now() < end);\n  }\n' +
      '  return lookup.call(this, id)\n}\n'
  )
})
afterAll(async () => {
  await emulator.close()
  rmSync(dir, { recursive: true, force: true })
})
beforeEach(() => emulator.reset())

const record = { digest: `ghcr.io/acme/web@${DIGEST}`, environment: 'production' }

/**
 * The cancel listener is installed before `await import('./undici.js')` (main.ts: listenForCancel
 * before `await loading`), so a signal that arrives while dist/undici.js is evaluated is taken,
 * not a kill. Its handler runs only when the event loop next turns, and the import's continuation
 * (the run's modules, the first job, the request handed to undici) is one chain of promises: the
 * client lets the loop turn before each request, so the cancel is seen before anything is sent.
 */
test.each([
  ['SIGINT', [{ signal: 'SIGINT' as const }]],
  [
    'SIGINT then SIGTERM',
    [{ signal: 'SIGINT' as const }, { signal: 'SIGTERM' as const, afterMs: 100 }]
  ]
])(
  '%s while dist/undici.js is evaluated, before any request: nothing is sent, and the summary says nothing was written',
  async (_what, [first, ...rest]) => {
    const mark = join(dir, `mark-${Math.random()}`)
    const run = await runAction(
      record,
      { NODE_OPTIONS: `--import=${preload}`, SLOW_UNDICI_MS: '800', SLOW_UNDICI_MARK: mark },
      {
        context: { token: TOKEN, apiUrl: emulator.url, eventName: 'push' },
        signals: [{ ...first!, when: () => existsSync(mark), afterMs: 50 }, ...rest]
      }
    )
    // The signals came while undici.js was being evaluated, before the first request.
    expect(existsSync(mark)).toBe(true)
    expect(run.signal).toBeNull()
    expect(run.code).toBe(1)
    expect(run.stderr).toBe('')
    expect(run.stdout).toMatch(/Cancel requested \(SIGINT\)/)
    // Not sent (it was, before the client let the loop turn: SIGINT recorded it "in part"; SIGINT
    // then SIGTERM cut it in flight, "1 writes were sent", "may or may not have applied it").
    expect(emulator.requests.map(r => `${r.method} ${r.path}`)).toEqual([])
    expect(run.summary).toMatch(/## Cancelled \(SIGINT\): nothing was written/)
    expect(run.summary).not.toMatch(/may or may not have applied|1 writes were sent/)
    expect(run.outputs['deployment-record-ids']).toBe('')
  }
)
