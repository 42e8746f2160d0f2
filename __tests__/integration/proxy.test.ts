// Over 300 lines: every proxy rule runs through one real proxy and https front, started once.
/**
 * Behind a corporate proxy, as the runner's own tools (@actions/http-client, curl) read
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY: the bundled action, started by the launcher, against the
 * emulator behind https (`__fixtures__/tls-front.ts`: a self-signed certificate for
 * `api.corp.test`, trusted through NODE_EXTRA_CA_CERTS) and a real forward proxy on loopback that
 * alone resolves that name and counts what passed through it. A request that goes around the
 * proxy cannot resolve `api.corp.test` and says so; one through it is a CONNECT tunnel.
 * The release demo through a proxy: `npm run demo -- --proxy --check`.
 */
import fc from 'fast-check'
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import {
  startForwardProxy,
  type ForwardProxy,
  type ForwardProxyOptions
} from '../../__fixtures__/forward-proxy.js'
import { startTlsFront, type TlsFront } from '../../__fixtures__/tls-front.js'
import type { Emulator } from '../../emulator/index.js'
import { runAction, type ActionRun } from '../../scripts/run-action.js'

const HOST = 'api.corp.test'
const RECORDS = '/orgs/acme/artifacts/metadata'

let emulator: Emulator
let front: TlsFront
const proxies: ForwardProxy[] = []
beforeEach(async () => {
  emulator = await withEmulator()
  front = await startTlsFront(Number(new URL(emulator.url).port), HOST)
})
afterEach(async () => {
  await Promise.all(proxies.splice(0).map(p => p.close()))
  await front.close()
  await emulator.close()
})

/** A forward proxy that resolves `api.corp.test` to the TLS front on loopback. */
async function proxy(options: ForwardProxyOptions = {}): Promise<ForwardProxy> {
  const started = await startForwardProxy({ hosts: { [HOST]: '127.0.0.1' }, ...options })
  proxies.push(started)
  return started
}

const port = (url: string) => new URL(url).port

/**
 * One storage record and one deployment record, to `api-url` (the https front unless given).
 * Without retries: a request that went around the proxy fails on its first "does not resolve".
 */
function record(
  env: Record<string, string>,
  apiUrl = front.url,
  retries = '0'
): Promise<ActionRun> {
  return runAction(
    {
      token: TOKEN,
      'api-url': apiUrl,
      digest: 'ghcr.io/acme/web@sha256:' + 'ab'.repeat(32),
      environment: 'production',
      'registry-url': 'https://ghcr.io',
      'max-retries': retries
    },
    { NODE_EXTRA_CA_CERTS: front.caFile, ...env }
  )
}

const tunnels = (p: ForwardProxy) => p.seen.filter(s => s.method === 'CONNECT')
const recorded = (run: ActionRun) =>
  run.code === 0 &&
  /^\d+$/.test(run.outputs['deployment-record-ids'] ?? '') &&
  /^\d+$/.test(run.outputs['storage-record-ids'] ?? '')

test('an https api-url goes through HTTPS_PROXY in a CONNECT tunnel and records as without one', async () => {
  const open = await proxy()
  const run = await record({ HTTPS_PROXY: open.url })
  expect(run.stderr).toBe('')
  expect(recorded(run)).toBe(true)
  expect(run.stdout).toContain(`Requests go through the proxy ${open.url}`)
  // Every request of the run went through the tunnel to the https front, none around it.
  expect(open.seen.length).toBeGreaterThan(0)
  expect(open.seen.every(s => s.method === 'CONNECT' && s.target === `${HOST}:${front.port}`)).toBe(
    true
  )
  expect(front.connections).toBe(open.seen.length)
  expect(emulator.requests.map(r => r.path)).toEqual([
    `${RECORDS}/storage-record`,
    `${RECORDS}/deployment-record`
  ])
})

test('HTTPS_PROXY without a scheme (host:port, common on self-hosted runners) is an http proxy', async () => {
  const open = await proxy()
  const run = await record({ HTTPS_PROXY: `127.0.0.1:${port(open.url)}` })
  expect(run.stdout).not.toMatch(/unexpected error/)
  expect(recorded(run)).toBe(true)
  expect(tunnels(open).length).toBeGreaterThan(0)
})

