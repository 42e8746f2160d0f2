/**
 * Security: the token stays secret on every path, Authorization stays with its origin, plain
 * http only for loopback, values cannot move a request to another path, and the deployments
 * file is data.
 */
import fc from 'fast-check'
import { existsSync, mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DIGEST, TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { FakeClock } from '../../__fixtures__/fake-clock.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import { singleDeployment, wholeCluster } from '../../__fixtures__/reliability.js'
import { runAction } from '../../scripts/run-action.js'
import { artifactRoutes, labelRoutes, matchRoute, type Emulator } from '../../emulator/index.js'
import { ServiceClient } from '../../src/client/client.js'
import { path } from '../../src/client/paths.js'
import { InputError, parseInputs } from '../../src/inputs/index.js'
import { run } from '../../src/run.js'

// A fixed seed keeps CI reproducible: a failure names its counterexample and happens again.
// Set FC_SEED to explore other corners locally.
fc.configureGlobal({ seed: Number(process.env['FC_SEED'] ?? 20261122) })

const SECRET = 'ghs_' + 'S3cr3tT0k3n'.repeat(3)
const ENV_SECRET = 'ghs_' + 'EnvT0k3nValue'.repeat(3)

let emulator: Emulator
let other: Emulator
beforeAll(async () => {
  emulator = await withEmulator({
    tokens: { [TOKEN]: { permissions: 'all' }, [SECRET]: { permissions: 'all' } }
  })
  other = await withEmulator()
})
afterAll(async () => {
  await emulator.close()
  await other.close()
})
beforeEach(() => {
  emulator.reset()
  other.reset()
})

const client = (over: { token?: string; baseUrl?: string } = {}) =>
  new ServiceClient({
    baseUrl: over.baseUrl ?? emulator.url,
    token: over.token ?? TOKEN,
    apiVersion: '2026-03-10',
    maxRetries: 0,
    userAgent: 'reliability-test',
    clock: new FakeClock(),
    random: () => 0
  })

// ---------------------------------------------------------------------------------------------
// The token, as the runner would show the step's output

describe('the token never appears in stdout or stderr, RUNNER_DEBUG=1', () => {
  /** What the runner displays: it consumes `::add-mask::` lines, so those alone are left out. */
  const visible = (text: string) =>
    text
      .split('\n')
      .filter(line => !line.startsWith('::add-mask::'))
      .join('\n')
  const env = () => ({
    GITHUB_REPOSITORY: 'acme/web',
    GITHUB_API_URL: emulator.url,
    GITHUB_TOKEN: ENV_SECRET,
    RUNNER_DEBUG: '1'
  })
  const deployment = {
    token: SECRET,
    digest: DIGEST,
    name: 'ghcr.io/acme/web',
    environment: 'prod'
  }

  const paths: Array<[string, () => Promise<Record<string, string>>, number]> = [
    ['success', async () => deployment, 0],
    [
      'a 502, retried',
      async () => {
        emulator.addFault({ method: 'POST', fault: { kind: 'status', status: 502 } })
        return { ...deployment, 'max-retries': '1' }
      },
      0
    ],
    ['the token refused (401)', async () => ({ ...deployment, token: SECRET + 'x' }), 1],
    [
      'a redirect to another origin',
      async () => {
        emulator.addFault({
          method: 'POST',
          fault: {
            kind: 'redirect',
            status: 307,
            location: `${other.url}/orgs/acme/artifacts/metadata/deployment-record`
          }
        })
        return deployment
      },
      1
    ],
    [
      'bad input',
      async () => ({ ...deployment, digest: 'nope', 'api-url': `http://evil.example/${SECRET}` }),
      1
    ],
    [
      'a token with white space, refused as input',
      async () => ({ ...deployment, token: `${SECRET} ${SECRET}` }),
      1
    ],
    [
      'the service unreachable',
      async () => ({ ...deployment, 'api-url': 'http://127.0.0.1:9', 'max-retries': '0' }),
      1
    ],
    ['dry run', async () => ({ ...deployment, 'dry-run': 'true' }), 0],
    ['no token input: GITHUB_TOKEN is used', async () => ({ ...deployment, token: '' }), 1]
  ]

  test.each(paths)('%s', async (_name, setup, code) => {
    const inputs = await setup()
    const step = await runAction(inputs, env())
    expect(step.code).toBe(code)
    for (const secret of [SECRET, ENV_SECRET]) {
      expect(visible(step.stdout)).not.toContain(secret)
      expect(step.stderr).not.toContain(secret)
      expect(step.summary).not.toContain(secret)
      for (const value of Object.values(step.outputs)) expect(value).not.toContain(secret)
    }
    // Debug was on: the request lines were printed (so the check above saw them).
    if (!/bad input|white space/.test(_name)) expect(step.stdout).toMatch(/::debug::/)
    // The mask itself is the first thing the step says.
    const masked = step.stdout.split('\n').filter(line => line.startsWith('::add-mask::'))
    expect(masked).toContain(`::add-mask::${ENV_SECRET}`)
  })
})

// ---------------------------------------------------------------------------------------------
// Authorization and redirects

describe('Authorization never crosses to another origin on a redirect', () => {
  test.each([301, 302, 307, 308] as const)('%i to another origin goes without it', async status => {
    emulator.addFault({
      path: '/orgs/acme/artifacts/metadata/deployment-record',
      fault: {
        kind: 'redirect',
        status,
        location: `${other.url}/orgs/acme/artifacts/metadata/deployment-record`
      }
    })
    const c = client()
    await c
      .request('POST', '/orgs/acme/artifacts/metadata/deployment-record', { body: {} })
      .catch(() => undefined)
    await c.close()
    expect(emulator.requests[0]?.headers['authorization']).toBe(`Bearer ${TOKEN}`)
    expect(other.requests).toHaveLength(1)
    expect(other.requests[0]?.headers['authorization']).toBeUndefined()
    expect(JSON.stringify(other.requests[0]?.headers)).not.toContain(TOKEN)
  })

  test('same host, other port or other spelling of the host: still another origin', async () => {
    const localhost = other.url.replace('127.0.0.1', 'localhost')
    emulator.addFault({
      fault: { kind: 'redirect', status: 307, location: `${localhost}/orgs/acme` }
    })
    const c = client()
    await c.request('GET', '/orgs/acme').catch(() => undefined)
    await c.close()
    expect(other.requests[0]?.headers['authorization']).toBeUndefined()
  })

  test('a redirect within the configured origin keeps it', async () => {
    emulator.addFault({
      fault: {
        kind: 'redirect',
        status: 307,
        location: `${emulator.url}/api/v3/orgs/acme/artifacts/${DIGEST}/metadata/storage-records`
      }
    })
    const c = client()
    const response = await c.request(
      'GET',
      path`/orgs/${'acme'}/artifacts/${DIGEST}/metadata/storage-records`
    )
    await c.close()
    expect(response.status).toBe(200)
    expect(emulator.requests[1]?.headers['authorization']).toBe(`Bearer ${TOKEN}`)
  })
})

// ---------------------------------------------------------------------------------------------
// Plain http

describe('`http://` is refused except for loopback', () => {
  const apiUrlProblem = (apiUrl: string) => {
    try {
      parseInputs(singleDeployment(apiUrl), {})
      return undefined
    } catch (error) {
      if (!(error instanceof InputError)) throw error
      return error.problems.find(p => p.input === 'api-url')?.message
    }
  }

  test('any other host, generated', () => {
    fc.assert(
      fc.property(
        fc.domain().filter(d => !/^localhost$/i.test(d)),
        fc.option(fc.integer({ min: 1, max: 65535 })),
        (domain, port) => {
          const url = `http://${domain}${port === null ? '' : `:${port}`}/api/v3`
          expect(apiUrlProblem(url)).toMatch(/https/)
          expect(apiUrlProblem(url.replace('http:', 'https:'))).toBeUndefined()
        }
      ),
      { numRuns: 300 }
    )
  })

  test.each([
    'http://localhost.evil.com',
    'http://127.0.0.1.nip.io',
    'http://evil.com#@127.0.0.1',
    'http://127.0.0.1@evil.com',
    'http://[::ffff:8.8.8.8]',
    'HTTP://EVIL.COM'
  ])('%s is refused', url => expect(apiUrlProblem(url)).toBeDefined())

  test.each([
    'http://localhost:8080',
    'http://127.0.0.1:1/api',
    'http://[::1]:99',
    'http://LOCALHOST'
  ])('%s is loopback, accepted', url => expect(apiUrlProblem(url)).toBeUndefined())

  test('registry-url and artifact-url must be https, whatever the host', () => {
    for (const input of ['registry-url', 'artifact-url'] as const) {
      expect(() =>
        parseInputs(singleDeployment(emulator.url, { [input]: 'http://127.0.0.1/x' }), {})
      ).toThrow(new RegExp(`- ${input}: must be an https:// URL`))
    }
  })
})

// ---------------------------------------------------------------------------------------------
// Values that try to change the path

const SNEAKY = [
  '..',
  '.',
  '...',
  '%2e%2e',
  '%2E%2E%2F',
  '../../orgs/acme',
  'a/b',
  '/',
  'a?b=c',
  '?',
  'a#b',
  '#',
  'a b',
  ' ',
  'ünïcødé',
  '😀 rocket',
  'a%20b',
  'a\\b',
  'deployed:production'
]

describe('values reach exactly the intended endpoint (path helper + ServiceClient + emulator)', () => {
  test.each(SNEAKY.map(name => [name]))('label name %j', async name => {
    emulator.seed({ labels: { 'acme/web': [{ name, color: '0e8a16' }, { name: 'keep' }] } })
    const c = client()
    const response = await c.request<{ name: string }>(
      'GET',
      path`/repos/${'acme'}/${'web'}/labels/${name}`
    )
    await c.close()
    expect(response.body.name).toBe(name)
    const recorded = emulator.requests[0]?.path ?? ''
    const match = matchRoute(labelRoutes, 'GET', recorded)
    expect(match?.route.pattern).toBe('/repos/:owner/:repo/labels/:name')
    expect(match?.params).toEqual({ owner: 'acme', repo: 'web', name })
  })

  test('deleting a label named `..` deletes that label and no other', async () => {
    emulator.seed({ labels: { 'acme/web': [{ name: '..' }, { name: '.' }, { name: 'labels' }] } })
    const c = client()
    await c.request('DELETE', path`/repos/${'acme'}/${'web'}/labels/${'..'}`)
    await c.close()
    expect(emulator.requests[0]?.path).toBe('/repos/acme/web/labels/%2E%2E')
    const names = emulator.state.labels['acme/web']?.map(l => l.name) ?? []
    expect(names).toContain('.')
    expect(names).toContain('labels')
    expect(names).not.toContain('..')
  })

  test('generated label names: one segment, decoded back to the same name', async () => {
    const c = client()
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).filter(s => s.trim() !== ''),
        async name => {
          emulator.reset()
          emulator.seed({ labels: { 'acme/web': [{ name }] } })
          const response = await c.request<{ name: string }>(
            'GET',
            path`/repos/${'acme'}/${'web'}/labels/${name}`
          )
          expect(response.body.name).toBe(name)
          const recorded = emulator.requests[0]?.path ?? ''
          expect(recorded.split('/')).toHaveLength(6)
          expect(matchRoute(labelRoutes, 'GET', recorded)?.params['name']).toBe(name)
        }
      ),
      { numRuns: 200 }
    )
    await c.close()
  })

  test.each(SNEAKY.map(org => [org]))('org %j stays in the org segment', async org => {
    const c = client()
    const error = await c
      .request('POST', path`/orgs/${org}/artifacts/metadata/deployment-record`, { body: {} })
      .catch((e: unknown) => e)
    await c.close()
    // The emulator knows only `acme`: every one of these is an unknown org, never another route.
    expect(String(error)).toMatch(/404/)
    const recorded = emulator.requests[0]?.path ?? ''
    const match = matchRoute(artifactRoutes, 'POST', recorded)
    expect(match?.route.pattern).toBe('/orgs/:org/artifacts/metadata/deployment-record')
    expect(match?.params['org']).toBe(org)
  })

  test('the inputs refuse path-like org, repository and cluster values', () => {
    // White space alone is an empty input (its default), so it is left out here.
    for (const value of SNEAKY.filter(v => !/^[A-Za-z0-9._-]+$/.test(v) && v.trim() !== '')) {
      for (const [input, raw] of [
        ['org', value],
        ['repository', `acme/${value}`],
        ['cluster', value]
      ] as const) {
        expect(() => parseInputs(singleDeployment(emulator.url, { [input]: raw }), {})).toThrow(
          new RegExp(`- ${input}:`)
        )
      }
    }
  })

  test('a cluster named `..` (allowed by its pattern) is the cluster `..`, not a step up', async () => {
    const result = await run(
      parseInputs(wholeCluster(emulator.url, 'sync', { cluster: '..' }), {}),
      { clock: new FakeClock(), log: new MemoryLog() }
    )
    const post = emulator.requests.find(r => r.method === 'POST')
    expect(post?.path).toBe('/orgs/acme/artifacts/metadata/deployment-record/cluster/%2E%2E')
    expect(matchRoute(artifactRoutes, 'POST', post?.path ?? '')?.params['cluster']).toBe('..')
    // Whether the service accepts the name is its call; the request went where it was meant to.
    expect(result.failures.every(f => !/404/.test(f.message))).toBe(true)
  })
})

