/**
 * The break round on issue 38's promises (SECURITY.md, docs/untrusted-input.md): what it found,
 * each a test that failed before its fix. A service message, a non-JSON answer or a redirect's
 * location is cut between words, never inside a token, so what is quoted holds no part of one
 * the redaction would miss; the redaction reads crafted text in time proportional to its length;
 * files' field names and a state file's version are never quoted; a short proxy password leaves
 * the JSON outputs JSON; a state-file entry naming no repository is kept when every deployment
 * this run records names one.
 */
import { join } from 'node:path'
import { actionYml } from '../../__fixtures__/action-yml.js'
import { runCli } from '../../src/cli/run-cli.js'
import type { FaultRule } from '../../emulator/faults.js'
import { startEmulator, type Emulator } from '../../emulator/index.js'
import { addProxySecrets, clearSecrets, redact } from '../../src/runner/redact.js'
import { projectRoot, runAction } from '../../scripts/run-action.js'

const DIGEST = 'sha256:' + '0123456789abcdef'.repeat(4)
const RECORDS = '/orgs/acme/artifacts/metadata'
const DEPLOYMENT = `${RECORDS}/deployment-record`

/** A classic (pre-2021) personal access token: 40 hex digits, no `ghp_` prefix. */
const HEX_TOKEN = () =>
  Array.from({ length: 40 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('')
const GHS_TOKEN = () =>
  'ghs_' +
  Array.from(
    { length: 36 },
    () =>
      'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[
        Math.floor(Math.random() * 62)
      ]
  ).join('')

const ADD_MASK = /^::add-mask::.*$/gm

/** The longest run of the token's leading characters found in `text` (0 when none of 8+). */
function longestPrefix(text: string, token: string): number {
  for (let n = token.length; n >= 8; n--) if (text.includes(token.slice(0, n))) return n
  return 0
}

let emulator: Emulator
afterEach(async () => {
  clearSecrets()
  await emulator?.close()
})

const recordInputs = (token: string, over: Record<string, string> = {}) => ({
  token,
  'api-url': emulator.url,
  repository: 'acme/web',
  digest: DIGEST,
  name: 'ghcr.io/acme/web',
  environment: 'production',
  'max-retries': '0',
  ...over
})

async function cli(token: string, extra: string[] = []) {
  const args = ['--api-url', emulator.url, '--repository', 'acme/web', '--max-retries', '0']
  args.push('--digest', DIGEST, '--name', 'ghcr.io/acme/web', '--environment', 'production')
  args.push('--debug', ...extra)
  const out = { stdout: '', stderr: '' }
  const code = await runCli(args, { GITHUB_TOKEN: token }, actionYml(), {
    stdout: text => (out.stdout += text),
    stderr: text => (out.stderr += text)
  })
  return { code, ...out }
}

/** The command line against an emulator that knows `token` and answers the deployment write with `fault`. */
async function echoed(token: string, fault: FaultRule['fault'], code = 1) {
  emulator = await startEmulator({ tokens: { [token]: { permissions: 'all' } } })
  emulator.addFault({ method: 'POST', path: DEPLOYMENT, fault })
  const run = await cli(token)
  expect(run.code).toBe(code)
  return run
}

describe('a service message is cut between words, never inside the token', () => {
  // errors.ts quoted() slices serviceMessage to 1,000 characters inside the ServiceError's
  // message; redaction runs later on the whole result, and a token cut in two matches no form.
  test('the action: a 40-hex token echoed at character 961 leaves none of its characters', async () => {
    const token = HEX_TOKEN()
    emulator = await startEmulator({ tokens: { [token]: { permissions: 'all' } } })
    emulator.addFault({
      method: 'POST',
      path: DEPLOYMENT,
      fault: {
        kind: 'status',
        status: 422,
        body: { message: 'x'.repeat(961) + token + ' was not accepted' }
      }
    })
    const run = await runAction(recordInputs(token), { RUNNER_DEBUG: '1' })
    expect(run.code).toBe(1)
    const streams: Record<string, string> = {
      stdout: run.stdout.replace(ADD_MASK, ''),
      stderr: run.stderr,
      summary: run.summary,
      failed: run.outputs['failed'] ?? ''
    }
    const found = Object.entries(streams)
      .map(([name, text]) => [name, longestPrefix(text, token)] as const)
      .filter(([, n]) => n > 0)
    // No form of the token in any stream (before: 39 of its 40 characters in each).
    expect(found).toEqual([])
  }, 60_000)

  test('the command line: stderr and stdout JSON, the same', async () => {
    const token = HEX_TOKEN()
    const run = await echoed(token, {
      kind: 'status',
      status: 422,
      body: { message: 'x'.repeat(961) + token }
    })
    expect({
      stdout: longestPrefix(run.stdout, token),
      stderr: longestPrefix(run.stderr, token)
    }).toEqual({ stdout: 0, stderr: 0 })
  })

  test('a validation error message is cut the same way', async () => {
    const token = HEX_TOKEN()
    const run = await echoed(token, {
      kind: 'status',
      status: 422,
      body: {
        message: 'Validation Failed',
        errors: [{ resource: 'r', field: 'f', code: 'c', message: 'y'.repeat(953) + token }]
      }
    })
    expect(longestPrefix(run.stdout + run.stderr, token)).toBe(0)
  })

  test('a ghs_ token echoed at the limit: none of it', async () => {
    const token = GHS_TOKEN()
    const run = await echoed(token, {
      kind: 'status',
      status: 422,
      body: { message: 'x'.repeat(1000 - 19) + token }
    })
    expect(longestPrefix(run.stdout + run.stderr, token)).toBe(0)
  })
})

describe('a non-JSON answer is quoted as its first 60 characters, cut between words', () => {
  test('a 2xx text/plain answer: a 40-hex token at character 21 leaves none', async () => {
    const token = HEX_TOKEN()
    const run = await echoed(token, {
      kind: 'status',
      status: 200,
      headers: { 'content-type': 'text/plain' },
      body: 'proxy saw credential ' + token + ' for this request'
    })
    expect(longestPrefix(run.stdout + run.stderr, token)).toBe(0)
  })

  test('a 5xx HTML error page from a proxy, the same', async () => {
    const token = HEX_TOKEN()
    const run = await echoed(token, {
      kind: 'status',
      status: 502,
      headers: { 'content-type': 'text/html' },
      body: '<html><body><pre>cred=' + token + '</pre></body></html>'
    })
    expect(longestPrefix(run.stdout + run.stderr, token)).toBe(0)
  })
})

describe('a redirect location is quoted as its first 200 characters, cut between words', () => {
  test('a 307 to a non-http location holding the token at character 161 leaves none', async () => {
    const token = HEX_TOKEN()
    const run = await echoed(token, {
      kind: 'redirect',
      status: 307,
      location: 'ftp://files.invalid/' + 'p'.repeat(141) + token
    })
    expect(longestPrefix(run.stdout + run.stderr, token)).toBe(0)
  })
})

describe('crafted text costs time in proportion to its length, and file content is not quoted', () => {
  test('redact() reads 2 MB built to make a pattern backtrack, in proportion to its length', () => {
    // Quadratic, each of these took days (200 kB of the first: 17 s); the test's own time limit
    // is the check, no figure is asserted.
    for (const unit of ['a.', 'a://', '&a.', 'Bearer a ', 'ghs_ '])
      expect(redact(unit.repeat(2_000_000 / unit.length))).toContain(unit)
  })

  test('the command line: a state file whose version is 400 kB of text is refused without quoting it', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { execFile } = await import('node:child_process')
    const dir = mkdtempSync(join(tmpdir(), 'secrets-break-'))
    writeFileSync(
      join(dir, 'deployments.json'),
      JSON.stringify([
        { deployment_name: 'apps-alpha', name: 'ghcr.io/acme/alpha', digest: DIGEST }
      ])
    )
    writeFileSync(
      join(dir, 'state.json'),
      JSON.stringify({ format: 'record-deployment/cluster-state', version: 'a.'.repeat(200_000) })
    )
    const run = await new Promise<{ code: number | null; signal: string | null; stderr: string }>(
      resolve => {
        const child = execFile(
          process.execPath,
          [
            join(projectRoot(), 'dist', 'cli.js'),
            '--api-url',
            'http://127.0.0.1:9',
            '--repository',
            'acme/web',
            '--cluster',
            'prod',
            '--environment',
            'production',
            '--deployments-file',
            join(dir, 'deployments.json'),
            '--state-file',
            join(dir, 'state.json')
          ],
          {
            env: { PATH: process.env['PATH'] ?? '', GITHUB_TOKEN: 'test-token-1234' },
            maxBuffer: 1 << 26
          },
          (_error, _stdout, stderr) =>
            resolve({ code: child.exitCode, signal: child.signalCode, stderr })
        )
      }
    )
    expect({ code: run.code, signal: run.signal }).toEqual({ code: 2, signal: null })
    // And the message quotes the file's content (docs: "never quotes it").
    expect(run.stderr).not.toContain('a.a.a.a.a.a.a.a.a.a.a.a')
  }, 60_000)
})

