import { runAction } from '../../scripts/run-action.js'
import {
  DIGEST,
  smallestWriteGap,
  TOKEN,
  withEmulator,
  writesOf
} from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator()
})
afterAll(async () => emulator.close())
beforeEach(() => emulator.reset())

const runnerEnv = () => ({
  GITHUB_REPOSITORY: 'acme/web',
  GITHUB_API_URL: emulator.url,
  GITHUB_SHA: 'f'.repeat(40),
  GITHUB_EVENT_NAME: 'workflow_dispatch'
})

/** What the runner shows: its own `::add-mask::` command is consumed, never displayed. */
const visible = (text: string) =>
  text
    .split('\n')
    .filter(line => !line.startsWith('::add-mask::'))
    .join('\n')

test('the bundled action records both records from INPUT_* variables and writes its outputs', async () => {
  const run = await runAction(
    {
      token: TOKEN,
      'api-url': '',
      digest: `ghcr.io/acme/web@${DIGEST}`,
      version: '2.0.0',
      environment: 'staging',
      cluster: 'stage-1',
      'registry-url': 'https://ghcr.io',
      'dry-run': 'false',
      'max-retries': '3'
    },
    runnerEnv()
  )
  expect(run.stderr).toBe('')
  expect(run.code).toBe(0)
  expect(writesOf(emulator.requests).map(r => `${r.method} ${r.path} ${r.status}`)).toEqual([
    'POST /orgs/acme/artifacts/metadata/storage-record 200',
    'POST /orgs/acme/artifacts/metadata/deployment-record 200'
  ])
  expect(smallestWriteGap(emulator.requests)).toBeGreaterThanOrEqual(1000)
  const deployment = JSON.parse(run.outputs['deployment-records'] ?? '')
  expect(deployment[0]).toMatchObject({
    digest: DIGEST,
    logical_environment: 'staging',
    cluster: 'stage-1',
    deployment_name: 'web'
  })
  expect(run.outputs['deployment-record-ids']).toBe(String(deployment[0].id))
  expect(JSON.parse(run.outputs['storage-records'] ?? '')[0]).toMatchObject({
    name: 'ghcr.io/acme/web',
    registry_url: 'https://ghcr.io'
  })
  expect(run.outputs['planned']).toBe('[]')
  expect(run.summary).toMatch(/## Deployment recorded/)
  // the artifact as given and its version, where, and the deployment's name
  expect(run.summary).toMatch(
    /\| Deployment record \| `ghcr.io\/acme\/web` \| `2.0.0` \| `staging` \/ `stage-1` as `web` \|/
  )
  expect(run.stdout).toMatch(
    /Recorded deployment record web \(deployed\) in staging\/stage-1: id \d+/
  )
})

test('bad input fails before any request, naming every bad input in one message', async () => {
  const run = await runAction(
    {
      token: TOKEN,
      digest: 'sha512:abc',
      environment: 'production',
      cluster: 'prod eu',
      'max-retries': 'lots'
    },
    runnerEnv()
  )
  expect(run.code).toBe(1)
  expect(emulator.requests).toEqual([])
  const errors = run.stdout.split('\n').filter(line => line.startsWith('::error::'))
  expect(errors).toHaveLength(1)
  for (const input of ['digest', 'cluster', 'max-retries'])
    expect(errors[0]).toContain(`- ${input}:`)
})

test('a failure part way keeps what succeeded in the outputs and fails the step', async () => {
  emulator.addFault({
    method: 'POST',
    path: '/orgs/acme/artifacts/metadata/deployment-record',
    fault: { kind: 'status', status: 404, body: { message: 'Not Found' } }
  })
  const run = await runAction(
    {
      token: TOKEN,
      digest: DIGEST,
      name: 'ghcr.io/acme/web',
      environment: 'production',
      'registry-url': 'https://ghcr.io'
    },
    runnerEnv()
  )
  expect(run.code).toBe(1)
  expect(JSON.parse(run.outputs['storage-records'] ?? '')).toHaveLength(1)
  expect(run.outputs['deployment-records']).toBe('[]')
  expect(run.stdout).toMatch(/::error::1 of the step's calls failed/)
  expect(run.stdout).toMatch(/artifact-metadata: write/)
  expect(run.summary).toMatch(/### Failed/)
})

test('the token is never printed, debug logging on, even when the service refuses it', async () => {
  const secret = 'ghs_' + 'Q'.repeat(36)
  const env = { ...runnerEnv(), RUNNER_DEBUG: '1', GITHUB_TOKEN: secret }
  const refused = await runAction(
    { token: secret, digest: DIGEST, name: 'web', environment: 'production' },
    env
  )
  expect(refused.code).toBe(1)
  expect(refused.stdout).toContain(`::add-mask::${secret}`)
  expect(visible(refused.stdout)).not.toContain(secret)
  expect(refused.stderr).not.toContain(secret)
  expect(refused.stdout).toMatch(
    /::debug::POST \/orgs\/acme\/artifacts\/metadata\/deployment-record -> 401/
  )

  const bad = await runAction(
    { token: `${secret} x`, digest: 'nope', environment: 'production' },
    env
  )
  expect(bad.code).toBe(1)
  expect(visible(bad.stdout)).not.toContain(secret)
})

test('labels go on the listed pull requests after the record; outputs and summary say which', async () => {
  emulator.seed({
    labels: { 'acme/web': [{ name: 'deployed:staging', color: 'fbca04' }] },
    pulls: {
      'acme/web': [
        { number: 7, title: 'Seven', labels: ['deployed:staging'] },
        { number: 8, title: 'Eight' }
      ]
    }
  })
  const run = await runAction(
    {
      token: TOKEN,
      digest: DIGEST,
      name: 'ghcr.io/acme/web',
      environment: 'production',
      labels: 'deployed:production',
      'remove-labels': 'deployed:staging',
      'pull-requests': '7, 8',
      'label-linked-issues': 'false'
    },
    runnerEnv()
  )
  expect(run.stderr).toBe('')
  expect(run.code).toBe(0)
  const writes = writesOf(emulator.requests).map(r => `${r.method} ${decodeURIComponent(r.path)}`)
  expect(writes[0]).toBe('POST /orgs/acme/artifacts/metadata/deployment-record')
  expect(writes.slice(1).sort()).toEqual(
    [
      'POST /repos/acme/web/issues/7/labels',
      'DELETE /repos/acme/web/issues/7/labels/deployed:staging',
      'POST /repos/acme/web/issues/8/labels'
    ].sort()
  )
  expect(JSON.parse(run.outputs['labeled'] ?? '')).toEqual([
    { number: 7, added: ['deployed:production'], removed: ['deployed:staging'] },
    { number: 8, added: ['deployed:production'], removed: [] }
  ])
  expect(run.outputs['pull-requests']).toBe('7,8')
  expect(run.summary).toMatch(/### Labeled \(2\)/)
  expect(smallestWriteGap(emulator.requests)).toBeGreaterThanOrEqual(1000)
})