// The shapes proxy values have on runners: either case of the name, with or without `http://`,
// with credentials (percent-encoded where they must be), a trailing slash, surrounding blanks,
// and an empty variable of the other case beside it. Each through the bundled action.
test('generated HTTPS_PROXY values and names reach the proxy, with their credentials', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        lower: fc.boolean(),
        scheme: fc.boolean(),
        user: fc.option(
          fc.tuple(
            fc.stringMatching(/^[a-z][a-z0-9._-]{0,8}$/),
            fc.string({ minLength: 1, maxLength: 10, unit: 'binary-ascii' })
          ),
          { nil: undefined }
        ),
        slash: fc.boolean(),
        blanks: fc.boolean(),
        emptyOther: fc.boolean()
      }),
      async shape => {
        const credentials = shape.user ? `${shape.user[0]}:${shape.user[1]}` : undefined
        const p = await proxy(credentials ? { credentials } : {})
        const auth = shape.user
          ? `${encodeURIComponent(shape.user[0])}:${encodeURIComponent(shape.user[1])}@`
          : ''
        let value = `${shape.scheme ? 'http://' : ''}${auth}127.0.0.1:${port(p.url)}`
        if (shape.slash) value += '/'
        if (shape.blanks) value = ` ${value} `
        const [name, other] = shape.lower
          ? ['https_proxy', 'HTTPS_PROXY']
          : ['HTTPS_PROXY', 'https_proxy']
        const run = await record({ [name]: value, ...(shape.emptyOther ? { [other]: '' } : {}) })
        expect(recorded(run)).toBe(true)
        expect(tunnels(p).length).toBeGreaterThan(0)
        expect(p.seen.every(s => s.refused === undefined && s.credentials === credentials)).toBe(
          true
        )
        // The log names the proxy, never its password.
        if (shape.user) expect(run.stdout).not.toContain(encodeURIComponent(shape.user[1]) + '@')
      }
    ),
    { numRuns: 6, seed: 17 }
  )
})

test('HTTP_PROXY alone does not carry https requests, as with the toolkit and curl', async () => {
  const open = await proxy()
  const run = await record({ HTTP_PROXY: open.url })
  expect(open.seen).toEqual([])
  // Direct, the runner cannot resolve the name the proxy would have.
  expect(run.stdout).toMatch(/cannot be reached: the host name does not resolve/)
})

describe('NO_PROXY', () => {
  test.each([
    ['a parent domain (suffix match, as curl and the toolkit)', 'corp.test'],
    ['a parent domain with a leading dot', '.corp.test'],
    ['a parent domain as *.', '*.corp.test'],
    ['the host itself, in capitals', 'API.CORP.TEST'],
    ['the host and its port', () => `${HOST}:${front.port}`],
    ['*', '*'],
    ['an entry among others, with blanks', ' example.com , corp.test ,10.0.0.1 ']
  ])('naming %s: the request goes direct', async (_name, entry) => {
    const open = await proxy()
    const noProxy = typeof entry === 'function' ? entry() : entry
    const run = await record({ HTTPS_PROXY: open.url, NO_PROXY: noProxy })
    expect(open.seen).toEqual([])
    expect(run.stdout).toMatch(/cannot be reached: the host name does not resolve/)
  })

  test.each([
    ['another port of the host', () => `${HOST}:1`],
    ['a name that only ends like it', () => 'orp.test'],
    ['a subdomain of the host', () => `www.${HOST}`],
    ['another domain', () => 'example.com,.example.org']
  ])('naming %s: the request goes through the proxy', async (_name, entry) => {
    const open = await proxy()
    const run = await record({ HTTPS_PROXY: open.url, no_proxy: entry() })
    expect(recorded(run)).toBe(true)
    expect(tunnels(open).length).toBeGreaterThan(0)
  })
})

test.each([
  ['127.0.0.1', (url: string) => url],
  ['localhost', (url: string) => url.replace('127.0.0.1', 'localhost')]
])(
  'loopback (%s) is never sent through the proxy, whatever the variables say',
  async (_name, apiUrl) => {
    const open = await proxy()
    const run = await record(
      { HTTPS_PROXY: open.url, HTTP_PROXY: open.url, http_proxy: open.url },
      apiUrl(emulator.url)
    )
    expect(recorded(run)).toBe(true)
    expect(open.seen).toEqual([])
  }
)

