/**
 * The documented limits: each pinned to its value (README, "How it talks to the service") and
 * each with a test that fails if the behavior behind it changes without the number changing.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { DIGEST, TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { FakeClock } from '../../__fixtures__/fake-clock.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import {
  RecordingDispatcher,
  singleDeployment,
  wholeCluster
} from '../../__fixtures__/reliability.js'
import type { Emulator } from '../../emulator/index.js'
import { MAX_REDIRECTS, REQUEST_TIMEOUT_MS, ServiceClient } from '../../src/client/client.js'
import { WRITE_GAP_MS } from '../../src/client/pacer.js'
import {
  BACKOFF_BASE_MS,
  BACKOFF_CAP_MS,
  RESET_MARGIN_MS,
  UNTIMED_RATE_LIMIT_WAIT_MS
} from '../../src/client/retry-policy.js'
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIME_BUDGET,
  MAX_RETRIES_LIMIT,
  parseInputs
} from '../../src/step/parse-inputs.js'
import { run } from '../../src/step/run.js'

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator()
})
afterAll(async () => emulator.close())
beforeEach(() => emulator.reset())

const DEPLOYMENT_PATH = '/orgs/acme/artifacts/metadata/deployment-record'
const STORAGE_PATH = '/orgs/acme/artifacts/metadata/storage-record'
const deploymentOnly = (over: Record<string, string> = {}) =>
  singleDeployment(emulator.url, { 'registry-url': '', 'registry-repository': '', ...over })

test('the values README documents', () => {
  // README "How it talks to the service": change both together, never one alone.
  expect(REQUEST_TIMEOUT_MS).toBe(20_000) // "timeouts (20 s per attempt)"
  expect(WRITE_GAP_MS).toBe(1000) // "at least 1 s after the previous write finished"
  expect(BACKOFF_BASE_MS).toBe(1000) // "1 s doubling"
  expect(BACKOFF_CAP_MS).toBe(30_000) // "capped at 30 s"
  expect(UNTIMED_RATE_LIMIT_WAIT_MS).toBe(60_000) // "else 60 s doubling per repeat"
  expect(DEFAULT_TIME_BUDGET).toBe(330) // "`time-budget` ... 330": a job's 360 minutes, less 30
  expect(MAX_REDIRECTS).toBe(5) // "at most 5"
  expect(DEFAULT_MAX_RETRIES).toBe(3) // interface.md: `max-retries` default 3
  expect(MAX_RETRIES_LIMIT).toBe(10)
  expect(RESET_MARGIN_MS).toBe(1000)
})

describe('per-request timeout', () => {
  let server: Server
  let url: string
  let delayMs = 0
  beforeAll(async () => {
    // Answers after `delayMs`; never, when it is negative.
    server = createServer((req, res) => {
      if (delayMs < 0) return
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{"ok":true}')
      }, delayMs)
    })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise(resolve => server.close(resolve))
  })

  const client = (wire: RecordingDispatcher, requestTimeoutMs?: number) =>
    new ServiceClient({
      baseUrl: url,
      token: TOKEN,
      apiVersion: '2026-03-10',
      maxRetries: 1,
      userAgent: 'reliability-test',
      dispatcher: wire.dispatcher,
      clock: new FakeClock(),
      random: () => 0,
      requestTimeoutMs
    })

  test('REQUEST_TIMEOUT_MS is what every attempt is sent with by default', async () => {
    delayMs = 0
    const wire = new RecordingDispatcher(new FakeClock())
    await client(wire).request('GET', '/x')
    await wire.close()
    const sent = wire.sent[0]
    expect(sent?.headersTimeout).toBe(REQUEST_TIMEOUT_MS)
    expect(sent?.bodyTimeout).toBe(REQUEST_TIMEOUT_MS)
    expect(sent?.signal).toBeInstanceOf(AbortSignal)
  })

  test('an answer slower than most but inside the timeout is waited for', async () => {
    // The same relation as a hang of REQUEST_TIMEOUT_MS - small, at a tenth of a second.
    delayMs = 250
    const wire = new RecordingDispatcher(new FakeClock())
    const response = await client(wire, 400).request('GET', '/x')
    await wire.close()
    expect(response.body).toEqual({ ok: true })
    expect(wire.attempts).toHaveLength(1)
  })

  test('an answer that never comes is cut at the timeout, retried, and reported', async () => {
    delayMs = -1
    const wire = new RecordingDispatcher(new FakeClock())
    const started = performance.now()
    const error = await client(wire, 300)
      .request('GET', '/x')
      .catch((e: unknown) => e)
    const elapsed = performance.now() - started
    await wire.close()
    expect(String(error)).toMatch(/no answer in 300 ms/)
    expect(wire.attempts).toHaveLength(2)
    // A lower bound only (load can only lengthen it): each attempt waited its 300 ms out.
    expect(elapsed).toBeGreaterThanOrEqual(2 * 300 - 20)
  })
})

describe('retry budget', () => {
  test('without `max-retries`, 3 retries: 3 failures are survived with backoff 1, 2, 4 s', async () => {
    emulator.addFault({
      method: 'POST',
      path: DEPLOYMENT_PATH,
      times: 3,
      fault: { kind: 'status', status: 503 }
    })
    const clock = new FakeClock()
    const inputs = parseInputs(deploymentOnly(), {})
    expect(inputs.maxRetries).toBe(DEFAULT_MAX_RETRIES)
    const result = await run(inputs, { clock, random: () => 1, log: new MemoryLog() })
    expect(result.failures).toEqual([])
    // random() = 1 is the top of the jitter: the full doubling from BACKOFF_BASE_MS.
    expect(clock.sleeps).toEqual([1000, 2000, 4000])
  })

  test('a fourth failure fails the step after 4 attempts', async () => {
    emulator.addFault({
      method: 'POST',
      path: DEPLOYMENT_PATH,
      times: 4,
      fault: { kind: 'status', status: 503 }
    })
    const result = await run(parseInputs(deploymentOnly(), {}), {
      clock: new FakeClock(),
      random: () => 1,
      log: new MemoryLog()
    })
    expect(emulator.requests.filter(r => r.method === 'POST')).toHaveLength(4)
    expect(result.failures[0]?.message).toMatch(/gave up after 3 retries/)
    expect(emulator.state.deploymentRecords['acme'] ?? []).toHaveLength(0)
  })

  test('the backoff stops doubling at BACKOFF_CAP_MS (max-retries 10)', async () => {
    emulator.addFault({
      method: 'POST',
      path: DEPLOYMENT_PATH,
      times: 10,
      fault: { kind: 'status', status: 500 }
    })
    const clock = new FakeClock()
    const result = await run(parseInputs(deploymentOnly({ 'max-retries': '10' }), {}), {
      clock,
      random: () => 1,
      log: new MemoryLog()
    })
    expect(result.failures).toEqual([])
    expect(clock.sleeps).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000, 30_000
    ])
  })
})

describe('the time budget', () => {
  const limited = (seconds: number) => ({
    kind: 'status' as const,
    status: 429,
    headers: { 'retry-after': String(seconds) },
    body: { message: 'API rate limit exceeded' }
  })
  const BUDGET_MS = DEFAULT_TIME_BUDGET * 60_000

  test('a wait that ends exactly at the end of the default budget is sat through', async () => {
    emulator.addFault({ method: 'POST', path: DEPLOYMENT_PATH, fault: limited(BUDGET_MS / 1000) })
    const clock = new FakeClock()
    const result = await run(parseInputs(deploymentOnly(), {}), { clock, log: new MemoryLog() })
    expect(result.failures).toEqual([])
    expect(clock.sleeps).toEqual([BUDGET_MS])
  })

  test('one second longer fails at once, says when, and stops the later writes', async () => {
    emulator.addFault({ method: 'POST', path: STORAGE_PATH, fault: limited(BUDGET_MS / 1000 + 1) })
    const clock = new FakeClock()
    const result = await run(parseInputs(singleDeployment(emulator.url), {}), {
      clock,
      log: new MemoryLog()
    })
    expect(clock.sleeps).toEqual([])
    expect(emulator.requests).toHaveLength(1)
    const resetAt = new Date(clock.now() + BUDGET_MS + 1000).toISOString()
    expect(result.failures[0]?.message).toContain(`it asks to wait until ${resetAt}`)
    expect(result.failures[0]?.message).toMatch(/would pass the step's time budget/)
    expect(result.notAttempted).toEqual([expect.stringMatching(/^deployment record web/)])
  })
})

test('WRITE_GAP_MS: the second write waits exactly what is left of the gap', async () => {
  const clock = new FakeClock()
  const result = await run(parseInputs(singleDeployment(emulator.url), {}), {
    clock,
    log: new MemoryLog()
  })
  expect(result.failures).toEqual([])
  expect(result.storageRecords[0]?.digest).toBe(DIGEST)
  // The fake clock does not move while the storage write is in flight: the full gap is left.
  expect(clock.sleeps).toEqual([WRITE_GAP_MS])
})

// ---------------------------------------------------------------------------------------------
// Job polls, through what the client does with the injected clock: a constant compared with
// itself cannot fail (a 60 s cap passed the whole suite), the waits the run sleeps can.

describe('job polls', () => {
  const JOB_STATUS = /\/cluster\/prod-eu-2\/jobs\/\d+$/
  /**
   * The next `times` polls answer `processing` with the headers given, and the one after them
   * `completed`: the answers, not the emulator's timers, decide how many polls there are.
   */
  const stillProcessing = (times: number, headers: Record<string, string> = {}) => {
    const answer = (status: string, n: number, h: Record<string, string>) =>
      emulator.addFault({
        method: 'GET',
        path: JOB_STATUS,
        times: n,
        fault: { kind: 'status', status: 200, headers: h, body: { job_id: 1, status } }
      })
    answer('processing', times, headers)
    answer('completed', 1, {})
  }
  async function pollWaits() {
    const clock = new FakeClock()
    const result = await run(parseInputs(wholeCluster(emulator.url, 'job'), {}), {
      clock,
      log: new MemoryLog()
    })
    expect(result.failures).toEqual([])
    expect(result.jobStatus).toBe('completed')
    // One write (the job), so every sleep is a wait before a poll.
    expect(emulator.requests.filter(r => r.method === 'POST')).toHaveLength(1)
    return clock.sleeps
  }

  test('without x-poll-interval: 2 s, then half again each time, never more than 30 s', async () => {
    stillProcessing(11)
    const waits = await pollWaits()
    expect(waits).toHaveLength(12)
    // Each wait half again the last, rounded, by hand: 2000, 3000, 4500, 6750, 10125, 15187.5 ->
    // 15188, 22782, then 34173 is over the cap.
    expect(waits.slice(0, 12)).toEqual([
      2000, 3000, 4500, 6750, 10125, 15188, 22782, 30_000, 30_000, 30_000, 30_000, 30_000
    ])
  })

  test('x-poll-interval of 3600 is held to 30 s', async () => {
    stillProcessing(3, { 'x-poll-interval': '3600' })
    expect(await pollWaits()).toEqual([2000, 30_000, 30_000, 30_000])
  })

  test('x-poll-interval of 0 is raised to 1 s', async () => {
    stillProcessing(3, { 'x-poll-interval': '0' })
    expect(await pollWaits()).toEqual([2000, 1000, 1000, 1000])
  })

  test('an empty or unreadable x-poll-interval is no interval: the schedule goes on', async () => {
    stillProcessing(1, { 'x-poll-interval': '' })
    expect(await pollWaits()).toEqual([2000, 3000])
    emulator.reset()
    stillProcessing(1, { 'x-poll-interval': 'soon' })
    expect(await pollWaits()).toEqual([2000, 3000])
  })
})
