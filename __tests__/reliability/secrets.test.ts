/**
 * The token (and a proxy's password) never leaves the step in any form: not in a log line (debug
 * included), an output (`failed` included), the job summary (where Markdown escaping would turn
 * `ghs_...` into `ghs\_...`, which the runner's exact-text masking does not catch), nor the
 * command line's stderr or stdout JSON. The service here is one that echoes the `Authorization`
 * header in its error messages, the way a misbehaving proxy or server does.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import fc from 'fast-check'
import type { FaultRule } from '../../emulator/faults.js'
import { actionYml } from '../../__fixtures__/action-yml.js'
import { runCli } from '../../src/cli/run-cli.js'
import { startEmulator, type Emulator } from '../../emulator/index.js'
import { cell, codeCell } from '../../src/runner/markdown.js'
import { addProxySecrets, addSecret, clearSecrets, redact } from '../../src/runner/redact.js'
import { projectRoot, runAction } from '../../scripts/run-action.js'

const exec = promisify(execFile)
const DIGEST = 'sha256:' + '0123456789abcdef'.repeat(4)
const RECORDS = '/orgs/acme/artifacts/metadata'

/** Every form the token can take in text the step writes. */
function formsOf(secret: string): string[] {
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    cell(secret),
    codeCell(secret).replace(/^`+ ?| ?`+$/g, ''),
    Buffer.from(secret).toString('base64').replace(/=+$/, ''),
    Buffer.from(`x-access-token:${secret}`).toString('base64').replace(/=+$/, '')
  ]
}

const leaks = (text: string, secret: string) => formsOf(secret).filter(f => text.includes(f))

describe('redact', () => {
  afterEach(() => clearSecrets())

  test('a registered secret is masked in every form, inside any text', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 8, maxLength: 40, unit: 'grapheme-ascii' }),
        fc.string({ maxLength: 30 }),
        fc.string({ maxLength: 30 }),
        fc.integer({ min: 0, max: 6 }),
        (secret, before, after, form) => {
          clearSecrets()
          addSecret(secret)
          const shown = formsOf(secret)[form] as string
          const out = redact(`${before}${shown}${after}`)
          expect(leaks(out, secret)).toEqual([])
        }
      )
    )
  })

  test('URL user-info, Authorization values, token shapes and secret query values are masked unregistered', () => {
    expect(redact('GET https://user:hunter2@host.test/x -> 302')).toBe(
      'GET https://***@host.test/x -> 302'
    )
    expect(redact('`https://u:p/a#b@api.test` is not a URL')).toBe(
      '`https://***@api.test` is not a URL'
    )
    expect(redact('Authorization: Bearer abc123def456')).toBe('Authorization: Bearer ***')
    expect(redact('saw ghs_' + 'A1b2'.repeat(9) + '.')).toBe('saw ***.')
    expect(redact('ghs\\_' + 'A1b2'.repeat(9))).toBe('***')
    expect(redact('/x?page=2&access_token=abc&per_page=5')).toBe(
      '/x?page=2&access_token=***&per_page=5'
    )
    expect(redact('the token is empty: pass `token`')).toBe('the token is empty: pass `token`')
    // the step's own hint for proxy credentials is no secret
    expect(redact('in HTTPS_PROXY (http://USER:PASSWORD@host:port)')).toBe(
      'in HTTPS_PROXY (http://USER:PASSWORD@host:port)'
    )
  })

  test("a proxy URL's password is registered, raw and percent-decoded", () => {
    addProxySecrets({ HTTPS_PROXY: 'http://me:p%40ss-word@proxy.test:3128' })
    expect(redact('p@ss-word and p%40ss-word')).toBe('*** and ***')
  })
})

/** A GitHub-shaped token the emulator accepts, different each run. */
const token = () => 'ghs_' + Math.random().toString(36).slice(2).padEnd(12, 'x') + 'Q7_z9'.repeat(5)

let emulator: Emulator
let secret: string
beforeEach(async () => {
  secret = token()
  emulator = await startEmulator({ tokens: { [secret]: { permissions: 'all' } } })
})
afterEach(() => emulator.close())