describe('a proxy value the step cannot use', () => {
  test('an unsupported scheme in use is one clear error naming the variable, with every output set', async () => {
    const run = await record({ HTTPS_PROXY: 'socks5://deploy:s3cret@127.0.0.1:1080' })
    expect(run.code).toBe(1)
    expect(run.stdout).not.toMatch(/unexpected error/)
    expect(run.stdout).toMatch(
      /HTTPS_PROXY cannot be used for api\.corp\.test: its scheme socks5:\/\/ is not one the step can use/
    )
    expect(run.stdout).toMatch(/Not attempted: deployment record/)
    expect(run.stdout).not.toContain('s3cret')
    expect(emulator.requests).toEqual([])
    // The outputs are there for the steps after, empty.
    expect(run.outputs['storage-records']).toBe('[]')
    expect(run.outputs['deployment-records']).toBe('[]')
  })

  test.each([
    ['a plain-http loopback api-url', { HTTPS_PROXY: 'socks5://127.0.0.1:1080' }, 'loopback'],
    [
      'HTTP_PROXY, for loopback',
      { HTTP_PROXY: 'socks4://127.0.0.1:1080', HTTPS_PROXY: 'socks5h://p:1080' },
      'loopback'
    ],
    ['NO_PROXY=*', { HTTPS_PROXY: 'socks5://127.0.0.1:1080', NO_PROXY: '*' }, 'front']
  ])('is not an error when nothing would use it: %s', async (_name, env, target) => {
    const run = await record(env, target === 'loopback' ? emulator.url : front.url)
    expect(run.stdout).not.toMatch(/unexpected error|cannot be used/)
    if (target === 'loopback') expect(recorded(run)).toBe(true)
    // Direct to a name only the proxy knows: it went around the proxy, as NO_PROXY said.
    else expect(run.stdout).toMatch(/cannot be reached: the host name does not resolve/)
  })
})

describe('a proxy that asks for credentials (407)', () => {
  test.each([
    ['wrong ones', (url: string) => url.replace('http://', 'http://deploy:wr%40ng@')],
    ['none', (url: string) => url]
  ])(
    'given %s, stops the run once and names the proxy and its credentials, not api-url',
    async (_name, value) => {
      const guarded = await proxy({ credentials: 'deploy:right' })
      const run = await record({ HTTPS_PROXY: value(guarded.url) })
      expect(run.code).toBe(1)
      // One CONNECT, refused: not retried, and nothing after it tried.
      expect(guarded.seen).toHaveLength(1)
      expect(guarded.seen[0]?.refused).toBe(407)
      expect(emulator.requests).toEqual([])
      expect(run.stdout).toContain(`the proxy ${guarded.url} refused the request: 407`)
      expect(run.stdout).toMatch(/The proxy's credentials are what to fix: .* in HTTPS_PROXY/)
      expect(run.stdout).toMatch(/Not attempted: deployment record/)
      expect(run.stdout).not.toMatch(/api-url|wr%40ng|wr@ng|retry 1/)
      expect(run.outputs['deployment-records']).toBe('[]')
    }
  )

  test('given the right ones, records through it', async () => {
    const guarded = await proxy({ credentials: 'deploy:p@ss word' })
    const run = await record({
      HTTPS_PROXY: guarded.url.replace('http://', 'http://deploy:p%40ss%20word@')
    })
    expect(recorded(run)).toBe(true)
    expect(guarded.seen.every(s => s.credentials === 'deploy:p@ss word' && !s.refused)).toBe(true)
  })
})

test('a proxy whose rules block the host (403 to the CONNECT) stops the run once and says so', async () => {
  const strict = await proxy({ deny: [HOST] })
  const run = await record({ HTTPS_PROXY: strict.url }, front.url, '3')
  expect(run.code).toBe(1)
  expect(strict.seen).toHaveLength(1)
  expect(strict.seen[0]?.refused).toBe(403)
  expect(run.stdout).toContain(
    `the proxy ${strict.url} refused to open a connection to ${HOST}:${front.port} (403)`
  )
  expect(run.stdout).toMatch(/Not attempted: deployment record/)
  expect(run.stdout).not.toMatch(/retry 1/)
})

test('retries and redirects work the same through the proxy', async () => {
  const open = await proxy()
  const path = `${RECORDS}/deployment-record`
  emulator.addFault({ method: 'POST', path, fault: { kind: 'status', status: 503 } })
  emulator.addFault({
    method: 'POST',
    path,
    fault: { kind: 'redirect', status: 307, location: `${front.url}/api/v3${path}` }
  })
  const run = await record({ HTTPS_PROXY: open.url }, front.url, '3')
  expect(recorded(run)).toBe(true)
  expect(run.stdout).toMatch(/server error 503; retry 1 of 3/)
  const writes = emulator.requests.filter(r => r.path.endsWith('deployment-record'))
  expect(writes.map(w => w.status)).toEqual([503, 307, 200])
  expect(tunnels(open).length).toBeGreaterThan(0)
})

test('a proxy that refuses connections stops the run and names the proxy', async () => {
  const closed = await proxy()
  await closed.close()
  const run = await record({ HTTPS_PROXY: closed.url }, front.url, '1')
  expect(run.code).toBe(1)
  expect(run.stdout).toMatch(/cannot be reached: connection refused .*, on all 2 attempts/)
  expect(run.stdout).toContain(`the proxy ${closed.url}`)
  expect(run.stdout).toMatch(/Not attempted: deployment record/)
})
