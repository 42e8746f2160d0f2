/**
 * The state file tells the truth (issue 32): a namespace filter change decommissions nothing; a
 * state of 5,001 entries the step writes is read back by the next run; after a job that timed out
 * and then completed, and after a set request whose answer was lost, a workload that then vanishes
 * is decommissioned once by the next run. The bundled action against the emulator.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  decommissionsSent,
  digest,
  emulator,
  errorOf,
  STATE,
  stateStep,
  useStateWorkspace,
  workspace,
  writeCluster
} from '../../__fixtures__/cluster-state.js'
import { writesOf } from '../../__fixtures__/emulator.js'
import { pod, workload } from '../../scripts/kubectl-list.js'
import { type ActionRun } from '../../scripts/run-action.js'

useStateWorkspace('cluster-state-truth')

type Json = Record<string, unknown>
interface Listed {
  deployment_name: string
  workload?: { namespace: string }
}

/** A StatefulSet `w` in `ns`, its pod running `containers` containers of image ghcr.io/acme/<w>. */
function running(ns: string, w: string, containers = 1): Json[] {
  return [
    workload('StatefulSet', ns, w),
    pod({
      namespace: ns,
      name: `${w}-0`,
      owner: { kind: 'StatefulSet', name: w },
      phase: 'Running',
      created: '2026-01-02T10:00:00Z',
      containers: Array.from({ length: containers }, (_, i) => ({
        name: containers === 1 ? 'app' : `c${i}`,
        image: `ghcr.io/acme/${w}:1.0.0`,
        imageID: `ghcr.io/acme/${w}@${digest(w)}`
      }))
    })
  ]
}

const step = (inputs: Record<string, string> = {}) =>
  stateStep({ 'kubernetes-file': 'cluster.json', ...inputs })
const stateOf = async () =>
  JSON.parse(await readFile(join(workspace, STATE), 'utf8')) as {
    version: number
    deployments: Listed[]
  }
const namesInState = async () => (await stateOf()).deployments.map(d => d.deployment_name)
/** The statuses the service holds for one deployment name. */
const statuses = (name: string) =>
  (emulator.state.deploymentRecords['acme'] ?? [])
    .filter(r => r.deployment_name === name)
    .map(r => r.status)

/** Runs one step on `objects`; it must succeed. Requests of earlier runs are forgotten. */
async function runOn(objects: Json[], inputs: Record<string, string> = {}): Promise<ActionRun> {
  await writeCluster(objects)
  emulator.requests.length = 0
  const run = await step(inputs)
  expect({ code: run.code, error: errorOf(run) }).toEqual({ code: 0, error: '' })
  return run
}

test('a filter change decommissions nothing: a namespace added to exclude-namespaces, then namespaces narrowed, keeps what it leaves out and says so; a workload gone later is decommissioned once', async () => {
  const all = [
    ...running('apps', 'alpha'),
    ...running('apps', 'beta'),
    ...running('batch', 'gamma')
  ]
  await runOn(all)
  const everyone = ['apps/alpha/app', 'apps/beta/app', 'batch/gamma/app']
  expect(await namesInState()).toEqual(everyone)

  // batch still runs, but this run leaves it out.
  const excluded = await runOn(all, { 'exclude-namespaces': 'batch' })
  expect(decommissionsSent()).toEqual([])
  expect(JSON.parse(excluded.outputs['decommissioned'] ?? 'null')).toEqual([])
  expect(excluded.stdout).toContain(
    '1 not in the snapshot is kept, not decommissioned, as `exclude-namespaces` leaves namespace batch (1) out of this run: batch/gamma/app'
  )
  expect(await namesInState()).toEqual(everyone)

  // Narrowed to batch: both of apps are left out (the guard would have stopped 2 of 3 before).
  const narrowed = await runOn(all, { namespaces: 'batch' })
  expect(decommissionsSent()).toEqual([])
  expect(narrowed.stdout).toContain(
    '2 not in the snapshot are kept, not decommissioned, as `namespaces` leaves namespace apps (2) out of this run: apps/alpha/app, apps/beta/app'
  )
  expect(await namesInState()).toEqual(everyone)
  expect(statuses('apps/beta/app')).toEqual(['deployed'])
  expect(statuses('batch/gamma/app')).toEqual(['deployed'])

  // beta is deleted while apps is still left out: not seen, so kept; once apps is read again,
  // it is decommissioned, once.
  const withoutBeta = [...running('apps', 'alpha'), ...running('batch', 'gamma')]
  await runOn(withoutBeta, { namespaces: 'batch' })
  expect(decommissionsSent()).toEqual([])
  await runOn(withoutBeta)
  expect(decommissionsSent()).toEqual(['apps/beta/app'])
  expect(statuses('apps/beta/app')).toEqual(['decommissioned'])
  expect(await namesInState()).toEqual(['apps/alpha/app', 'batch/gamma/app'])
  await runOn(withoutBeta, { 'exclude-namespaces': 'batch' })
  expect(decommissionsSent()).toEqual([])
  expect(statuses('batch/gamma/app')).toEqual(['deployed'])
}, 60_000)

