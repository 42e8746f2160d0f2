/**
 * Random sequences of `kubernetes-file` snapshots, against the emulator: each workload, of a kind
 * drawn per sequence (a Deployment with its ReplicaSet, a DaemonSet, a StatefulSet, a CronJob, a
 * Job, a ReplicaSet of no Deployment), is in each snapshot running, listed with no running pod, or
 * gone. The model, by hand: running -> deployed; gone -> decommissioned if it was deployed; listed
 * without a pod -> as it was. After every run the service's records and the state file follow the
 * model. In process (`run()`, a sped-up clock) so that many sequences fit.
 */
import fc from 'fast-check'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { digest } from '../../__fixtures__/cluster-state.js'
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import { ScaledClock } from '../../__fixtures__/scaled-clock.js'
import type { Emulator } from '../../emulator/index.js'
import { kubectlList, pod, workload } from '../../scripts/kubectl-list.js'
import { parseInputs } from '../../src/step/parse-inputs.js'
import { run } from '../../src/step/run.js'

const WORKLOADS = ['api', 'web', 'worker', 'cron', 'db']
const KINDS = ['Deployment', 'DaemonSet', 'StatefulSet', 'CronJob', 'Job', 'BareReplicaSet']
type Kind = (typeof KINDS)[number]
type Phase = 'running' | 'idle' | 'gone'
type Json = Record<string, unknown>
const podOf = (w: string, name: string, owner: { kind: string; name: string }, phase: string) =>
  pod({
    namespace: 'apps',
    name,
    owner,
    phase,
    created: '2026-01-02T10:00:00Z',
    ...(owner.kind === 'ReplicaSet' && owner.name.endsWith('-6f7d9')
      ? { labels: { 'pod-template-hash': '6f7d9' } }
      : {}),
    containers: [
      { name: 'app', image: `ghcr.io/acme/${w}:1.0.0`, imageID: `ghcr.io/acme/${w}@${digest(w)}` }
    ]
  })

/** What kubectl prints for workload `w` of `kind` in `phase`. */
function objectsOf(w: string, kind: Kind, phase: Phase): Json[] {
  if (phase === 'gone') return []
  const running = phase === 'running'
  switch (kind) {
    case 'Deployment':
      return [
        workload('Deployment', 'apps', w),
        workload('ReplicaSet', 'apps', `${w}-6f7d9`, { owner: { kind: 'Deployment', name: w } }),
        ...(running
          ? [podOf(w, `${w}-6f7d9-q2`, { kind: 'ReplicaSet', name: `${w}-6f7d9` }, 'Running')]
          : [])
      ]
    case 'CronJob':
      return [
        workload('CronJob', 'apps', w),
        ...(running
          ? [
              workload('Job', 'apps', `${w}-2940`, { owner: { kind: 'CronJob', name: w } }),
              podOf(w, `${w}-2940-z`, { kind: 'Job', name: `${w}-2940` }, 'Succeeded')
            ]
          : [])
      ]
    case 'Job':
      return [
        workload('Job', 'apps', w),
        ...(running ? [podOf(w, `${w}-k`, { kind: 'Job', name: w }, 'Succeeded')] : [])
      ]
    case 'BareReplicaSet':
      return [
        workload('ReplicaSet', 'apps', `${w}-blue`),
        ...(running
          ? [podOf(w, `${w}-blue-r`, { kind: 'ReplicaSet', name: `${w}-blue` }, 'Running')]
          : [])
      ]
    default:
      // DaemonSet, StatefulSet; an idle one may still show a Pending pod.
      return [
        workload(kind, 'apps', w),
        podOf(w, `${w}-0`, { kind, name: w }, running ? 'Running' : 'Pending')
      ]
  }
}

const sequenceArbitrary = fc.record({
  kinds: fc.array(fc.constantFrom(...KINDS), {
    minLength: WORKLOADS.length,
    maxLength: WORKLOADS.length
  }),
  steps: fc.array(
    fc.array(fc.constantFrom<Phase>('running', 'idle', 'gone'), {
      minLength: WORKLOADS.length,
      maxLength: WORKLOADS.length
    }),
    { minLength: 2, maxLength: 5 }
  )
})

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator({ jobStepMs: 2 })
})
afterAll(async () => emulator.close())

test('after every run of a random sequence, a workload is decommissioned only once it is gone, and the state file lists what the service holds as deployed', async () => {
  let kept = 0
  let decommissioned = 0
  await fc.assert(
    fc.asyncProperty(sequenceArbitrary, async ({ kinds, steps }) => {
      emulator.reset()
      const workspace = await mkdtemp(join(tmpdir(), 'cluster-state-workloads-property-'))
      const model = new Map<string, 'deployed' | 'decommissioned'>()
      try {
        for (const phases of steps) {
          const objects = WORKLOADS.flatMap((w, i) =>
            objectsOf(w, kinds[i] as Kind, phases[i] as Phase)
          )
          await writeFile(join(workspace, 'cluster.json'), JSON.stringify(kubectlList(objects)))
          WORKLOADS.forEach((w, i) => {
            const name = `apps/${w}/app`
            if (phases[i] === 'running') model.set(name, 'deployed')
            else if (phases[i] === 'gone' && model.get(name) === 'deployed') {
              model.set(name, 'decommissioned')
              decommissioned++
            } else if (phases[i] === 'idle' && model.get(name) === 'deployed') kept++
          })
          const inputs = parseInputs(
            {
              token: TOKEN,
              'api-url': emulator.url,
              repository: 'acme/web',
              cluster: 'prod-eu-1',
              environment: 'production',
              'kubernetes-file': 'cluster.json',
              'state-file': 'state/prod-eu-1.json',
              'allow-empty-cluster': 'true',
              'allow-mass-decommission': 'true',
              'max-retries': '0'
            },
            { GITHUB_WORKSPACE: workspace }
          )
          await run(inputs, { log: new MemoryLog(), clock: new ScaledClock(200), random: () => 0 })
          expect(held()).toEqual(Object.fromEntries(model))
          expect(await listedInState(workspace)).toEqual(
            [...model]
              .filter(([, s]) => s === 'deployed')
              .map(([n]) => n)
              .sort()
          )
        }
      } finally {
        await rm(workspace, { recursive: true, force: true })
      }
    }),
    { numRuns: 40, seed: 20_261_123 }
  )
  // The sequences kept and decommissioned something, or the property says little.
  expect(kept).toBeGreaterThan(10)
  expect(decommissioned).toBeGreaterThan(10)
})

/** The service's records of the cluster: deployment name -> status. */
function held(): Record<string, string> {
  return Object.fromEntries(
    (emulator.state.deploymentRecords['acme'] ?? [])
      .filter(r => r.cluster === 'prod-eu-1')
      .map(r => [r.deployment_name, r.status] as const)
      .sort(([a], [b]) => a.localeCompare(b))
  )
}

async function listedInState(workspace: string): Promise<string[]> {
  let text: string
  try {
    text = await readFile(join(workspace, 'state/prod-eu-1.json'), 'utf8')
  } catch {
    return []
  }
  const state = JSON.parse(text) as { deployments: Array<{ deployment_name: string }> }
  return state.deployments.map(d => d.deployment_name).sort()
}
