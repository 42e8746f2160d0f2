/**
 * A `next` link that spells out the default port (`https://api.corp.test:443/...`) is `api-url`'s
 * origin (src/client/origin.ts): the emulator behind https (`__fixtures__/tls-front.ts`) writes
 * its list pages' links with `:443`, and the real client reads every page with the token. Before,
 * page 2 went without it as "another origin", and failed advising to fix `api-url`.
 */
import { readFileSync } from 'node:fs'
import { connect } from 'node:tls'
import { Agent } from 'undici'
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { startTlsFront, type TlsFront } from '../../__fixtures__/tls-front.js'
import type { Emulator } from '../../emulator/index.js'
import { ServiceClient } from '../../src/client/client.js'

const HOST = 'api.corp.test'
let emulator: Emulator
let front: TlsFront
beforeAll(async () => {
  emulator = await withEmulator()
  front = await startTlsFront(Number(new URL(emulator.url).port), HOST)
})
afterAll(async () => {
  await front.close()
  await emulator.close()
})

test('a next link with :443 is read with the token, page after page, from an api-url without it', async () => {
  const ca = readFileSync(front.caFile)
  // Every connection to api.corp.test, whatever port its URL names (443 here), reaches the front.
  const agent = new Agent({
    connect: (_options, callback) => {
      const socket = connect({ host: '127.0.0.1', port: front.port, servername: HOST, ca })
      socket.once('secureConnect', () => callback(null, socket))
      socket.once('error', error => callback(error, null))
    }
  })
  // the links the emulator writes name the service as https://api.corp.test:443
  emulator.url = `https://${HOST}:443`
  const names = ['a', 'b', 'c', 'd', 'e']
  emulator.seed({ labels: { 'acme/web': names.map(name => ({ name, color: 'ededed' })) } })
  const client = new ServiceClient({
    baseUrl: `https://${HOST}`,
    token: TOKEN,
    apiVersion: '2026-03-10',
    maxRetries: 0,
    userAgent: 'record-deployment/test',
    dispatcher: agent
  })
  try {
    const labels = await client.paginate('/repos/acme/web/labels?per_page=2', body =>
      (body as Array<{ name: string }>).map(l => l.name)
    )
    expect(labels).toEqual(names)
  } finally {
    await client.close()
  }
  const reads = emulator.requests.filter(r => r.path === '/repos/acme/web/labels')
  expect(reads.map(r => [r.url, r.headers['authorization'], r.status])).toEqual([
    ['/repos/acme/web/labels?per_page=2', `Bearer ${TOKEN}`, 200],
    ['/repos/acme/web/labels?per_page=2&page=2', `Bearer ${TOKEN}`, 200],
    ['/repos/acme/web/labels?per_page=2&page=3', `Bearer ${TOKEN}`, 200]
  ])
})