/** The service echoes the request's Authorization header in its error message. */
function echoOnce(path: string, method: string, status = 422) {
  emulator.addFault({ method, path, fault: echoFault(status) })
}

/** `::add-mask::` is the runner's masking command itself: it must carry the token as it is. */
const ADD_MASK = /^::add-mask::.*$/gm

function expectNoToken(streams: Record<string, string>) {
  const found = Object.entries(streams).flatMap(([name, text]) =>
    leaks(text.replace(ADD_MASK, ''), secret).map(form => `${name}: ${form}`)
  )
  expect(found).toEqual([])
}

const recordInputs = (over: Record<string, string> = {}) => ({
  token: secret,
  'api-url': emulator.url,
  repository: 'acme/web',
  digest: DIGEST,
  name: 'ghcr.io/acme/web',
  environment: 'production',
  'max-retries': '0',
  ...over
})

describe('the token echoed by the service never leaves the step', () => {
  test.each([
    ['a failing deployment record', `${RECORDS}/deployment-record`, 'POST', {}],
    [
      'a failing storage record',
      `${RECORDS}/storage-record`,
      'POST',
      { 'registry-url': 'https://ghcr.io' }
    ],
    [
      'a failing label',
      /^\/repos\/acme\/web\//,
      undefined,
      { labels: 'deployed', 'pull-requests': '1' }
    ]
  ])('the action: %s, with debug on', async (_what, path, method, over) => {
    if (typeof path === 'string') echoOnce(path, method as string)
    else emulator.addFault({ path, times: 5, fault: echoFault() })
    const run = await runAction(recordInputs(over as Record<string, string>), {
      RUNNER_DEBUG: '1'
    })
    expect(run.code).toBe(1)
    expect(run.outputs['failed']).not.toBe('[]')
    expectNoToken({
      stdout: run.stdout,
      stderr: run.stderr,
      summary: run.summary,
      ...Object.fromEntries(Object.entries(run.outputs).map(([k, v]) => [`output ${k}`, v]))
    })
  })

  test('the command line: stderr and the stdout JSON', async () => {
    echoOnce(`${RECORDS}/deployment-record`, 'POST')
    const args = ['--api-url', emulator.url, '--repository', 'acme/web', '--digest', DIGEST]
    args.push('--name', 'ghcr.io/acme/web', '--environment', 'production', '--max-retries', '0')
    const run = await exec(
      process.execPath,
      [join(projectRoot(), 'dist', 'cli.js'), ...args, '--debug'],
      {
        env: { PATH: process.env['PATH'] ?? '', GITHUB_TOKEN: secret }
      }
    ).catch((e: { code: number; stdout: string; stderr: string }) => e)
    expect('code' in run ? run.code : 0).toBe(1)
    expect(run.stdout).toContain('"failed":[{')
    expectNoToken({ stdout: run.stdout, stderr: run.stderr })
  })

  test('a redirect whose Location carries the token as user-info: not in the debug line', async () => {
    emulator.addFault({
      method: 'POST',
      path: `${RECORDS}/deployment-record`,
      fault: {
        kind: 'redirect',
        status: 307,
        location: `https://x-access-token:${secret}@elsewhere.invalid/records?access_token=${secret}`
      }
    })
    const run = await runAction(recordInputs(), { RUNNER_DEBUG: '1' })
    expect(run.stdout).toContain('redirect to https://elsewhere.invalid/records')
    expectNoToken({
      stdout: run.stdout,
      stderr: run.stderr,
      summary: run.summary,
      failed: run.outputs['failed'] ?? ''
    })
  })

  test('an api-url holding the token as a password that does not parse is not quoted whole', async () => {
    const run = await runAction(recordInputs({ 'api-url': `https://x:${secret}/#@api.github.com` }))
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/api-url/)
    expectNoToken({ stdout: run.stdout, stderr: run.stderr, summary: run.summary })
  })
})

