// A request undici never settles (one queued behind a proxy tunnel it lost track of) still ends:
// the attempt's own deadline settles it as a timeout, counted against max-retries.
import type { Dispatcher } from 'undici'
import { ServiceClient } from '../../src/client/client.js'
import { ServiceError } from '../../src/client/errors.js'
import { FakeClock } from '../../__fixtures__/fake-clock.js'

/** A dispatcher whose requests never settle, counting them. */
function lostRequests() {
  const sent = { count: 0 }
  const dispatcher = {
    request: () => {
      sent.count++
      return new Promise(() => undefined)
    },
    close: async () => undefined,
    destroy: async () => undefined
  } as unknown as Dispatcher
  return { dispatcher, sent }
}

test('a request that never settles ends at the attempt deadline, each attempt counted', async () => {
  const { dispatcher, sent } = lostRequests()
  const client = new ServiceClient({
    baseUrl: 'https://api.example.test',
    token: 't',
    apiVersion: '2026-03-10',
    maxRetries: 1,
    userAgent: 'test',
    dispatcher,
    clock: new FakeClock(),
    random: () => 0,
    // real time: the deadline is a timer of its own (it must hold the process open)
    requestTimeoutMs: 20
  })
  const error = (await client.request('GET', '/x').catch(e => e)) as ServiceError
  expect(error).toBeInstanceOf(ServiceError)
  expect(error.message).toContain('no response in time (no answer in 20 ms); gave up after 1 retry')
  expect(sent.count).toBe(2)
})
