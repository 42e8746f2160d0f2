/**
 * What the `state-file` tests share: the state file's path, a digest spelled from a workload's
 * name (so a record shows whose it is), and one emulator per test file with a fresh workspace per
 * test. `emulator` and `workspace` are live bindings: read them inside tests, after the hooks ran.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { withEmulator } from './emulator.js'
import type { Emulator } from '../emulator/index.js'

export const STATE = '.record-deployment/prod-eu-1.json'

/** `sha256:` and the hex of `word`'s characters, padded: `digest('web')` names web's image. */
export const digest = (word: string) =>
  'sha256:' +
  [...word]
    .map(ch => ch.charCodeAt(0).toString(16))
    .join('')
    .padEnd(64, '0')

export let emulator: Emulator
export let workspace: string

/** Registers the hooks: one emulator for the file, a new workspace (named `prefix`) per test. */
export function useStateWorkspace(prefix: string, repos: string[] = ['acme/web']): void {
  beforeAll(async () => {
    emulator = await withEmulator({ jobStepMs: 5, repos })
  })
  afterAll(async () => emulator.close())
  beforeEach(async () => {
    emulator.reset()
    workspace = await mkdtemp(join(tmpdir(), `${prefix}-`))
  })
  afterEach(async () => rm(workspace, { recursive: true, force: true }))
}