/** An error answer quoting the token in every form at once: raw, escaped, encoded, base64. */
function echoFault(status = 422) {
  const all = formsOf(secret).join(' | ')
  return {
    kind: 'status' as const,
    status,
    body: {
      message: `Validation Failed for {"authorization":"Bearer ${secret}"} (Authorization: Bearer ${secret}; token=${encodeURIComponent(secret)}; seen: ${all})`,
      errors: [{ message: `rejected ${all}`, code: 'invalid' }]
    }
  }
}

/** Where the service quotes the token: each path that quotes service text, and a bad api-url. */
type Path = 'deployment record' | 'storage record' | 'label' | 'redirect' | 'bad api-url'

describe('property: any token, echoed in any form on any path, never reaches a stream', () => {
  const action = actionYml()
  afterEach(() => clearSecrets())

  test('the command line (in process, --debug): stdout JSON and stderr', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.stringMatching(/^gh[pousr]_[A-Za-z0-9]{36}$/),
          fc.stringMatching(/^github_pat_[A-Za-z0-9_]{40,82}$/),
          // any token a header can carry: visible ASCII
          fc.string({
            minLength: 8,
            maxLength: 40,
            unit: fc.integer({ min: 0x21, max: 0x7e }).map(c => String.fromCharCode(c))
          })
        ),
        fc.constantFrom<Path>(
          'deployment record',
          'storage record',
          'label',
          'redirect',
          'bad api-url'
        ),
        fc.integer({ min: 0, max: 6 }),
        fc.constantFrom(401, 403, 404, 422, 500),
        async (token, path, form, status) => {
          clearSecrets()
          const service = await startEmulator({ tokens: { [token]: { permissions: 'all' } } })
          try {
            const echoed = formsOf(token)[form] as string
            const body = {
              message: `Bad credentials (Authorization: Bearer ${echoed}) for ${echoed}`,
              errors: [{ message: `rejected "${echoed}"`, code: 'invalid' }]
            }
            const rule: FaultRule =
              path === 'redirect'
                ? {
                    // a read (the labels job's): a write redirected would wait out the 1 s gap
                    method: 'GET',
                    path: '/repos/acme/web/issues/1',
                    fault: {
                      kind: 'redirect',
                      status: 307,
                      location: `https://x-access-token:${encodeURIComponent(token)}@elsewhere.invalid/x?access_token=${encodeURIComponent(token)}`
                    }
                  }
                : {
                    path:
                      path === 'label'
                        ? /^\/repos\/acme\/web\//
                        : `${RECORDS}/${path === 'storage record' ? 'storage' : 'deployment'}-record`,
                    times: 5,
                    // 401 stops the run: the storage record's failure sends no deployment record.
                    fault: {
                      kind: 'status',
                      status: path === 'storage record' ? 401 : status,
                      body
                    }
                  }
            service.addFault(rule)
            const apiUrl =
              path === 'bad api-url' ? `https://x:${token}/#@api.github.com` : service.url
            const args = ['--api-url', apiUrl, '--repository', 'acme/web', '--max-retries', '0']
            args.push('--debug')
            if (path === 'label' || path === 'redirect')
              args.push('--labels', 'deployed', '--pull-requests', '1')
            else
              args.push(
                '--digest',
                DIGEST,
                '--name',
                'ghcr.io/acme/web',
                '--environment',
                'production'
              )
            if (path === 'storage record') args.push('--registry-url', 'https://ghcr.io')
            const out = { stdout: '', stderr: '' }
            const code = await runCli(args, { GITHUB_TOKEN: token }, action, {
              stdout: text => (out.stdout += text),
              stderr: text => (out.stderr += text)
            })
            expect(code).toBe(path === 'bad api-url' ? 2 : 1)
            if (path === 'redirect')
              expect(out.stderr).toContain('307 redirect to https://elsewhere.invalid/x')
            const found = Object.entries(out).flatMap(([name, text]) =>
              leaks(text, token).map(f => `${name}: ${f}`)
            )
            expect(found).toEqual([])
          } finally {
            await service.close()
          }
        }
      ),
      { numRuns: 60 }
    )
  }, 60_000)
})