test('a state of 5,001 entries the step writes (5,000 running containers and one idle workload kept) is read back by the next run', async () => {
  // 99 StatefulSets of 50 containers and one of 49, and `idle` with one: 5,000 in all.
  const busy = (last: number) => [
    ...Array.from({ length: 99 }, (_, i) => running('apps', `w${i}`, 50)).flat(),
    ...running('apps', 'w99', last)
  ]
  await runOn([...busy(49), ...running('apps', 'idle')])
  expect((await stateOf()).deployments).toHaveLength(5000)

  // idle is scaled to zero (still listed, no pod): kept; w99 runs a 50th container.
  const idle = [...busy(50), workload('StatefulSet', 'apps', 'idle')]
  const wrote = await runOn(idle)
  expect(decommissionsSent()).toEqual([])
  expect(wrote.stdout).toContain('kept, as `kubernetes-file` still lists its workload')
  const state = await stateOf()
  expect(state.deployments).toHaveLength(5001)
  expect(state.deployments.map(d => d.deployment_name)).toContain('apps/idle/app')

  const next = await runOn(idle)
  expect(next.stdout).toContain('lists 5001 deployments')
  expect(decommissionsSent()).toEqual([])
  expect(writesOf(emulator.requests)).toHaveLength(1)
  expect((await stateOf()).deployments).toHaveLength(5001)
}, 120_000)

test('a job that times out and then completes: the state lists what it sent, so a workload it recorded that then vanishes is decommissioned once by the next run', async () => {
  await runOn(running('apps', 'alpha'), { 'cluster-mode': 'job' })
  // The step sees the job processing until job-timeout; the service completes it meanwhile.
  emulator.addFault({
    method: 'GET',
    path: /\/jobs\/\d+$/,
    times: 100,
    fault: { kind: 'status', status: 200, body: { job_id: 2, status: 'processing' } }
  })
  await writeCluster([...running('apps', 'alpha'), ...running('apps', 'beta')])
  const timedOut = await step({ 'cluster-mode': 'job', 'job-timeout': '1' })
  expect(timedOut.code).not.toBe(0)
  expect(errorOf(timedOut)).toContain('did not finish within job-timeout (1 s)')
  expect(timedOut.stdout).toContain('the service did not confirm the request')
  emulator.clearFaults()
  expect(statuses('apps/beta/app')).toEqual(['deployed'])
  expect(await namesInState()).toEqual(['apps/alpha/app', 'apps/beta/app'])

  await runOn(running('apps', 'alpha'), { 'cluster-mode': 'job' })
  expect(decommissionsSent()).toEqual(['apps/beta/app'])
  expect(statuses('apps/beta/app')).toEqual(['decommissioned'])
  expect(await namesInState()).toEqual(['apps/alpha/app'])
  await runOn(running('apps', 'alpha'), { 'cluster-mode': 'job' })
  expect(decommissionsSent()).toEqual([])
}, 60_000)

test('a set request applied but never answered: the state lists what it sent, so a workload it recorded that then vanishes is decommissioned once by the next run', async () => {
  await runOn(running('apps', 'alpha'), { 'cluster-mode': 'sync' })
  emulator.addFault({ method: 'POST', fault: { kind: 'lose-answer' } })
  await writeCluster([...running('apps', 'alpha'), ...running('apps', 'beta')])
  emulator.requests.length = 0
  const lost = await step({ 'cluster-mode': 'sync', 'max-retries': '0' })
  expect(lost.code).not.toBe(0)
  expect(writesOf(emulator.requests)).toHaveLength(1)
  expect(statuses('apps/beta/app')).toEqual(['deployed'])
  expect(await namesInState()).toEqual(['apps/alpha/app', 'apps/beta/app'])

  await runOn(running('apps', 'alpha'), { 'cluster-mode': 'sync' })
  expect(decommissionsSent()).toEqual(['apps/beta/app'])
  expect(statuses('apps/beta/app')).toEqual(['decommissioned'])
  expect(await namesInState()).toEqual(['apps/alpha/app'])
  await runOn(running('apps', 'alpha'), { 'cluster-mode': 'sync' })
  expect(decommissionsSent()).toEqual([])
}, 60_000)

test('a set request the service refuses (a 4xx answer) leaves the state file as it was', async () => {
  await runOn(running('apps', 'alpha'), { 'cluster-mode': 'sync' })
  const before = await readFile(join(workspace, STATE), 'utf8')
  emulator.addFault({ method: 'POST', fault: { kind: 'status', status: 422 } })
  await writeCluster([...running('apps', 'alpha'), ...running('apps', 'beta')])
  const refused = await step({ 'cluster-mode': 'sync' })
  expect(refused.code).not.toBe(0)
  expect(refused.stdout).toContain('the service refused the request')
  expect(await readFile(join(workspace, STATE), 'utf8')).toBe(before)
  expect(statuses('apps/beta/app')).toEqual([])
})

test('a 5xx answer and then a refused retry: the service may have applied the first attempt, so the state lists what was sent', async () => {
  await runOn(running('apps', 'alpha'), { 'cluster-mode': 'sync' })
  // A gateway's 502 (the service may have applied the set behind it), then a rate limit that
  // outlasts the step: the last answer is a refusal, but the first attempt was not one.
  emulator.addFault({ method: 'POST', fault: { kind: 'status', status: 502 } })
  emulator.addFault({
    method: 'POST',
    fault: { kind: 'status', status: 429, headers: { 'retry-after': '86400' } }
  })
  await writeCluster([...running('apps', 'alpha'), ...running('apps', 'beta')])
  emulator.requests.length = 0
  const failed = await step({ 'cluster-mode': 'sync', 'max-retries': '1' })
  expect(failed.code).not.toBe(0)
  expect(writesOf(emulator.requests)).toHaveLength(2)
  expect(failed.stdout).toContain('the service did not confirm the request')
  expect(await namesInState()).toEqual(['apps/alpha/app', 'apps/beta/app'])
}, 60_000)
