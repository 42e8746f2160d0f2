// README, Permissions: "`artifact-metadata: write` (`read` is enough for `dry-run`)". Held through
// the bundled action against the emulator, which grants a token only what it is given: a token
// with `artifact-metadata: read` previews a deployment and a storage record, and the same token
// is refused the real writes (so the grant is really read-only).
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'
import { runAction } from '../../scripts/run-action.js'

const DIGEST = 'sha256:' + 'b'.repeat(64)

let emulator: Emulator
beforeEach(async () => {
  emulator = await withEmulator({
    tokens: { [TOKEN]: { permissions: ['artifact-metadata: read'] } }
  })
})
afterEach(async () => emulator.close())

const step = (dryRun: string) =>
  runAction(
    {
      token: TOKEN,
      digest: `ghcr.io/acme/web@${DIGEST}`,
      environment: 'production',
      'registry-url': 'https://ghcr.io',
      'dry-run': dryRun
    },
    { GITHUB_REPOSITORY: 'acme/web', GITHUB_API_URL: emulator.url }
  )

test('dry-run with artifact-metadata: read reads, plans both writes and passes', async () => {
  const run = await step('true')
  expect(run.code).toBe(0)
  expect(emulator.requests.every(r => r.method === 'GET')).toBe(true)
  expect(emulator.requests.filter(r => r.status === 403)).toEqual([])
  const planned = JSON.parse(run.outputs['planned'] ?? '[]') as Array<{ path: string }>
  expect(planned.map(p => p.path)).toEqual([
    '/orgs/acme/artifacts/metadata/storage-record',
    '/orgs/acme/artifacts/metadata/deployment-record'
  ])
}, 30_000)

test('the same token is refused the writes, naming artifact-metadata: write', async () => {
  const run = await step('false')
  expect(run.code).not.toBe(0)
  expect(run.stdout).toMatch(/artifact-metadata: write/)
  expect(emulator.requests.filter(r => r.method === 'POST').map(r => r.status)).toContain(403)
}, 30_000)
