/**
 * Behind a corporate proxy: HTTPS_PROXY / HTTP_PROXY / NO_PROXY (either case) are honoured as the
 * runner's own tools honour them, through a real forward proxy on loopback that counts what
 * passed through it. The release demo through a proxy: `npm run demo -- --proxy --check`.
 */
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { startForwardProxy, type ForwardProxy } from '../../__fixtures__/forward-proxy.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import { singleDeployment } from '../../__fixtures__/reliability.js'
import { ScaledClock } from '../../__fixtures__/scaled-clock.js'
import type { Emulator } from '../../emulator/index.js'
import { runAction } from '../../scripts/run-action.js'
import { parseInputs } from '../../src/inputs/index.js'
import { run } from '../../src/run.js'

let emulator: Emulator
let proxy: ForwardProxy
beforeEach(async () => {
  emulator = await withEmulator()
  proxy = await startForwardProxy()
})
afterEach(async () => {
  await emulator.close()
  await proxy.close()
})

const port = () => new URL(emulator.url).port

async function recordThrough(env: Record<string, string>) {
  const log = new MemoryLog()
  const result = await run(parseInputs(singleDeployment(emulator.url), {}), {
    env,
    log,
    clock: new ScaledClock(1000)
  })
  return { result, log }
}

test('the bundled action sends every request through HTTP_PROXY / HTTPS_PROXY and records as without one', async () => {
  const inputs = {
    token: TOKEN,
    'api-url': emulator.url,
    digest: 'ghcr.io/acme/web@sha256:' + 'ab'.repeat(32),
    environment: 'production',
    'registry-url': 'https://ghcr.io'
  }
  const action = await runAction(inputs, { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url })
  expect(action.code).toBe(0)
  expect(action.outputs['deployment-record-ids']).toMatch(/^\d+$/)
  expect(action.outputs['storage-record-ids']).toMatch(/^\d+$/)
  expect(action.stdout).toContain(`Requests go through the proxy ${proxy.url}`)
  // Nothing reached the service around the proxy: every connection was opened through it.
  expect(proxy.seen.length).toBeGreaterThan(0)
  expect(proxy.seen.every(p => p.target.includes(`127.0.0.1:${port()}`))).toBe(true)
  expect(action.stderr).not.toMatch(/experimental/)
})

test.each([
  ['lower case http_proxy', { http_proxy: 'PROXY' }],
  ['HTTPS_PROXY alone, which is for https only: plain http goes direct', { HTTPS_PROXY: 'PROXY' }]
])('%s is honoured', async (_name, given) => {
  const env = Object.fromEntries(
    Object.entries(given).map(([k, v]) => [k, v.replace('PROXY', proxy.url)])
  )
  // HTTPS_PROXY alone does not carry plain-http requests: undici sends http through HTTP_PROXY.
  const { result } = await recordThrough(env)
  expect(result.failures).toEqual([])
  if ('HTTPS_PROXY' in given) expect(proxy.seen).toEqual([])
  else expect(proxy.seen.length).toBeGreaterThan(0)
})

test.each([
  ['the host and port', () => `example.test,127.0.0.1:${port()}`],
  ['the host', () => '127.0.0.1'],
  ['*', () => '*'],
  ['a leading dot suffix of another host only', () => '.example.test']
])('NO_PROXY naming %s', async (name, noProxy) => {
  const { result } = await recordThrough({ HTTP_PROXY: proxy.url, NO_PROXY: noProxy() })
  expect(result.failures).toEqual([])
  if (name.startsWith('a leading dot')) expect(proxy.seen.length).toBeGreaterThan(0)
  else expect(proxy.seen).toEqual([])
})

test('NO_PROXY with another port still goes through the proxy', async () => {
  const { result } = await recordThrough({ HTTP_PROXY: proxy.url, no_proxy: '127.0.0.1:1' })
  expect(result.failures).toEqual([])
  expect(proxy.seen.length).toBeGreaterThan(0)
})

test('retries and redirects work the same through the proxy', async () => {
  const path = '/orgs/acme/artifacts/metadata/deployment-record'
  emulator.addFault({ method: 'POST', path, fault: { kind: 'status', status: 503 } })
  emulator.addFault({
    method: 'POST',
    path,
    fault: { kind: 'redirect', status: 307, location: `${emulator.url}/api/v3${path}` }
  })
  const { result, log } = await recordThrough({ HTTP_PROXY: proxy.url })
  expect(result.failures).toEqual([])
  expect(log.text()).toMatch(/server error 503; retry 1 of 3/)
  const writes = emulator.requests.filter(r => r.path.endsWith('deployment-record'))
  expect(writes.map(w => w.status)).toEqual([503, 307, 200])
  expect(proxy.seen.length).toBeGreaterThan(0)
})

test('a proxy that refuses connections stops the run and names the proxy', async () => {
  const refused = proxy.url
  await proxy.close()
  const { result } = await recordThrough({ HTTP_PROXY: refused })
  expect(result.failures[0]?.fatal).toBe(true)
  expect(result.failures[0]?.message).toMatch(/cannot be reached/)
  expect(result.failures[0]?.message).toContain(`the proxy ${refused}`)
  expect(result.notAttempted).toHaveLength(1)
})
