// README, Whole cluster from kubectl: "Files above 1 GiB ... fail before any request." Held
// through the bundled action with a sparse file (no disk is used for its zeros): one byte over
// the limit is refused by its size, naming the file, before any request.
import { mkdtemp, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'
import { runAction } from '../../scripts/run-action.js'

const GIB = 1024 * 1024 * 1024 // the README's figure, written out here, not read from src/

let emulator: Emulator
let dir: string
beforeEach(async () => {
  emulator = await withEmulator()
  dir = await mkdtemp(join(tmpdir(), 'kubernetes-file-size-'))
})
afterEach(async () => {
  await emulator.close()
  await rm(dir, { recursive: true, force: true })
})

async function sparse(name: string, size: number) {
  const file = await open(join(dir, name), 'w')
  await file.truncate(size)
  await file.close()
}
const step = (file: string) =>
  runAction(
    { token: TOKEN, 'kubernetes-file': file, cluster: 'prod-eu-1', environment: 'production' },
    { GITHUB_REPOSITORY: 'acme/web', GITHUB_API_URL: emulator.url, GITHUB_WORKSPACE: dir }
  )
const errorOf = (stdout: string) => stdout.split('\n').find(l => l.startsWith('::error')) ?? ''

test('a kubernetes-file one byte over 1 GiB fails before any request, naming the file and its size', async () => {
  await sparse('huge.json', GIB + 1)
  const run = await step('huge.json')
  expect(run.code).not.toBe(0)
  expect(errorOf(run.stdout)).toContain(
    `\`huge.json\` is ${GIB + 1} bytes; at most ${GIB} are read`
  )
  expect(emulator.requests).toEqual([])
}, 60_000)
