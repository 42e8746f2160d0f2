/**
 * Data as the user means it, through the bundled action started by the launcher against the
 * emulator: the image a `digest` names, a write answered without its record, enumerated words in
 * any letter case, and tags that hold control characters.
 */
import { TOKEN, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'
import { runAction } from '../../scripts/run-action.js'

const HEX = '0123456789abcdef'.repeat(4)
const DIGEST = `sha256:${HEX}`
const STORAGE = '/orgs/acme/artifacts/metadata/storage-record'
const DEPLOYMENT = '/orgs/acme/artifacts/metadata/deployment-record'
const CLUSTER = '/orgs/acme/artifacts/metadata/deployment-record/cluster/prod-eu-1'

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator({ jobStepMs: 10, pollIntervalSeconds: 1 })
})
afterAll(async () => emulator.close())
beforeEach(() => emulator.reset())

const go = (inputs: Record<string, string>) =>
  runAction({ token: TOKEN, 'api-url': emulator.url, ...inputs }, { GITHUB_REPOSITORY: 'acme/web' })
const bodyOf = (path: string) =>
  writesOf(emulator.requests).find(r => r.path === path)?.body as Record<string, unknown>

describe('the image of `digest`: name without tag or digest, version from the tag', () => {
  test.each([
    [`ghcr.io/acme/web:1.4.2@${DIGEST}`, {}, { name: 'ghcr.io/acme/web', version: '1.4.2' }],
    // A registry's port is not a tag.
    [`registry.internal:5000/team/api@${DIGEST}`, {}, { name: 'registry.internal:5000/team/api' }],
    [`localhost:5000/app:v2@${DIGEST}`, {}, { name: 'localhost:5000/app', version: 'v2' }],
    // Upper-case hex is the same digest.
    [
      `ghcr.io/acme/web:1.4.2@sha256:${HEX.toUpperCase()}`,
      {},
      { name: 'ghcr.io/acme/web', version: '1.4.2' }
    ],
    // What the user gives wins over what the image says.
    [
      `ghcr.io/acme/web:1.4.2@${DIGEST}`,
      { version: '1.4.2-build.7', name: 'web-frontend' },
      { name: 'web-frontend', version: '1.4.2-build.7' }
    ]
  ])('%s %j records %j', async (digest, more, expected) => {
    const run = await go({
      digest,
      environment: 'production',
      'registry-url': 'https://ghcr.io',
      ...more
    })
    expect(run.code).toBe(0)
    for (const path of [STORAGE, DEPLOYMENT]) {
      const body = bodyOf(path)
      expect({
        path,
        name: body['name'],
        version: body['version'],
        digest: body['digest']
      }).toEqual({
        path,
        name: expected.name,
        version: 'version' in expected ? expected.version : undefined,
        digest: DIGEST
      })
    }
    // The deployment name is the image's last segment, as before.
    expect(bodyOf(DEPLOYMENT)['deployment_name']).toBe(
      'name' in more ? 'web-frontend' : expected.name.split('/').pop()
    )
  })
})

describe('a record write answered 200 without its record', () => {
  test.each([
    ['{}', {}],
    ['an empty body', ''],
    ['no records', { total_count: 0, deployment_records: [] }]
  ])(
    'deployment record, %s: recorded, with a warning, in the outputs and the summary',
    async (_, body) => {
      emulator.addFault({
        method: 'POST',
        path: DEPLOYMENT,
        fault: { kind: 'status', status: 200, body }
      })
      const run = await go({ digest: `ghcr.io/acme/web@${DIGEST}`, environment: 'production' })
      expect(run.code).toBe(0)
      expect(bodyOf(DEPLOYMENT)['return_records']).toBe(true)
      expect(run.outputs['deployment-records']).toBe('[]')
      expect(run.outputs['deployment-record-ids']).toBe('')
      expect(run.outputs['no-record-returned']).toBe('deployment-record')
      expect(run.stdout).toMatch(
        /::warning::deployment record web \(deployed\) in production: the service accepted the write but returned no record/
      )
      expect(run.summary).toContain(
        'The service accepted the deployment record write but returned no record'
      )
    }
  )

  test('storage record answered {}, deployment record answered in full: only the storage record is named', async () => {
    emulator.addFault({
      method: 'POST',
      path: STORAGE,
      fault: { kind: 'status', status: 200, body: {} }
    })
    const run = await go({
      digest: `ghcr.io/acme/web@${DIGEST}`,
      environment: 'production',
      'registry-url': 'https://ghcr.io'
    })
    expect(run.code).toBe(0)
    expect(run.outputs['no-record-returned']).toBe('storage-record')
    expect(run.outputs['deployment-record-ids']).toMatch(/^\d+$/)
    expect(run.stdout).toMatch(
      /::warning::storage record for ghcr.io\/acme\/web at https:\/\/ghcr.io: the service accepted the write but returned no record/
    )
    expect(run.summary).toContain(
      'The service accepted the storage record write but returned no record'
    )
  })
})

