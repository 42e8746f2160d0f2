import { TOKEN, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import { statedFigures } from '../../__fixtures__/readme.js'
import { RecordingDispatcher } from '../../__fixtures__/reliability.js'
import { ScaledClock } from '../../__fixtures__/scaled-clock.js'
import type { Emulator, Fault } from '../../emulator/index.js'
import { parseInputs } from '../../src/step/parse-inputs.js'
import { run } from '../../src/step/run.js'

/**
 * Label writes under faults. Why a retried label write is safe:
 * - create (POST /labels): a repeat answers 422 already_exists, which counts as success;
 * - add (POST /issues/{n}/labels): adding a label the issue has leaves it there once;
 * - remove (DELETE /issues/{n}/labels/{name}): a repeat answers 404, which counts as done.
 */
const WRITES = [
  { name: 'label create', method: 'POST', path: '/repos/acme/web/labels' },
  { name: 'labels add', method: 'POST', path: '/repos/acme/web/issues/7/labels' },
  {
    name: 'label remove',
    method: 'DELETE',
    path: '/repos/acme/web/issues/7/labels/deployed%3Astaging'
  }
]

const SECONDARY = { message: 'You have exceeded a secondary rate limit.' }
/** 'lost': the service applied the write, then the answer never reached the client. */
const FAULTS: Array<[string, Fault | 'lost']> = [
  ['500', { kind: 'status', status: 500 }],
  ['502', { kind: 'status', status: 502 }],
  ['503', { kind: 'status', status: 503 }],
  ['504', { kind: 'status', status: 504 }],
  ['connection reset', { kind: 'reset' }],
  ['no answer', { kind: 'hang' }],
  ['truncated body', { kind: 'truncate' }],
  ['429 retry-after', { kind: 'status', status: 429, headers: { 'retry-after': '3' } }],
  ['403 secondary limit', { kind: 'status', status: 403, body: SECONDARY }],
  ['answer lost after the write was applied', 'lost']
]

let emulator: Emulator
let tried = 0
beforeAll(async () => {
  emulator = await withEmulator({
    seed: {
      labels: { 'acme/web': [{ name: 'deployed:staging', color: 'fbca04' }] },
      pulls: { 'acme/web': [{ number: 7, title: 'Seven', labels: ['deployed:staging'] }] }
    }
  })
})
afterAll(async () => {
  console.log(
    `label faults: ${tried} faults tried on ${WRITES.length} label writes; every run ended as asked`
  )
  await emulator.close()
})
beforeEach(() => emulator.reset())

describe.each(WRITES)('$name', write => {
  test.each(FAULTS)(
    'survives %s: labels end up exactly as asked, writes stay spaced',
    async (_, fault) => {
      const clock = new ScaledClock(1000)
      const recorder = new RecordingDispatcher(clock)
      if (fault === 'lost') recorder.loseResponse(write.method, write.path, 2)
      else emulator.addFault({ method: write.method, path: write.path, fault, times: 2 })
      const inputs = parseInputs(
        {
          token: TOKEN,
          'api-url': emulator.url,
          repository: 'acme/web',
          labels: 'deployed:production',
          'remove-labels': 'deployed:staging',
          'label-color': '0e8a16',
          'pull-requests': '7',
          'max-retries': '2'
        },
        {}
      )
      const result = await run(inputs, {
        clock,
        random: () => 0,
        // Short only where an answer never comes: elsewhere a loopback answer on a loaded
        // machine can take longer than 100 ms, and a timeout there is not the fault under test.
        requestTimeoutMs: fault !== 'lost' && fault.kind === 'hang' ? 200 : undefined,
        dispatcher: recorder.dispatcher,
        log: new MemoryLog()
      }).finally(() => recorder.close())
      // Counted from what fired, not added by hand: the emulator's faulted requests and the
      // answers the recorder dropped.
      const fired = emulator.requests.filter(r => r.fault !== undefined).length + recorder.lost
      expect(fired).toBe(2)
      tried += fired

      expect(result.failures).toEqual([])
      expect(result.labeled).toEqual([
        { number: 7, added: ['deployed:production'], removed: ['deployed:staging'] }
      ])
      const issue = emulator.state.issues['acme/web']?.find(i => i.number === 7)
      expect(issue?.labels).toEqual(['deployed:production'])
      const named = (emulator.state.labels['acme/web'] ?? []).filter(
        l => l.name === 'deployed:production'
      )
      expect(named).toEqual([expect.objectContaining({ color: '0e8a16' })])
      // Two faults, then the attempt that went through.
      const attempts = writesOf(emulator.requests).filter(
        r => r.method === write.method && r.path === write.path
      )
      expect(attempts).toHaveLength(3)
      // Spacing on the client's (sped-up) clock: no write started within 1 s of the previous one's end.
      expect(recorder.smallestWriteGap()).toBeGreaterThanOrEqual(1000)
    }
  )
})

test('README states the faults this run tried', () => {
  // Last in the file: every case above has counted what fired (the whole file must run).
  expect(tried).toBe(WRITES.length * FAULTS.length * 2)
  expect(statedFigures(/Label writes under faults\*\* [^*]*\*\*(\d+) faults tried/)).toEqual([
    tried
  ])
})