describe('a long service answer', () => {
  test('a 200 to the deployment record write whose record holds 150 kB of `a.a.` is read', async () => {
    const token = GHS_TOKEN()
    const run = await echoed(
      token,
      {
        kind: 'status',
        status: 200,
        body: {
          total_count: 1,
          deployment_records: [
            {
              id: 1,
              digest: DIGEST,
              logical_environment: 'production',
              name: 'ghcr.io/acme/web',
              status: 'deployed',
              note: 'a.'.repeat(75_000)
            }
          ]
        }
      },
      0
    )
    expect(run.stdout).toContain('"deployment-record-ids":"1"')
  }, 120_000)
})

describe('deployments-file field names', () => {
  test('a 200 kB field name: refused, and not quoted', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { execFile } = await import('node:child_process')
    const dir = mkdtempSync(join(tmpdir(), 'secrets-break-'))
    writeFileSync(
      join(dir, 'deployments.json'),
      JSON.stringify([
        {
          ['a.'.repeat(100_000)]: 1,
          deployment_name: 'x',
          name: 'ghcr.io/acme/alpha',
          digest: DIGEST
        }
      ])
    )
    const run = await new Promise<{ code: number | null; stderr: string }>(resolve => {
      const child = execFile(
        process.execPath,
        [
          join(projectRoot(), 'dist', 'cli.js'),
          '--api-url',
          'http://127.0.0.1:9',
          '--repository',
          'acme/web',
          '--cluster',
          'prod',
          '--environment',
          'production',
          '--deployments-file',
          join(dir, 'deployments.json')
        ],
        {
          env: { PATH: process.env['PATH'] ?? '', GITHUB_TOKEN: 'test-token-1234' },
          maxBuffer: 1 << 26
        },
        (_error, _stdout, stderr) => resolve({ code: child.exitCode, stderr })
      )
    })
    expect({ code: run.code, quotes: run.stderr.includes('a.'.repeat(1000)) }).toEqual({
      code: 2,
      quotes: false
    })
  }, 90_000)
})
describe('a short proxy password', () => {
  test.each(['null', '0000'])(
    'HTTPS_PROXY password %j (the emulator is loopback, not proxied): every output still parses',
    async password => {
      const token = GHS_TOKEN()
      emulator = await startEmulator({ tokens: { [token]: { permissions: 'all' } } })
      const run = await runAction(recordInputs(token), {
        HTTPS_PROXY: `http://build:${password}@proxy.corp.invalid:3128`
      })
      const json = [
        'deployment-records',
        'storage-records',
        'errors',
        'decommissioned',
        'labeled',
        'planned',
        'lead-time',
        'failed',
        'truncated'
      ]
      const broken = json.filter(name => {
        try {
          JSON.parse(run.outputs[name] ?? '')
          return false
        } catch {
          return true
        }
      })
      // docs: every output is set on every run, so `fromJSON` always works
      expect({ code: run.code, broken, leadTime: run.outputs['lead-time'] }).toEqual({
        code: 0,
        broken: [],
        leadTime: expect.stringContaining('null') as unknown
      })
    },
    60_000
  )
})

