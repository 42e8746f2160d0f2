// Over 300 lines: every case the README's fault-matrix figures count runs here, with the test that checks them.
/**
 * Fault matrix: every write endpoint the action uses x every fault the service or the network
 * can throw at it, run end to end (parseInputs -> run -> emulator over real sockets). The
 * endpoints, faults and expected records are in __fixtures__/fault-matrix.ts.
 *
 * Time: the matrix runs on a ScaledClock (sleeps 1000x faster than the clock says), so a 60 s
 * rate-limit wait costs 60 ms. Write spacing is therefore checked in the client's clock, by a
 * recording dispatcher (`smallestWriteGap()` below). The emulator's own measurement of the gap
 * (arrivedAt of a write minus finishedAt of the previous one) is checked in the real-clock cases
 * of fault-matrix-edges.test.ts, where 1 s of spacing really is 1 s.
 */
import { smallestWriteGap, TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import { statedFigures } from '../../__fixtures__/readme.js'
import { RecordingDispatcher, WRITE_GAP_MS } from '../../__fixtures__/reliability.js'
import { ScaledClock } from '../../__fixtures__/scaled-clock.js'
import type { Fault } from '../../emulator/index.js'
import { parseInputs } from '../../src/step/parse-inputs.js'
import { toOutputs } from '../../src/step/report.js'
import { run } from '../../src/step/run.js'
import type { RunResult } from '../../src/shared/result.js'
import {
  SCALE,
  MAX_RETRIES,
  emulator,
  useFaultMatrixEmulator,
  type Endpoint,
  STORAGE_PATH,
  STORAGE_LIST_PATH,
  ENDPOINTS,
  rawInputsFor,
  type Expected,
  expectedRecords,
  type FaultCase,
  FAULTS,
  concreteFault,
  toEndpoint
} from '../../__fixtures__/fault-matrix.js'

useFaultMatrixEmulator()
afterAll(() => {
  // The figure the issue asks for, printed once per run of the suite.
  console.log(
    `fault matrix: ${figures.cases} cases, ${figures.faultsTried} faults tried, ` +
      `${figures.faultsSurvived} survived (the write succeeded after them), ` +
      `${figures.faultsFailedAsExpected} exhausted max-retries and failed the step as expected, ` +
      `${figures.faultsFailedAtOnce} failed the step at once as expected (not JSON, no location), ` +
      `records lost: ${figures.recordsLost}, records duplicated: ${figures.recordsDuplicated}, ` +
      `lookups of the storage records after a lost answer: ${figures.storageLookups}`
  )
  expect(figures.recordsLost).toBe(0)
  expect(figures.recordsDuplicated).toBe(0)
})

const figures = {
  cases: 0,
  faultsTried: 0,
  faultsSurvived: 0,
  faultsFailedAsExpected: 0,
  /** Answers that are not what they seem: not retried, the step fails saying what came. */
  faultsFailedAtOnce: 0,
  recordsLost: 0,
  recordsDuplicated: 0,
  /** storage-record lookups after a lost answer, counted from the emulator's requests */
  storageLookups: 0
}

interface CaseRun {
  result: RunResult
  clock: ScaledClock
  wire: RecordingDispatcher
  log: MemoryLog
  injected: number
}

async function runCase(
  endpoint: Endpoint,
  fc: FaultCase,
  maxRetries: number,
  times: number
): Promise<CaseRun> {
  const clock = new ScaledClock(SCALE)
  const wire = new RecordingDispatcher(clock)
  const log = new MemoryLog()
  const fault = concreteFault(fc, clock, endpoint)
  if (fault) emulator.addFault({ method: 'POST', path: endpoint.path, times, fault })
  if (fc.loseAnswer) wire.loseResponse('POST', endpoint.path, times)
  try {
    const result = await run(parseInputs(rawInputsFor(endpoint.shape, maxRetries), {}), {
      clock,
      dispatcher: wire.dispatcher,
      log,
      requestTimeoutMs: fc.requestTimeoutMs
    })
    const injected = emulator.requests.filter(r => r.fault !== undefined).length + wire.lost
    figures.cases++
    figures.faultsTried += injected
    return { result, clock, wire, log, injected }
  } finally {
    await wire.close()
  }
}

/** Counts missing and duplicated records; returns what the assertions need. */
function audit(expected: Expected[], outputs: Record<string, string>, mustExist: Set<string>) {
  const missing: string[] = []
  const duplicated: string[] = []
  for (const e of expected) {
    const found = e.found()
    if (found.length > 1) duplicated.push(e.what)
    const reported = e.inOutputs(outputs, found[0]?.id)
    // Lost: a record the run had to write (or said it wrote) that the service does not hold.
    if ((mustExist.has(e.endpoint) || reported) && found.length === 0) missing.push(e.what)
    if (mustExist.has(e.endpoint) && !reported) missing.push(`${e.what} (not in the outputs)`)
  }
  figures.recordsLost += missing.length
  figures.recordsDuplicated += duplicated.length
  return { missing, duplicated }
}

function expectNoTokenIn(text: string) {
  expect(text).not.toContain(TOKEN)
}

// ---------------------------------------------------------------------------------------------
// The matrix: every fault, injected max-retries times, is survived

const matrix = ENDPOINTS.flatMap(endpoint =>
  FAULTS.map(fc => [endpoint.name, fc.name, endpoint, fc] as const)
)

describe.each(matrix)('%s / %s', (_e, _f, endpoint, fc) => {
  test('is survived: the record exists once, outputs and status are right, attempts match max-retries, writes 1 s apart', async () => {
    // Why the retried write is safe: see `whyRetryIsSafe` of the endpoint.
    expect(endpoint.whyRetryIsSafe).not.toBe('')
    const times = fc.redirect ? 1 : MAX_RETRIES
    const { result, clock, wire, log, injected } = await runCase(endpoint, fc, MAX_RETRIES, times)
    // A storage write whose answer was lost after the service saved it is found by the lookup
    // and not sent again: one fault fires, one attempt, the rest of the injections never fire.
    const foundByLookup = endpoint.path === STORAGE_PATH && (fc.loseAnswer || fc.committed)
    const attempts = foundByLookup ? 1 : times + 1

    // Exit status: the step succeeds.
    expect(result.failures).toEqual([])
    // Every injected fault fired at this endpoint (one when the lookup found the write).
    expect(injected).toBe(foundByLookup ? 1 : times)
    const hits = toEndpoint(emulator.requests, endpoint)
    if ((fc.loseAnswer || fc.committed) && endpoint.shape === 'job') {
      // The lost answer's job held the cluster: 409s until it finished, then a second job.
      expect(hits[0]?.status).toBe(202)
      expect(hits.at(-1)?.status).toBe(202)
      expect(hits.every(h => h.status === 202 || h.status === 409)).toBe(true)
    } else {
      // Attempts: the faulted ones plus the one that succeeded; max-retries was just enough.
      expect(hits).toHaveLength(attempts)
      const okStatus = endpoint.shape === 'job' ? 202 : 200
      expect(hits.at(-1)?.status).toBe(okStatus)
      if (fc.redirect) expect(hits.at(-1)?.path).toBe(`/api/v3${endpoint.path}`)
      // The retried body is the same request, byte for byte: the upsert sees the same key.
      for (const h of hits) expect(h.body).toEqual(hits[0]?.body)
    }
    // Counted: a storage write looks up the digest's storage records once per answer lost after
    // it was sent, and at no other time; no other endpoint looks anything up.
    const lookups = emulator.requests.filter(
      r => r.method === 'GET' && decodeURIComponent(r.path) === STORAGE_LIST_PATH
    )
    const lostAnswers = endpoint.path === STORAGE_PATH && fc.lostAfterSend ? injected : 0
    expect(lookups).toHaveLength(lostAnswers)
    figures.storageLookups += lookups.length

    // Records: each exactly once, each in the outputs.
    const expected = expectedRecords(endpoint.shape)
    const { missing, duplicated } = audit(
      expected,
      toOutputs(result),
      new Set(expected.map(e => e.endpoint))
    )
    expect(missing).toEqual([])
    expect(duplicated).toEqual([])
    figures.faultsSurvived += injected

    // Spacing, in the client's clock: no write started within WRITE_GAP_MS of the previous end.
    // (A single release writes both records: the other one's write counts too.)
    expect(wire.writes().length).toBeGreaterThanOrEqual(
      attempts + (endpoint.shape === 'single' ? 1 : 0)
    )
    expect(wire.smallestWriteGap()).toBeGreaterThanOrEqual(WRITE_GAP_MS)
    // One at a time: the emulator never saw a write arrive before the previous one had finished.
    if (!fc.requestTimeoutMs) expect(smallestWriteGap(emulator.requests)).toBeGreaterThan(0)
    fc.waits?.(clock.sleeps)

    // The retries were announced, and the token was never logged (debug included).
    if (fc.rateLimit) expect(log.text()).toMatch(new RegExp(`rate-limit wait ${times} in `))
    else if (!fc.redirect)
      // (the retry the lost answer announced was replaced by the lookup when it found the write)
      expect(log.text()).toMatch(new RegExp(`retry ${foundByLookup ? 1 : times} of ${MAX_RETRIES}`))
    if (foundByLookup)
      expect(log.text()).toMatch(
        /the service holds it already, so the write took effect; not sent again/
      )
    // A hang is reported as a timeout, not as some network error.
    if (fc.requestTimeoutMs)
      expect(log.text()).toContain(`no response in time (no answer in ${fc.requestTimeoutMs} ms)`)
    expectNoTokenIn(log.text())
  })
})

// ---------------------------------------------------------------------------------------------
// Faults outnumber max-retries: the step fails, names the attempts, duplicates nothing

// Rate limits are not spent by `max-retries` (their own budget: the test after this one).
const EXHAUSTIBLE = FAULTS.filter(f => !f.redirect && !f.loseAnswer && !f.committed && !f.rateLimit)
const exhausted = ENDPOINTS.flatMap(endpoint =>
  EXHAUSTIBLE.filter(
    // One hang case is enough: each costs real time (the timeout, per attempt).
    fc => !fc.requestTimeoutMs || endpoint === ENDPOINTS[0]
  ).map(fc => [endpoint.name, fc.name, endpoint, fc] as const)
)

describe.each(exhausted)('%s / %s, once more than max-retries', (_e, _f, endpoint, fc) => {
  test('fails the step, names the attempts, and writes nothing twice', async () => {
    const maxRetries = 1
    const { result, injected } = await runCase(endpoint, fc, maxRetries, maxRetries + 1)

    expect(injected).toBe(maxRetries + 1)
    expect(toEndpoint(emulator.requests, endpoint)).toHaveLength(maxRetries + 1)
    // A storage write looks up before each resend after a lost answer, not after the last one.
    const lookups = emulator.requests.filter(
      r => r.method === 'GET' && decodeURIComponent(r.path) === STORAGE_LIST_PATH
    )
    expect(lookups).toHaveLength(
      endpoint.path === STORAGE_PATH && fc.lostAfterSend ? maxRetries : 0
    )
    figures.storageLookups += lookups.length
    expect(result.failures).toHaveLength(1)
    const message = result.failures[0]?.message ?? ''
    expect(message).toContain(`POST ${endpoint.path}`)
    expect(message).toMatch(/gave up after 1 retry\b/)
    expectNoTokenIn(message)

    // The faulted write reached no handler, so it wrote nothing; what else ran wrote once.
    const expected = expectedRecords(endpoint.shape)
    // The other write must exist unless the run reported it as not attempted.
    const others = new Set(
      result.notAttempted.length > 0
        ? []
        : expected.map(e => e.endpoint).filter(p => p !== endpoint.path)
    )
    const { missing, duplicated } = audit(expected, toOutputs(result), others)
    expect(missing).toEqual([])
    expect(duplicated).toEqual([])
    for (const e of expected.filter(x => x.endpoint === endpoint.path))
      expect(e.found()).toHaveLength(0)
    figures.faultsFailedAsExpected += injected
  })
})

describe.each(ENDPOINTS.map(e => [e.name, e] as const))(
  '%s / 429 with retry-after, eleven times (rate-limit waits are bounded by time, not counted)',
  (_e, endpoint) => {
    test('waits every one out, whatever max-retries says, and writes once', async () => {
      const fc = FAULTS.find(f => f.name === '429 with retry-after') as FaultCase
      const refusals = 11
      const { result, injected } = await runCase(endpoint, fc, 1, refusals)
      expect(injected).toBe(refusals)
      expect(toEndpoint(emulator.requests, endpoint)).toHaveLength(refusals + 1)
      expect(result.failures).toEqual([])
      for (const e of expectedRecords(endpoint.shape).filter(x => x.endpoint === endpoint.path))
        expect(e.found()).toHaveLength(1)
      figures.faultsSurvived += injected
    })
  }
)

// ---------------------------------------------------------------------------------------------
// Answers that are not what they seem: the step fails at once, says what came, writes nothing

const MISLEADING: Array<{ name: string; fault: Fault; says: RegExp }> = [
  {
    name: 'a whole HTML 200',
    fault: { kind: 'html' },
    says: /failed with 200: unexpected response body \(text\/html, not JSON\)[^]*request id: EMU:/
  },
  {
    name: 'a redirect without location',
    fault: { kind: 'redirect', status: 302 },
    says: /failed with 302: redirect 302 without a location to follow/
  }
]
const misleading = ENDPOINTS.flatMap(endpoint =>
  MISLEADING.map(m => [endpoint.name, m.name, endpoint, m] as const)
)

describe.each(misleading)('%s / %s', (_e, _f, endpoint, m) => {
  test('fails the step at once, names what came, and writes nothing', async () => {
    const clock = new ScaledClock(SCALE)
    emulator.addFault({ method: 'POST', path: endpoint.path, fault: m.fault })
    const result = await run(parseInputs(rawInputsFor(endpoint.shape, MAX_RETRIES), {}), {
      clock,
      log: new MemoryLog()
    })
    figures.cases++
    figures.faultsTried++
    expect(toEndpoint(emulator.requests, endpoint)).toHaveLength(1)
    expect(result.failures).toHaveLength(1)
    expect(result.failures[0]?.message).toMatch(m.says)
    expect(result.failures[0]?.message).not.toMatch(/network error/)
    const expected = expectedRecords(endpoint.shape)
    for (const e of expected.filter(x => x.endpoint === endpoint.path))
      expect(e.found()).toHaveLength(0)
    const { missing, duplicated } = audit(expected, toOutputs(result), new Set())
    expect(missing).toEqual([])
    expect(duplicated).toEqual([])
    figures.faultsFailedAtOnce++
  })
})

// ---------------------------------------------------------------------------------------------
// An unreachable service: the first request's retries, then the run stops

test('connection refused on every attempt stops the run after the first request; the rest is not attempted', async () => {
  const closed = await withEmulator()
  const url = closed.url
  await closed.close()
  const clock = new ScaledClock(SCALE)
  const log = new MemoryLog()
  const numbers = Array.from({ length: 30 }, (_, i) => String(i + 1)).join(', ')
  const result = await run(
    parseInputs(
      rawInputsFor('single', 3, { 'api-url': url, labels: 'deployed', 'pull-requests': numbers }),
      {}
    ),
    { clock, log, random: () => 0 }
  )
  figures.cases++
  figures.faultsTried += 4
  figures.faultsFailedAsExpected += 4
  // One request's attempts (1 + max-retries), then nothing more.
  expect(log.lines.filter(l => / -> network in /.test(l.message))).toHaveLength(4)
  expect(result.failures).toHaveLength(1)
  const message = result.failures[0]?.message ?? ''
  expect(message).toContain(`the service at ${url} cannot be reached: connection refused`)
  expect(message).toMatch(/on all 4 attempts/)
  expect(result.failures[0]?.fatal).toBe(true)
  expect(result.notAttempted).toEqual([expect.stringMatching(/^deployment record/), 'labels'])
})

test('the matrix lost no record and tried every fault', () => {
  // Runs after the matrix (jest keeps file order); the afterAll hook prints the figure.
  expect(figures.faultsTried).toBeGreaterThanOrEqual(ENDPOINTS.length * FAULTS.length)
  expect(figures.recordsLost).toBe(0)
  expect(figures.recordsDuplicated).toBe(0)
})

test('README states the figures this run counted', () => {
  // The whole file ran (not a -t subset): every case above counted itself.
  expect(figures.cases).toBe(
    matrix.length + exhausted.length + ENDPOINTS.length + misleading.length + 1
  )
  const stated = statedFigures(
    /Last run: \*\*(\d+) cases, (\d+) faults tried, (\d+) survived, (\d+) exhausted `max-retries` and failed the step as they should, (\d+) failed it at once as they should, (\d+) records lost, (\d+) duplicated, (\d+) lookups of the storage records after a lost answer\*\*/
  )
  expect(stated).toEqual([
    figures.cases,
    figures.faultsTried,
    figures.faultsSurvived,
    figures.faultsFailedAsExpected,
    figures.faultsFailedAtOnce,
    figures.recordsLost,
    figures.recordsDuplicated,
    figures.storageLookups
  ])
})
