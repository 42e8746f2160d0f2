/**
 * Cancellation as the runner does it: SIGINT, then SIGTERM a few seconds later. The bundled action
 * runs through the launcher against the emulator; the signals go when the emulator has seen what
 * the case needs. Timings are not asserted: a run that did not stop would hit the test timeout.
 */
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'
import { runAction } from '../../scripts/run-action.js'

const STORAGE = '/orgs/acme/artifacts/metadata/storage-record'
const DEPLOYMENT = '/orgs/acme/artifacts/metadata/deployment-record'

let emulator: Emulator
beforeEach(async () => {
  emulator = await withEmulator({
    seed: { pulls: { 'acme/web': [12, 13, 14].map(number => ({ number, merged: true })) } }
  })
})
afterEach(async () => emulator.close())

const inputs = () => ({
  token: TOKEN,
  'api-url': emulator.url,
  digest: 'ghcr.io/acme/web@sha256:' + 'cd'.repeat(32),
  environment: 'production',
  'registry-url': 'https://ghcr.io',
  labels: 'deployed:production',
  'pull-requests': '12, 13, 14'
})
const answered = (path: string) => () =>
  emulator.requests.some(r => r.method === 'POST' && r.path === path && r.finishedAt > 0)

test('SIGINT after the first write: stops before the next, outputs and summary say what was and was not written', async () => {
  const run = await runAction(
    inputs(),
    {},
    { signals: [{ signal: 'SIGINT', when: answered(STORAGE) }] }
  )
  expect(run.code).not.toBe(0)
  expect(run.signal).toBeNull()
  // What was done is in the outputs; what was not is not.
  expect(run.outputs['storage-record-ids']).toMatch(/^\d+$/)
  expect(run.outputs['deployment-record-ids']).toBe('')
  expect(run.outputs['pull-requests']).toBe('')
  expect(emulator.requests.filter(r => r.path === DEPLOYMENT)).toEqual([])
  expect(emulator.requests.filter(r => r.path.includes('/issues/'))).toEqual([])
  expect(run.summary).toMatch(/## Cancelled \(SIGINT\): recorded in part/)
  expect(run.summary).toMatch(/Written before the cancel:\n- storage record/)
  expect(run.summary).toMatch(
    /Not written:\n- deployment record web[^\n]*not sent: the run was cancelled \(SIGINT\)/
  )
  expect(run.summary).toMatch(/- labels: not attempted/)
  expect(run.stdout).toMatch(/Cancel requested \(SIGINT\): stopping at the next safe point/)
  expect(run.stdout).toMatch(/::error::The run was cancelled \(SIGINT\)/)
})

test('SIGINT during a long retry wait ends the wait at once', async () => {
  emulator.addFault({
    method: 'POST',
    path: STORAGE,
    fault: { kind: 'status', status: 503, headers: { 'retry-after': '600' } }
  })
  const waiting = () => emulator.requests.some(r => r.path === STORAGE && r.status === 503)
  const run = await runAction(inputs(), {}, { signals: [{ signal: 'SIGINT', when: waiting }] })
  expect(run.code).not.toBe(0)
  expect(run.outputs['storage-record-ids']).toBe('')
  expect(run.summary).toMatch(/## Cancelled \(SIGINT\): nothing was written/)
  expect(run.summary).toMatch(/storage record[^\n]*not sent: the run was cancelled \(SIGINT\)/)
})

test('SIGINT, then SIGTERM while a write hangs: the write is cut and the summary says it may have been applied', async () => {
  emulator.addFault({ method: 'POST', path: STORAGE, fault: { kind: 'hang' } })
  const hanging = () => emulator.requests.some(r => r.path === STORAGE)
  const run = await runAction(
    inputs(),
    {},
    {
      signals: [
        { signal: 'SIGINT', when: hanging },
        { signal: 'SIGTERM', afterMs: 200 }
      ]
    }
  )
  expect(run.code).not.toBe(0)
  expect(run.signal).toBeNull()
  expect(run.summary).toMatch(
    /storage record[^\n]*cut while in flight because the run was cancelled \(SIGINT\): the service may or may not have applied it/
  )
  expect(run.summary).toMatch(/deployment record web[^\n]*not attempted/)
  expect(run.outputs['deployment-record-ids']).toBe('')
})
