// Over 300 lines: the kept-workload rule across every workload kind, sharing one kubectl staging helper.
/**
 * README "Workloads that vanished are decommissioned", what a snapshot lacks: with
 * `kubernetes-file`, a workload the file still lists but with no running pod (a Deployment scaled
 * to zero, its only pod pending, a CronJob between runs) is kept in the state file, not
 * decommissioned; it is decommissioned once the file no longer lists the workload, as GitHub's
 * tracker decommissions on deletion. The bundled action against the emulator; what each run
 * sends and keeps is written out by hand.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  decommissionedOutput,
  digest,
  emulator,
  errorOf,
  expectedState,
  sentIn,
  STATE,
  stateStep,
  useStateWorkspace,
  workspace,
  writeCluster,
  writeDeployments
} from '../../__fixtures__/cluster-state.js'
import { pod, workload } from '../../scripts/kubectl-list.js'
import { type ActionRun } from '../../scripts/run-action.js'

useStateWorkspace('cluster-state-workloads')

type Json = Record<string, unknown>
/** A pod of `owner` in namespace `apps` with one container `app` of image `ghcr.io/acme/<w>`. */
const podOf = (
  w: string,
  name: string,
  owner: { kind: string; name: string } | undefined,
  phase = 'Running',
  labels?: Record<string, string>
) =>
  pod({
    namespace: 'apps',
    name,
    ...(owner ? { owner } : {}),
    phase,
    created: '2026-01-02T10:00:00Z',
    ...(labels ? { labels } : {}),
    containers: [
      { name: 'app', image: `ghcr.io/acme/${w}:1.0.0`, imageID: `ghcr.io/acme/${w}@${digest(w)}` }
    ]
  })
/** The workload `alpha`, running all along: a StatefulSet and its pod. */
const alpha = () => [
  workload('StatefulSet', 'apps', 'alpha'),
  podOf('alpha', 'alpha-0', { kind: 'StatefulSet', name: 'alpha' })
]
/** What a deployment of workload `w` is sent and decommissioned as. */
const sent = (w: string) => ({
  deployment_name: `apps/${w}/app`,
  name: `ghcr.io/acme/${w}`,
  digest: digest(w),
  version: '1.0.0'
})
/** What the state file lists for it, with the object it came from. */
const listed = (w: string, kind: string, name = w) => ({
  ...sent(w),
  workload: { namespace: 'apps', kind, name }
})

const step = () => stateStep({ 'kubernetes-file': 'cluster.json' })
const stateOf = async () =>
  JSON.parse(await readFile(join(workspace, STATE), 'utf8')) as { deployments: unknown[] }
/** The statuses the service has held for one deployment name, in order of the records. */
const statuses = (name: string) =>
  (emulator.state.deploymentRecords['acme'] ?? [])
    .filter(r => r.deployment_name === name)
    .map(r => r.status)

/** Run one step on `objects`; it must succeed. Requests of earlier runs are forgotten. */
async function runOn(objects: Json[]): Promise<ActionRun> {
  await writeCluster(objects)
  emulator.requests.length = 0
  const run = await step()
  expect({ code: run.code, error: errorOf(run) }).toEqual({ code: 0, error: '' })
  return run
}

