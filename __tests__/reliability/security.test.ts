/**
 * Security: the token stays secret on every path, Authorization stays with its origin, plain
 * http only for loopback. Values that try to change the path and the deployments file as data:
 * security-paths.test.ts; shared setup: __fixtures__/security.ts.
 */
import fc from 'fast-check'
import { DIGEST, TOKEN } from '../../__fixtures__/emulator.js'
import { singleDeployment } from '../../__fixtures__/reliability.js'
import { runAction } from '../../scripts/run-action.js'
import { path } from '../../src/client/paths.js'
import { InputError, parseInputs } from '../../src/step/parse-inputs.js'
import {
  client,
  ENV_SECRET,
  emulator,
  other,
  SECRET,
  useSecurityEmulators
} from '../../__fixtures__/security.js'

useSecurityEmulators()

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