describe('a proxy password holding an unencoded `@`', () => {
  test('is registered up to the last `@`, as the URL parser and undici read it', async () => {
    addProxySecrets({ HTTPS_PROXY: 'http://build:p@ss-w0rd-77@proxy.corp:3128' })
    expect(new URL('http://build:p@ss-w0rd-77@proxy.corp:3128').password).toBe('p%40ss-w0rd-77')
    expect(redact('proxy said: p@ss-w0rd-77 / p%40ss-w0rd-77')).toBe('proxy said: *** / ***')
  })
})

describe('a state-file entry of another repository is kept', () => {
  // SECURITY.md: "Whatever the state file says, an entry naming a repository the run does not
  // record for is never decommissioned (kept, and warned about)". `github_repository` is optional
  // (version 1 has none): leave it out and the same entry is this run's to decommission.
  const hex = (word: string) =>
    'sha256:' +
    [...word]
      .map(ch => ch.charCodeAt(0).toString(16))
      .join('')
      .padEnd(64, '0')
  const entry = (w: string, repo?: string) => ({
    deployment_name: `apps-${w}`,
    name: `ghcr.io/acme/${w}`,
    digest: hex(w),
    ...(repo ? { github_repository: repo } : {})
  })
  test.each([['names `secrets`', 'secrets']])(
    'the crafted entry %s',
    async (_what, repo) => {
      const { withEmulator, TOKEN } = await import('../../__fixtures__/emulator.js')
      const { mkdtemp, mkdir, writeFile } = await import('node:fs/promises')
      const { tmpdir } = await import('node:os')
      emulator = await withEmulator({ jobStepMs: 5, repos: ['acme/web', 'acme/secrets'] })
      const workspace = await mkdtemp(join(tmpdir(), 'secrets-break-state-'))
      const { github_repository: _, ...alpha } = entry('alpha')
      await writeFile(join(workspace, 'deployments.json'), JSON.stringify([alpha]))
      await mkdir(join(workspace, '.record-deployment'), { recursive: true })
      await writeFile(
        join(workspace, '.record-deployment/prod-eu-1.json'),
        JSON.stringify({
          format: 'record-deployment/cluster-state',
          version: 3,
          cluster: 'prod-eu-1',
          logical_environment: 'production',
          // exactly half lacking: the mass guard lets it pass
          deployments: [entry('alpha', 'web'), entry('ledger', repo)]
        })
      )
      const run = await runAction(
        {
          token: TOKEN,
          'api-url': emulator.url,
          cluster: 'prod-eu-1',
          environment: 'production',
          'state-file': '.record-deployment/prod-eu-1.json',
          'deployments-file': 'deployments.json',
          'cluster-mode': 'sync'
        },
        {},
        { context: { repository: 'acme/web', workspace } }
      )
      expect(run.code).toBe(0)
      // apps-ledger names the secrets repository: kept, though exactly half is missing
      expect(JSON.parse(run.outputs['decommissioned'] ?? '[]')).toEqual([])
    },
    60_000
  )
})