describe('enumerated inputs: one rule, any letter case', () => {
  const single = { digest: `ghcr.io/acme/web@${DIGEST}`, environment: 'production' }
  test.each([
    ['status', { ...single, status: 'Decommissioned' }, DEPLOYMENT, { status: 'decommissioned' }],
    ['status (the default)', { ...single, status: 'DEPLOYED' }, DEPLOYMENT, { status: 'deployed' }],
    [
      'storage-status',
      { ...single, 'registry-url': 'https://ghcr.io', 'storage-status': 'EOL' },
      STORAGE,
      { status: 'eol' }
    ],
    [
      'runtime-risks',
      { ...single, 'runtime-risks': 'Internet-Exposed, SENSITIVE-DATA' },
      DEPLOYMENT,
      { runtime_risks: ['internet-exposed', 'sensitive-data'] }
    ],
    [
      'cluster-mode',
      {
        cluster: 'prod-eu-1',
        environment: 'production',
        'cluster-mode': 'Job',
        deployments: JSON.stringify([
          { name: 'ghcr.io/acme/web', digest: DIGEST, deployment_name: 'web' }
        ])
      },
      `${CLUSTER}/jobs`,
      { logical_environment: 'production' }
    ],
    [
      'partial-success',
      {
        cluster: 'prod-eu-1',
        environment: 'production',
        'partial-success': 'True',
        deployments: JSON.stringify([
          { name: 'ghcr.io/acme/web', digest: DIGEST, deployment_name: 'web' }
        ])
      },
      CLUSTER,
      { partial_success: true }
    ]
  ])('%s', async (_, inputs, path, sent) => {
    const run = await go(inputs)
    expect(run.stdout).not.toMatch(/::error::/)
    expect(run.code).toBe(0)
    expect(bodyOf(path)).toMatchObject(sent)
  })

  test('a word that is none of the values is refused, quoted as given', async () => {
    const run = await go({ ...single, status: 'Retired', 'cluster-mode': 'Later' })
    expect(run.code).not.toBe(0)
    expect(emulator.requests).toEqual([])
    expect(run.stdout).toContain('status: `Retired` is not one of `deployed`, `decommissioned`')
  })
})

describe('tags: no control characters, as every other text input', () => {
  test.each([
    ['a tab in a value', 'team=web\tapp'],
    ['a bell in a value', 'team=web\u0007'],
    ['an escape in a JSON key', JSON.stringify({ 'te\u001bam': 'web' })],
    ['a NUL in a JSON value', JSON.stringify({ team: 'web\u0000' })],
    ['a line break in a JSON value', JSON.stringify({ team: 'web\napp' })],
    ['DEL in a key', 'te\u007fam=web']
  ])('%s: refused, naming tags, before any request', async (_, tags) => {
    const run = await go({ digest: `ghcr.io/acme/web@${DIGEST}`, environment: 'production', tags })
    expect(run.code).not.toBe(0)
    expect(emulator.requests).toEqual([])
    expect(run.stdout).toMatch(
      /::error::The inputs have a problem; nothing was sent:%0A {2}- tags: .*contains control characters/
    )
  })

  test('ordinary tags still go as given', async () => {
    const run = await go({
      digest: `ghcr.io/acme/web@${DIGEST}`,
      environment: 'production',
      tags: 'team=web, tier=front end'
    })
    expect(run.code).toBe(0)
    expect(bodyOf(DEPLOYMENT)['tags']).toEqual({ team: 'web', tier: 'front end' })
  })
})