test('kubernetes-file: a Deployment scaled to zero is kept, not decommissioned, is recorded again when its pod runs, and is decommissioned once the Deployment is deleted', async () => {
  const deployment = workload('Deployment', 'apps', 'beta')
  const replicaSet = workload('ReplicaSet', 'apps', 'beta-7d9f8', {
    owner: { kind: 'Deployment', name: 'beta' }
  })
  const betaPod = podOf(
    'beta',
    'beta-7d9f8-x2k4q',
    { kind: 'ReplicaSet', name: 'beta-7d9f8' },
    'Running',
    { 'pod-template-hash': '7d9f8' }
  )
  const beta = listed('beta', 'Deployment')
  const alphaEntry = listed('alpha', 'StatefulSet')

  await runOn([...alpha(), deployment, replicaSet, betaPod])
  expect(await stateOf()).toEqual(expectedState([alphaEntry, beta]))

  // Scaled to zero: the Deployment and its ReplicaSet are listed, no pod.
  const zero = await runOn([...alpha(), deployment, replicaSet])
  expect(decommissionedOutput(zero)).toEqual([])
  expect(sentIn()).toEqual([sent('alpha')])
  expect(await stateOf()).toEqual(expectedState([alphaEntry, beta]))
  expect(statuses('apps/beta/app')).toEqual(['deployed'])
  expect(zero.stdout).toContain(
    '1 not in the snapshot is kept, as `kubernetes-file` still lists its workload (no running pod): apps/beta/app'
  )

  // Its pod runs again: recorded as before, never decommissioned in between.
  const back = await runOn([...alpha(), deployment, replicaSet, betaPod])
  expect(decommissionedOutput(back)).toEqual([])
  expect(sentIn()).toEqual([sent('alpha'), sent('beta')])
  expect(statuses('apps/beta/app')).toEqual(['deployed'])

  // Scaled to zero again, then the Deployment is deleted (its ReplicaSet with it).
  await runOn([...alpha(), deployment, replicaSet])
  const deleted = await runOn(alpha())
  expect(decommissionedOutput(deleted)).toEqual([sent('beta')])
  expect(sentIn()).toEqual([sent('alpha'), { ...sent('beta'), status: 'decommissioned' }])
  expect(await stateOf()).toEqual(expectedState([alphaEntry]))
  expect(statuses('apps/beta/app')).toEqual(['decommissioned'])
})

const running = (w: string, owner: { kind: string; name: string }) =>
  podOf(w, `${owner.name}-p0`, owner)
test.each<[string, Json[], Json[], ReturnType<typeof listed>]>([
  [
    'a DaemonSet whose only pod is Pending',
    [workload('DaemonSet', 'apps', 'beta'), running('beta', { kind: 'DaemonSet', name: 'beta' })],
    [
      workload('DaemonSet', 'apps', 'beta'),
      podOf('beta', 'beta-p0', { kind: 'DaemonSet', name: 'beta' }, 'Pending')
    ],
    listed('beta', 'DaemonSet')
  ],
  [
    'a StatefulSet whose pod is gone',
    [
      workload('StatefulSet', 'apps', 'beta'),
      running('beta', { kind: 'StatefulSet', name: 'beta' })
    ],
    [workload('StatefulSet', 'apps', 'beta')],
    listed('beta', 'StatefulSet')
  ],
  [
    "a CronJob between runs (its Job's finished pod recorded, then Job and pod cleaned up)",
    [
      workload('CronJob', 'apps', 'beta'),
      workload('Job', 'apps', 'beta-29400120', { owner: { kind: 'CronJob', name: 'beta' } }),
      podOf('beta', 'beta-29400120-zq8', { kind: 'Job', name: 'beta-29400120' }, 'Succeeded')
    ],
    [workload('CronJob', 'apps', 'beta')],
    listed('beta', 'CronJob')
  ],
  [
    'a Job whose pod was removed',
    [
      workload('Job', 'apps', 'beta'),
      podOf('beta', 'beta-k2', { kind: 'Job', name: 'beta' }, 'Succeeded')
    ],
    [workload('Job', 'apps', 'beta')],
    listed('beta', 'Job')
  ],
  [
    'a ReplicaSet of no Deployment, scaled to zero (the object is the ReplicaSet, named beta-blue)',
    [
      workload('ReplicaSet', 'apps', 'beta-blue'),
      running('beta', { kind: 'ReplicaSet', name: 'beta-blue' })
    ],
    [workload('ReplicaSet', 'apps', 'beta-blue')],
    { ...sent('beta'), workload: { namespace: 'apps', kind: 'ReplicaSet', name: 'beta-blue' } }
  ]
])(
  'kubernetes-file: %s is kept while it is listed and decommissioned once it is not',
  async (_case, first, idle, beta) => {
    const alphaEntry = listed('alpha', 'StatefulSet')
    await runOn([...alpha(), ...first])
    expect(await stateOf()).toEqual(expectedState([alphaEntry, beta]))

    const kept = await runOn([...alpha(), ...idle])
    expect(decommissionedOutput(kept)).toEqual([])
    expect(sentIn()).toEqual([sent('alpha')])
    expect(await stateOf()).toEqual(expectedState([alphaEntry, beta]))
    expect(statuses('apps/beta/app')).toEqual(['deployed'])

    const gone = await runOn(alpha())
    expect(decommissionedOutput(gone)).toEqual([sent('beta')])
    expect(sentIn()).toEqual([sent('alpha'), { ...sent('beta'), status: 'decommissioned' }])
    expect(await stateOf()).toEqual(expectedState([alphaEntry]))
  }
)