// Known bug (src/inputs.ts, not ours to fix): `repository` drops a trailing `.git` after it has
// been validated, so `acme/.git` gives the name `` and `acme/...git` the name `..`, which is then
// sent as `github_repository` and used in label paths. Proposed fix: strip `.git` first, then
// apply the name checks (REPO_NAME, not only dots) to what is left. Remove `.failing` once fixed.
test('`repository` values that become empty or `..` without `.git` are refused', () => {
  for (const repository of ['acme/.git', 'acme/...git', 'acme/..git']) {
    expect(() => parseInputs(singleDeployment(emulator.url, { repository }), {})).toThrow(
      /- repository:/
    )
  }
})

// ---------------------------------------------------------------------------------------------
// The deployments file is data

describe('the deployments file is read as data only', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'reliability-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const parse = (file: string) =>
    parseInputs(
      { ...wholeCluster(emulator.url, 'sync'), deployments: '', 'deployments-file': file },
      { GITHUB_WORKSPACE: dir }
    )
  const problems = (file: string) => {
    try {
      parse(file)
      return []
    } catch (error) {
      if (!(error instanceof InputError)) throw error
      return error.problems
    }
  }

  test('a script is not run: it is not JSON', () => {
    const marker = join(dir, 'ran')
    writeFileSync(
      join(dir, 'deployments.js'),
      `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'); module.exports = []`
    )
    writeFileSync(
      join(dir, 'deployments.mjs'),
      `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'x'); export default []`
    )
    for (const file of ['deployments.js', 'deployments.mjs']) {
      const found = problems(file)
      expect(found).toEqual([
        { input: 'deployments-file', message: expect.stringMatching(/not valid JSON/) }
      ])
    }
    expect(existsSync(marker)).toBe(false)
  })

  test('shell and workflow syntax inside the JSON stays literal text, to the service', async () => {
    const marker = join(dir, 'pwned')
    const name = `$(touch ${marker})`
    writeFileSync(
      join(dir, 'deployments.json'),
      JSON.stringify([
        { name, digest: DIGEST, deployment_name: '${{ secrets.GITHUB_TOKEN }}', version: '`id`' }
      ])
    )
    const items = parse('deployments.json').cluster?.items ?? []
    expect(items[0]).toMatchObject({
      name,
      deployment_name: '${{ secrets.GITHUB_TOKEN }}',
      version: '`id`'
    })
    // The parser cannot run anything, so the marker proves nothing there; the bundled action,
    // as the runner starts it with the file in its workspace, is what could: it sends the text
    // as it is, and nothing ran it.
    const step = await runAction(
      {
        ...wholeCluster(emulator.url, 'sync'),
        deployments: '',
        'deployments-file': 'deployments.json'
      },
      {},
      { context: { workspace: dir } }
    )
    expect(step.code).toBe(0)
    const sent = emulator.requests.find(r => r.method === 'POST')?.body as {
      deployments?: Array<Record<string, unknown>>
    }
    expect(sent?.deployments?.[0]).toMatchObject({
      name,
      deployment_name: '${{ secrets.GITHUB_TOKEN }}',
      version: '`id`'
    })
    expect(existsSync(marker)).toBe(false)
  })

  test('a directory, a missing file and a link to a non-JSON file are errors naming the input', () => {
    mkdirSync(join(dir, 'a-directory'))
    writeFileSync(join(dir, 'notes.txt'), 'hello')
    symlinkSync(join(dir, 'notes.txt'), join(dir, 'link.json'))
    for (const file of ['a-directory', 'missing.json', 'link.json', '../../../etc/hostname']) {
      const found = problems(file)
      expect(found.length).toBeGreaterThan(0)
      expect(found.every(p => p.input === 'deployments-file')).toBe(true)
    }
  })
})
