/**
 * Random sequences of cluster snapshots, against the emulator: workloads come, change digest,
 * move to a repository the token cannot reach (rejected), and go; runs are sets or jobs, with and
 * without partial-success, some fail (a 500, a failed job), some are refused by the mass guard.
 * Until a run fails, the state file lists exactly what the service holds as deployed for the
 * cluster, digest for digest. A failed run may have been applied (a 500 after the write, a job
 * failed part way), so from then on the file lists at least every deployment the service holds
 * as deployed; and a last run with an empty snapshot leaves nothing deployed: nothing is
 * forgotten. In process (`run()`, a sped-up clock) so that many sequences fit.
 */
import fc from 'fast-check'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import { ScaledClock } from '../../__fixtures__/scaled-clock.js'
import type { Emulator } from '../../emulator/index.js'
import { InputError, parseInputs } from '../../src/step/parse-inputs.js'
import { run } from '../../src/step/run.js'

const WORKLOADS = ['api', 'web', 'worker', 'cron', 'db', 'cache']
const digest = (workload: string, generation: number) =>
  'sha256:' +
  `${workload}-${generation}`
    .padEnd(32, '.')
    .replace(/./g, ch => ch.charCodeAt(0).toString(16).slice(-2))

interface Deployed {
  workload: string
  generation: number
  /** in a repository the token cannot reach: the service rejects it */
  unreachable: boolean
}

interface Step {
  snapshot: Deployed[]
  mode: 'sync' | 'job'
  partialSuccess: boolean
  allowMass: boolean
  fault: boolean
}

const stepArbitrary: fc.Arbitrary<Step> = fc.record({
  snapshot: fc.uniqueArray(
    fc.record({
      workload: fc.constantFrom(...WORKLOADS),
      generation: fc.integer({ min: 0, max: 2 }),
      unreachable: fc.boolean()
    }),
    { selector: d => d.workload, minLength: 1, maxLength: WORKLOADS.length }
  ),
  mode: fc.constantFrom('sync' as const, 'job' as const),
  partialSuccess: fc.boolean(),
  allowMass: fc.boolean(),
  fault: fc.boolean()
})

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator({ jobStepMs: 2 })
})
afterAll(async () => emulator.close())

test('after every run of a random sequence, the state file equals what the service holds as deployed', async () => {
  let runs = 0
  let decommissions = 0
  await fc.assert(
    fc.asyncProperty(fc.array(stepArbitrary, { minLength: 2, maxLength: 5 }), async steps => {
      emulator.reset()
      const workspace = await mkdtemp(join(tmpdir(), 'cluster-state-property-'))
      try {
        let failed = false
        for (const step of steps) {
          await runStep(workspace, step)
          runs++
          failed ||= step.fault
          const held = heldAsDeployed()
          const listed = await listedInState(workspace)
          if (!failed) expect(listed).toEqual(held)
          else expect(Object.keys(held).filter(name => !(name in listed))).toEqual([])
        }
        // Every workload goes: what the service held as deployed is decommissioned.
        await runStep(workspace, {
          snapshot: [],
          mode: 'job',
          partialSuccess: true,
          allowMass: true,
          fault: false
        })
        expect(heldAsDeployed()).toEqual({})
        decommissions += (emulator.state.deploymentRecords['acme'] ?? []).filter(
          r => r.status === 'decommissioned'
        ).length
      } finally {
        await rm(workspace, { recursive: true, force: true })
      }
    }),
    { numRuns: 60, seed: 20_261_123 }
  )
  // The sequences did decommission something, or the property says little.
  expect(runs).toBeGreaterThan(60)
  expect(decommissions).toBeGreaterThan(5)
})

async function runStep(workspace: string, step: Step): Promise<void> {
  const items = step.snapshot.map(d => ({
    name: `ghcr.io/acme/${d.workload}`,
    digest: digest(d.workload, d.generation),
    deployment_name: `apps-${d.workload}`,
    github_repository: d.unreachable ? 'elsewhere' : 'web'
  }))
  await writeFile(join(workspace, 'deployments.json'), JSON.stringify(items))
  if (step.fault && step.mode === 'sync')
    emulator.addFault({ method: 'POST', fault: { kind: 'status', status: 500 } })
  if (step.fault && step.mode === 'job') emulator.seed({ failNextJob: true })
  let inputs
  try {
    inputs = parseInputs(
      {
        token: TOKEN,
        'api-url': emulator.url,
        repository: 'acme/web',
        cluster: 'prod-eu-1',
        environment: 'production',
        'deployments-file': 'deployments.json',
        'state-file': 'state/prod-eu-1.json',
        'cluster-mode': step.mode,
        'partial-success': String(step.partialSuccess),
        'allow-mass-decommission': String(step.allowMass),
        'max-retries': '0'
      },
      { GITHUB_WORKSPACE: workspace }
    )
  } catch (error) {
    // The mass guard refused the snapshot: nothing is sent, the file stays.
    if (!(error instanceof InputError)) throw error
    emulator.clearFaults()
    emulator.seed({ failNextJob: false })
    return
  }
  await run(inputs, { log: new MemoryLog(), clock: new ScaledClock(200), random: () => 0 })
  emulator.clearFaults()
}

function heldAsDeployed(): Record<string, string> {
  return Object.fromEntries(
    (emulator.state.deploymentRecords['acme'] ?? [])
      .filter(r => r.cluster === 'prod-eu-1' && r.status === 'deployed')
      .map(r => [r.deployment_name, r.digest])
  )
}

async function listedInState(workspace: string): Promise<Record<string, string>> {
  let text: string
  try {
    text = await readFile(join(workspace, 'state/prod-eu-1.json'), 'utf8')
  } catch {
    return {}
  }
  const state = JSON.parse(text) as {
    deployments: Array<{ deployment_name: string; digest: string }>
  }
  return Object.fromEntries(state.deployments.map(d => [d.deployment_name, d.digest]))
}