test('kubernetes-file of pods only (no owner objects): a workload without a running pod cannot be told from a deleted one, so it is decommissioned, and the warning says to print the owners', async () => {
  const pods = (betaPhase: string) => [
    podOf('alpha', 'alpha-0', { kind: 'StatefulSet', name: 'alpha' }),
    podOf('beta', 'beta-0', { kind: 'StatefulSet', name: 'beta' }, betaPhase)
  ]
  await runOn(pods('Running'))
  const pending = await runOn(pods('Pending'))
  expect(pending.stdout).toContain('`kubernetes-file` lists no StatefulSets')
  expect(decommissionedOutput(pending)).toEqual([sent('beta')])
  expect(sentIn()).toEqual([sent('alpha'), { ...sent('beta'), status: 'decommissioned' }])
  expect(await stateOf()).toEqual(expectedState([listed('alpha', 'StatefulSet')]))
})

test('a version-1 state file (entries without their workload) is read as before: a listed workload without a running pod is decommissioned, and the file is written as version 3', async () => {
  await mkdir(join(workspace, '.record-deployment'))
  await writeFile(
    join(workspace, STATE),
    JSON.stringify(expectedState([sent('alpha'), sent('beta')], 1))
  )
  const run = await runOn([
    ...alpha(),
    workload('StatefulSet', 'apps', 'beta'),
    podOf('beta', 'beta-0', { kind: 'StatefulSet', name: 'beta' }, 'Pending')
  ])
  expect(decommissionedOutput(run)).toEqual([sent('beta')])
  expect(await stateOf()).toEqual(expectedState([listed('alpha', 'StatefulSet')]))
})

test('a workload whose pods run gives the names: a renamed container is decommissioned though its workload is listed', async () => {
  await runOn(alpha())
  const renamed = pod({
    namespace: 'apps',
    name: 'alpha-0',
    owner: { kind: 'StatefulSet', name: 'alpha' },
    phase: 'Running',
    created: '2026-01-02T10:00:00Z',
    containers: [
      {
        name: 'server',
        image: 'ghcr.io/acme/alpha:1.0.0',
        imageID: `ghcr.io/acme/alpha@${digest('alpha')}`
      }
    ]
  })
  const run = await stepAllowingMass([workload('StatefulSet', 'apps', 'alpha'), renamed])
  expect(decommissionedOutput(run)).toEqual([sent('alpha')])
  expect(await stateOf()).toEqual(
    expectedState([
      {
        ...sent('alpha'),
        deployment_name: 'apps/alpha/server',
        workload: { namespace: 'apps', kind: 'StatefulSet', name: 'alpha' }
      }
    ])
  )
})

/** One of one renamed is more than half: the guard asks for allow-mass-decommission. */
async function stepAllowingMass(objects: Json[]): Promise<ActionRun> {
  await writeCluster(objects)
  const refused = await step()
  expect(errorOf(refused)).toContain('kubernetes-file: lacks 1 of the 1 deployments')
  return stateStep({ 'kubernetes-file': 'cluster.json', 'allow-mass-decommission': 'true' })
}

test('deployments-file is the whole truth: an entry a kubernetes-file run wrote, with its workload, is decommissioned when the array lacks it', async () => {
  await runOn([
    ...alpha(),
    workload('StatefulSet', 'apps', 'beta'),
    podOf('beta', 'beta-0', { kind: 'StatefulSet', name: 'beta' })
  ])
  await writeDeployments([sent('alpha')])
  emulator.requests.length = 0
  const run = await stateStep({ 'deployments-file': 'deployments.json' })
  expect({ code: run.code, error: errorOf(run) }).toEqual({ code: 0, error: '' })
  expect(decommissionedOutput(run)).toEqual([sent('beta')])
  expect(await stateOf()).toEqual(expectedState([{ ...sent('alpha'), github_repository: 'web' }]))
})
