/**
 * README's proxy promises tried with the values and networks a new user's runner has, through the
 * bundled action as the runner starts it and a real forward proxy (`__fixtures__/forward-proxy.ts`):
 * an `https://` proxy (TLS to the proxy itself), a proxy on an IPv6 address with an upper-case
 * scheme and credentials holding `@`, `:` and `%`, and loopback beyond `127.0.0.1` and
 * `localhost` (`127.0.0.2`, `[::1]`), which never goes through a proxy.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { startForwardProxy, type ForwardProxy } from '../../__fixtures__/forward-proxy.js'
import { startTlsFront, type TlsFront } from '../../__fixtures__/tls-front.js'
import type { Emulator } from '../../emulator/index.js'
import { runAction, type ActionRun } from '../../scripts/run-action.js'

const HOST = 'api.corp.test'

const closers: (() => Promise<void>)[] = []
let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'odd-networks-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

async function emulatorOn(host?: string): Promise<Emulator> {
  const started = await withEmulator(host ? { host } : {})
  closers.push(() => started.close())
  return started
}

/** The emulator behind https as `api.corp.test`, a name only the proxy resolves. */
async function service(): Promise<{ emulator: Emulator; front: TlsFront }> {
  const emulator = await emulatorOn()
  const front = await startTlsFront(Number(new URL(emulator.url).port), HOST)
  closers.push(() => front.close())
  return { emulator, front }
}

async function forwardProxy(credentials?: string): Promise<ForwardProxy> {
  const started = await startForwardProxy({
    hosts: { [HOST]: '127.0.0.1' },
    ...(credentials ? { credentials } : {})
  })
  closers.push(() => started.close())
  return started
}

/** A TCP relay listening on `host`, passing each connection on to 127.0.0.1:`port`. */
async function relay(host: string, port: number): Promise<number> {
  const sockets = new Set<Socket>()
  const server = createServer(client => {
    const upstream = connect(port, '127.0.0.1')
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('error', () => undefined).on('close', () => sockets.delete(s))
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>(resolve => server.listen(0, host, resolve))
  closers.push(async () => {
    const closed = new Promise<void>(resolve => server.close(() => resolve()))
    for (const s of sockets) s.destroy()
    await closed
  })
  return (server.address() as AddressInfo).port
}

function record(apiUrl: string, env: Record<string, string>): Promise<ActionRun> {
  return runAction(
    {
      token: TOKEN,
      'api-url': apiUrl,
      digest: 'ghcr.io/acme/web@sha256:' + 'ab'.repeat(32),
      environment: 'production',
      'registry-url': 'https://ghcr.io',
      'max-retries': '0'
    },
    env
  )
}

const recorded = (run: ActionRun) =>
  run.code === 0 &&
  /^\d+$/.test(run.outputs['deployment-record-ids'] ?? '') &&
  /^\d+$/.test(run.outputs['storage-record-ids'] ?? '')
const tunnels = (p: ForwardProxy) => p.seen.filter(s => s.method === 'CONNECT' && !s.refused)

test('an https:// proxy (TLS to the proxy itself, its certificate trusted like the service’s) carries the run', async () => {
  const { emulator, front } = await service()
  const plain = await forwardProxy()
  // The proxy behind TLS as `localhost`, with a certificate of its own.
  const tlsProxy = await startTlsFront(Number(new URL(plain.url).port), 'localhost')
  closers.push(() => tlsProxy.close())
  const bundle = join(dir, 'ca-bundle.pem')
  writeFileSync(bundle, readFileSync(front.caFile, 'utf8') + readFileSync(tlsProxy.caFile, 'utf8'))

  const run = await record(front.url, {
    HTTPS_PROXY: tlsProxy.url,
    NODE_EXTRA_CA_CERTS: bundle
  })
  expect(run.stdout).not.toMatch(/::error::/)
  expect(recorded(run)).toBe(true)
  expect(tlsProxy.connections).toBeGreaterThan(0)
  expect(tunnels(plain).length).toBeGreaterThan(0)
  expect(emulator.requests.filter(r => r.method === 'POST')).toHaveLength(2)
})

test('a proxy on an IPv6 address, upper-case scheme, credentials holding @ : % (percent-encoded) carries the run', async () => {
  const { front } = await service()
  const password = 'p@ss:w%rd/1'
  const guarded = await forwardProxy(`deploy:${password}`)
  const port = await relay('::1', Number(new URL(guarded.url).port))
  const run = await record(front.url, {
    https_proxy: `HTTP://deploy:${encodeURIComponent(password)}@[::1]:${port}`,
    NODE_EXTRA_CA_CERTS: front.caFile
  })
  expect(run.stdout).not.toMatch(/::error::/)
  expect(recorded(run)).toBe(true)
  expect(tunnels(guarded).length).toBeGreaterThan(0)
  expect(guarded.seen.every(s => s.credentials === `deploy:${password}`)).toBe(true)
  expect(run.stdout).not.toContain(encodeURIComponent(password))
})

test.each([
  ['127.0.0.2 (all of 127.0.0.0/8)', '127.0.0.2'],
  ['[::1]', '::1']
])('loopback %s never goes through a proxy, whatever the variables say', async (_name, host) => {
  const emulator = await emulatorOn(host)
  const open = await forwardProxy()
  const run = await record(emulator.url, {
    HTTPS_PROXY: open.url,
    HTTP_PROXY: open.url,
    http_proxy: open.url,
    ALL_PROXY: open.url
  })
  expect(run.stdout).not.toMatch(/::error::/)
  expect(recorded(run)).toBe(true)
  expect(open.seen).toEqual([])
})
