/**
 * Faults beside the matrix (fault-matrix.test.ts), not counted in its README figures: a hang
 * named once, redirects past MAX_REDIRECTS, the emulator's own measure of the write spacing on
 * the real clock, and the 403 secondary limit's exact waits on the fake clock.
 */
import { performance } from 'node:perf_hooks'
import { smallestWriteGap } from '../../__fixtures__/emulator.js'
import { FakeClock } from '../../__fixtures__/fake-clock.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import { WRITE_GAP_MS } from '../../__fixtures__/reliability.js'
import { ScaledClock } from '../../__fixtures__/scaled-clock.js'
import { MAX_REDIRECTS } from '../../src/client/client.js'
import { UNTIMED_RATE_LIMIT_WAIT_MS } from '../../src/client/retry-policy.js'
import { parseInputs } from '../../src/step/parse-inputs.js'
import { run } from '../../src/step/run.js'
import {
  SCALE,
  HANG_TIMEOUT_MS,
  MAX_RETRIES,
  emulator,
  useFaultMatrixEmulator,
  type Endpoint,
  ENDPOINTS,
  rawInputsFor,
  expectedRecords,
  RATE_LIMIT_MESSAGE,
  toEndpoint
} from '../../__fixtures__/fault-matrix.js'

useFaultMatrixEmulator()

test('no answer in time is named once in the failure', async () => {
  emulator.addFault({ method: 'POST', path: ENDPOINTS[0]?.path, times: 2, fault: { kind: 'hang' } })
  const result = await run(parseInputs(rawInputsFor('single', 1), {}), {
    clock: new ScaledClock(SCALE),
    log: new MemoryLog(),
    requestTimeoutMs: HANG_TIMEOUT_MS
  })
  const message = result.failures[0]?.message ?? ''
  expect(message.match(new RegExp(`no answer in ${HANG_TIMEOUT_MS} ms`, 'g'))).toHaveLength(1)
})

test('redirects past MAX_REDIRECTS fail the step without writing', async () => {
  const endpoint = ENDPOINTS[1] as Endpoint
  // A 307 back to the same URL, one more time than the client follows.
  emulator.addFault({
    method: 'POST',
    path: endpoint.path,
    times: MAX_REDIRECTS + 1,
    fault: { kind: 'redirect', status: 307, location: `${emulator.url}${endpoint.path}` }
  })
  const result = await run(
    parseInputs(
      rawInputsFor('single', MAX_RETRIES, { 'registry-url': '', 'registry-repository': '' }),
      {}
    ),
    { clock: new FakeClock(), log: new MemoryLog() }
  )
  expect(result.failures[0]?.message).toMatch(new RegExp(`more than ${MAX_REDIRECTS} redirects`))
  expect(toEndpoint(emulator.requests, endpoint)).toHaveLength(MAX_REDIRECTS + 1)
  expect(expectedRecords('single')[1]?.found()).toHaveLength(0)
})

// ---------------------------------------------------------------------------------------------
// Real clock: the emulator's own measure of the spacing, with retries in between

describe('with the real clock', () => {
  test('storage 503 then deployment 429: the emulator measures >= 1 s between writes', async () => {
    emulator.addFault({
      method: 'POST',
      path: ENDPOINTS[0]?.path,
      fault: { kind: 'status', status: 503 }
    })
    emulator.addFault({
      method: 'POST',
      path: ENDPOINTS[1]?.path,
      fault: { kind: 'status', status: 429, headers: { 'retry-after': '1' } }
    })
    const started = performance.now()
    const result = await run(parseInputs(rawInputsFor('single', 1), {}), {
      random: () => 0,
      log: new MemoryLog()
    })
    expect(result.failures).toEqual([])
    const writes = emulator.requests.filter(r => r.method === 'POST')
    expect(writes.map(w => w.status)).toEqual([503, 200, 429, 200])
    // arrivedAt of each write minus finishedAt of the previous, as the server saw them.
    expect(smallestWriteGap(emulator.requests)).toBeGreaterThanOrEqual(WRITE_GAP_MS)
    expect(performance.now() - started).toBeGreaterThanOrEqual(3 * WRITE_GAP_MS)
    for (const e of expectedRecords('single')) expect(e.found()).toHaveLength(1)
  })
})

// ---------------------------------------------------------------------------------------------
// The 403 secondary limit on the fake clock: exact waits, no real time at all

test('403 secondary limit without headers, fake clock: waits 60 s, then 120 s, then succeeds', async () => {
  const clock = new FakeClock()
  emulator.addFault({
    method: 'POST',
    path: ENDPOINTS[1]?.path,
    times: 2,
    fault: { kind: 'status', status: 403, body: { message: RATE_LIMIT_MESSAGE } }
  })
  const result = await run(
    parseInputs(rawInputsFor('single', 2, { 'registry-url': '', 'registry-repository': '' }), {}),
    { clock, log: new MemoryLog() }
  )
  expect(result.failures).toEqual([])
  expect(clock.sleeps).toEqual([UNTIMED_RATE_LIMIT_WAIT_MS, 2 * UNTIMED_RATE_LIMIT_WAIT_MS])
  expect(expectedRecords('single')[1]?.found()).toHaveLength(1)
})