describe('the token echoed escaped or encoded by the service never leaves the step', () => {
  const everyByte = (t: string, hex: (h: string) => string) =>
    [...Buffer.from(t)].map(b => `%${hex(b.toString(16).padStart(2, '0'))}`).join('')
  const forms = (t: string): Record<string, string> => ({
    'every byte percent-encoded': everyByte(t, h => h.toUpperCase()),
    'every byte percent-encoded, lower-case hex': everyByte(t, h => h),
    'percent-encoded twice': everyByte(t, h => h.toUpperCase()).replace(/%/g, '%25'),
    'JSON unicode escapes': [...t]
      .map(c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join(''),
    'HTML entities': [...t].map(c => `&#${c.charCodeAt(0)};`).join(''),
    'upper case': t.toUpperCase()
  })
  const message = (t: string) =>
    Object.entries(forms(t))
      .map(([name, form]) => `${name}: ${form}`)
      .join('; ')
  const leaks = (text: string, t: string) =>
    Object.entries(forms(t))
      .filter(([, form]) => text.includes(form.slice(0, 24)))
      .map(([name]) => name)
      .concat(longestPrefix(text, t) > 0 ? ['raw'] : [])

  test.each([
    ['a ghs_ token', GHS_TOKEN],
    ['a 40-hex token', HEX_TOKEN]
  ])(
    '%s: the action (outputs, summary, log) and the command line (stdout, stderr)',
    async (_n, make) => {
      const token = make()
      emulator = await startEmulator({ tokens: { [token]: { permissions: 'all' } } })
      emulator.addFault({
        method: 'POST',
        path: DEPLOYMENT,
        fault: { kind: 'status', status: 422, body: { message: message(token) } }
      })
      const run = await runAction(recordInputs(token), { RUNNER_DEBUG: '1' })
      expect(run.code).toBe(1)
      const streams = {
        outputs: JSON.stringify(run.outputs),
        summary: run.summary,
        log: run.stdout.replace(ADD_MASK, '') + run.stderr
      }
      expect(
        Object.fromEntries(Object.entries(streams).map(([k, v]) => [k, leaks(v, token)]))
      ).toEqual({
        outputs: [],
        summary: [],
        log: []
      })
      await emulator.close()
      const cliRun = await echoed(token, {
        kind: 'status',
        status: 422,
        body: { message: message(token) }
      })
      expect({ stdout: leaks(cliRun.stdout, token), stderr: leaks(cliRun.stderr, token) }).toEqual({
        stdout: [],
        stderr: []
      })
    },
    60_000
  )
})
