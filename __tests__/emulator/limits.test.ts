// The emulator's `limits` option: GitHub's documented rate limits, as the service answers them.
import {
  startEmulator,
  type Emulator,
  type LimitOptions,
  type Limits
} from '../../emulator/index.js'
import { call, TOKEN } from './helpers.js'

let emulator: Emulator
afterEach(async () => emulator.close())

async function start(limits: LimitOptions) {
  emulator = await startEmulator({
    tokens: { [TOKEN]: { permissions: 'all' } },
    limits,
    seed: { pulls: { 'acme/web': [{ number: 1, title: 'One', merged: true }] } }
  })
}
const label = () => call(emulator, 'POST', '/repos/acme/web/issues/1/labels', { labels: ['x'] })

test('the 81st write in a minute is refused with 403 and retry-after; reads still go', async () => {
  await start({})
  for (let i = 0; i < 80; i++) expect((await label()).status).toBe(200)
  const refused = await label()
  expect(refused.status).toBe(403)
  expect(refused.json.message).toMatch(/exceeded a secondary rate limit/)
  const after = Number(refused.headers.get('retry-after'))
  expect(after).toBeGreaterThan(0)
  expect(after).toBeLessThanOrEqual(60)
  expect((await call(emulator, 'GET', '/repos/acme/web/issues/1')).status).toBe(200)
  expect((emulator.limits as Limits).refused).toEqual({ secondary: 1, primary: 0 })
})

test('the 501st write in an hour is refused until the first leaves it (a scaled clock: minutes pass in milliseconds)', async () => {
  // 100x: the hour passes in 36 s of real time (the minute's limit lifted for the test).
  await start({ clockScale: 100, writesPerMinute: 1000 })
  for (let i = 0; i < 500; i++) expect((await label()).status).toBe(200)
  const refused = await label()
  expect(refused.status).toBe(403)
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(60)
})

test("`secondarySignal: 'none'` refuses without retry-after, as the service sometimes does", async () => {
  await start({ writesPerMinute: 1, secondarySignal: 'none' })
  await label()
  const refused = await label()
  expect(refused.status).toBe(403)
  expect(refused.headers.get('retry-after')).toBeNull()
})

test('past requestsPerHour: 403 with x-ratelimit-remaining 0 and the reset; every answer tells the quota', async () => {
  await start({ requestsPerHour: 3 })
  const first = await call(emulator, 'GET', '/repos/acme/web/issues/1')
  expect(first.headers.get('x-ratelimit-limit')).toBe('3')
  expect(first.headers.get('x-ratelimit-remaining')).toBe('2')
  await call(emulator, 'GET', '/repos/acme/web/issues/1')
  await call(emulator, 'GET', '/repos/acme/web/issues/1')
  const refused = await call(emulator, 'GET', '/repos/acme/web/issues/1')
  expect(refused.status).toBe(403)
  expect(refused.json.message).toMatch(/API rate limit exceeded/)
  expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')
  const reset = Number(refused.headers.get('x-ratelimit-reset')) * 1000
  expect(reset).toBeGreaterThan(Date.now() + 3_590_000)
})
