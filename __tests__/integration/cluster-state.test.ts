// Over 300 lines: the whole done-when list, for both files and both modes, on one staging helper.
/**
 * `state-file` through the bundled action, as the runner starts it, against the emulator: the
 * deployments a snapshot no longer has are decommissioned in the same request, the file follows
 * what the service holds, and every safety rule of README "Workloads that vanished" holds, for
 * `deployments-file` and `kubernetes-file`, as a set request and as a job. What each run must
 * send and keep is written out by hand from the snapshots below.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import {
  byName,
  decommissionedOutput,
  digest,
  emulator,
  errorOf,
  sentIn,
  STATE,
  stateStep,
  useStateWorkspace,
  workspace,
  writeCluster,
  writeDeployments
} from '../../__fixtures__/cluster-state.js'
import { TOKEN, writesOf } from '../../__fixtures__/emulator.js'
import { pod, workload } from '../../scripts/kubectl-list.js'
import { runAction } from '../../scripts/run-action.js'

type Source = 'deployments-file' | 'kubernetes-file'
type Mode = 'sync' | 'job'

useStateWorkspace('cluster-state', ['acme/web', 'acme/api'])

/** The deployment name each source gives workload `w` (kubectl: namespace/workload/container). */
const nameIn = (source: Source, w: string) =>
  source === 'kubernetes-file' ? `apps/${w}/app` : `apps-${w}`

/** What the state lists for workload `w`, and what a decommission of it sends. */
const entry = (source: Source, w: string, over: Record<string, string> = {}) => ({
  deployment_name: nameIn(source, w),
  name: `ghcr.io/acme/${w}`,
  digest: digest(w),
  version: '1.0.0',
  github_repository: 'web',
  ...over
})

/** Writes the snapshot of `workloads` the way the source's step before ours would. */
async function snapshot(source: Source, workloads: string[]): Promise<void> {
  if (source === 'deployments-file') {
    const items = workloads.map(w => {
      const { github_repository: _, ...item } = entry(source, w)
      return item
    })
    await writeDeployments(items)
    return
  }
  const objects = workloads.flatMap(w => [
    workload('StatefulSet', 'apps', w),
    pod({
      namespace: 'apps',
      name: `${w}-0`,
      owner: { kind: 'StatefulSet', name: w },
      phase: 'Running',
      created: '2026-01-02T10:00:00Z',
      containers: [
        { name: 'app', image: `ghcr.io/acme/${w}:1.0.0`, imageID: `ghcr.io/acme/${w}@${digest(w)}` }
      ]
    })
  ])
  await writeCluster(objects)
}

const step = (source: Source, mode: Mode, inputs: Record<string, string> = {}) =>
  stateStep({
    'physical-environment': 'eu-west-1',
    [source]: source === 'kubernetes-file' ? 'cluster.json' : 'deployments.json',
    // kubectl items carry no github_repository unless asked (kubernetes-tracker.test.ts); asked
    // here so that both sources record the same entries.
    ...(source === 'kubernetes-file' ? { 'kubernetes-repository': 'web' } : {}),
    'cluster-mode': mode,
    ...inputs
  })

const stateText = () => readFile(join(workspace, STATE), 'utf8')
const stateOf = async () => JSON.parse(await stateText()) as { deployments: unknown[] }
/** The state file: a kubectl entry also names its object (each workload is a StatefulSet here). */
const expectedState = (
  entries: Array<{ deployment_name: string; decommission_rejections?: number }>
) => ({
  format: 'record-deployment/cluster-state',
  version: 3,
  cluster: 'prod-eu-1',
  logical_environment: 'production',
  physical_environment: 'eu-west-1',
  deployments: entries.map(e => {
    const w = /^apps\/(.+)\/app$/.exec(e.deployment_name)?.[1]
    return w ? { ...e, workload: { namespace: 'apps', kind: 'StatefulSet', name: w } } : e
  })
})
/** What the service holds for the cluster: deployment name -> status and digest. */
const held = () =>
  Object.fromEntries(
    (emulator.state.deploymentRecords['acme'] ?? [])
      .filter(r => r.cluster === 'prod-eu-1')
      .map(r => [r.deployment_name, `${r.status} ${r.digest.slice(7, 15)}`])
  )

describe.each<[Source, Mode]>([
  ['deployments-file', 'sync'],
  ['deployments-file', 'job'],
  ['kubernetes-file', 'sync'],
  ['kubernetes-file', 'job']
])('%s, cluster-mode %s', (source, mode) => {
  const [a, b, c] = [entry(source, 'alpha'), entry(source, 'beta'), entry(source, 'gamma')]
  const deployed = (e: ReturnType<typeof entry>) => `deployed ${e.digest.slice(7, 15)}`
  const decommissioned = (e: ReturnType<typeof entry>) => `decommissioned ${e.digest.slice(7, 15)}`

  test('first run writes the state; a removed workload is decommissioned once; an identical run sends no decommission', async () => {
    await snapshot(source, ['alpha', 'beta', 'gamma'])
    const first = await step(source, mode)
    expect({ code: first.code, error: errorOf(first) }).toEqual({ code: 0, error: '' })
    expect(await stateOf()).toEqual(expectedState([a, b, c]))
    expect(decommissionedOutput(first)).toEqual([])

    emulator.requests.length = 0
    await snapshot(source, ['alpha', 'gamma'])
    const second = await step(source, mode)
    expect({ code: second.code, error: errorOf(second) }).toEqual({ code: 0, error: '' })
    expect(writesOf(emulator.requests)).toHaveLength(1)
    expect(sentIn()).toEqual([a, { ...b, status: 'decommissioned' }, c])
    expect(held()).toEqual({
      [a.deployment_name]: deployed(a),
      [b.deployment_name]: decommissioned(b),
      [c.deployment_name]: deployed(c)
    })
    expect(decommissionedOutput(second)).toEqual([b])
    expect(second.summary).toContain('### Decommissioned (1)')
    expect(second.summary).toContain(b.deployment_name)
    expect(await stateOf()).toEqual(expectedState([a, c]))

    emulator.requests.length = 0
    const before = await stateText()
    const third = await step(source, mode)
    expect(third.code).toBe(0)
    expect(sentIn()).toEqual([a, c])
    expect(decommissionedOutput(third)).toEqual([])
    expect(await stateText()).toBe(before)
  })

  test('a failed second run leaves the state as it was, and the retry sends the same decommission', async () => {
    await snapshot(source, ['alpha', 'beta', 'gamma'])
    expect((await step(source, mode)).code).toBe(0)
    const before = await stateText()

    await snapshot(source, ['alpha', 'gamma'])
    emulator.requests.length = 0
    if (mode === 'job') emulator.seed({ failNextJob: true })
    else emulator.addFault({ method: 'POST', fault: { kind: 'status', status: 500 }, times: 10 })
    const failed = await step(source, mode, { 'max-retries': '0' })
    expect(failed.code).not.toBe(0)
    expect(sentIn()).toEqual([a, { ...b, status: 'decommissioned' }, c])
    expect(await stateText()).toBe(before)
    expect(decommissionedOutput(failed)).toEqual([])
    expect(held()[b.deployment_name]).toBe(deployed(b))

    emulator.clearFaults()
    emulator.requests.length = 0
    const retry = await step(source, mode)
    expect(retry.code).toBe(0)
    expect(sentIn()).toEqual([a, { ...b, status: 'decommissioned' }, c])
    expect(held()[b.deployment_name]).toBe(decommissioned(b))
    expect(await stateOf()).toEqual(expectedState([a, c]))
  })

  test('dry run previews the decommission and writes nothing, the state file included', async () => {
    await snapshot(source, ['alpha', 'beta'])
    const none = await step(source, mode, { 'dry-run': 'true' })
    expect(none.code).toBe(0)
    expect(existsSync(join(workspace, STATE))).toBe(false)

    expect((await step(source, mode)).code).toBe(0)
    const before = await stateText()
    await snapshot(source, ['alpha', 'gamma'])
    emulator.requests.length = 0
    const dry = await step(source, mode, { 'dry-run': 'true' })
    expect(dry.code).toBe(0)
    expect(writesOf(emulator.requests)).toEqual([])
    expect(await stateText()).toBe(before)
    const planned = JSON.parse(dry.outputs['planned'] ?? '[]') as Array<{
      body: { deployments: Array<{ deployment_name: string }> }
    }>
    expect(byName(planned[0]?.body.deployments ?? [])).toEqual([
      a,
      { ...b, status: 'decommissioned' },
      entry(source, 'gamma')
    ])
    expect(decommissionedOutput(dry)).toEqual([b])
    expect(dry.summary).toContain('### Would decommission (1)')
  })

  test('the mass-decommission guard: more than half fails before any request and names the count; allow-mass-decommission lets it through', async () => {
    await snapshot(source, ['alpha', 'beta', 'gamma', 'delta'])
    expect((await step(source, mode)).code).toBe(0)
    const before = await stateText()

    await snapshot(source, ['alpha'])
    emulator.requests.length = 0
    const refused = await step(source, mode)
    expect(refused.code).not.toBe(0)
    expect(errorOf(refused)).toContain(
      `${source}: lacks 3 of the 4 deployments that \`${STATE}\` lists, so 3 would be decommissioned`
    )
    expect(errorOf(refused)).toContain('allow-mass-decommission: true')
    expect(emulator.requests).toEqual([])
    expect(await stateText()).toBe(before)

    const allowed = await step(source, mode, { 'allow-mass-decommission': 'true' })
    expect(allowed.code).toBe(0)
    expect(sentIn()).toEqual([
      a,
      { ...b, status: 'decommissioned' },
      { ...entry(source, 'delta'), status: 'decommissioned' },
      { ...c, status: 'decommissioned' }
    ])
    expect(decommissionedOutput(allowed)).toHaveLength(3)
    expect(await stateOf()).toEqual(expectedState([a]))

    // Exactly half is not "more than half" (the same in both modes: one set of runs is enough).
    if (mode === 'job') return
    await snapshot(source, ['alpha', 'beta'])
    expect((await step(source, mode)).code).toBe(0)
    await snapshot(source, ['beta'])
    emulator.requests.length = 0
    const half = await step(source, mode)
    expect(half.code).toBe(0)
    expect(decommissionedOutput(half)).toEqual([a])
  })
})

describe.each<Source>(['deployments-file', 'kubernetes-file'])('%s', source => {
  test.each([
    [
      { cluster: 'prod-us-1' },
      'holds the deployments of cluster prod-eu-1 in production/eu-west-1, not of cluster prod-us-1 in production/eu-west-1'
    ],
    [{ environment: 'staging' }, 'not of cluster prod-eu-1 in staging/eu-west-1'],
    [{ 'physical-environment': '' }, 'not of cluster prod-eu-1 in production:']
  ])(
    'the state of another cluster or environment (%j) is refused before any request',
    async (over, message) => {
      await snapshot(source, ['alpha', 'beta'])
      expect((await step(source, 'sync')).code).toBe(0)
      const before = await stateText()
      emulator.requests.length = 0
      const run = await step(source, 'sync', over)
      expect(run.code).not.toBe(0)
      expect(errorOf(run)).toContain(`state-file: \`${STATE}\` holds the deployments of`)
      expect(errorOf(run)).toContain(message)
      expect(emulator.requests).toEqual([])
      expect(await stateText()).toBe(before)
    }
  )
})

test('an empty kubectl output (allow-empty-cluster) does not wipe the cluster unless allow-mass-decommission says so', async () => {
  const source = 'kubernetes-file'
  const [a, b] = [entry(source, 'alpha'), entry(source, 'beta')]
  await snapshot(source, ['alpha', 'beta'])
  expect((await step(source, 'sync')).code).toBe(0)
  await snapshot(source, [])
  emulator.requests.length = 0
  const refused = await step(source, 'sync', { 'allow-empty-cluster': 'true' })
  expect(refused.code).not.toBe(0)
  expect(errorOf(refused)).toContain('kubernetes-file: lacks 2 of the 2 deployments')
  expect(emulator.requests).toEqual([])
  expect(held()).toEqual({
    [a.deployment_name]: `deployed ${a.digest.slice(7, 15)}`,
    [b.deployment_name]: `deployed ${b.digest.slice(7, 15)}`
  })

  const wiped = await step(source, 'sync', {
    'allow-empty-cluster': 'true',
    'allow-mass-decommission': 'true'
  })
  expect(wiped.code).toBe(0)
  expect(sentIn()).toEqual([
    { ...a, status: 'decommissioned' },
    { ...b, status: 'decommissioned' }
  ])
  expect(await stateOf()).toEqual(expectedState([]))
})

test('partial success in a job: a rejected update keeps what the state said, a rejected new deployment stays out, a rejected decommission is owed to the next run', async () => {
  const source = 'deployments-file'
  const [a, b, c] = [entry(source, 'alpha'), entry(source, 'beta'), entry(source, 'gamma')]
  const api = { ...c, github_repository: 'api' }
  await writeFile(
    join(workspace, 'deployments.json'),
    JSON.stringify([
      { ...a, github_repository: undefined },
      { ...b, github_repository: undefined },
      api
    ])
  )
  expect((await step(source, 'job')).code).toBe(0)
  expect(await stateOf()).toEqual(expectedState([a, b, api]))

  // acme/api goes away: gamma's decommission is rejected; beta moves to a repository the token
  // cannot reach (rejected, the old record stays), and delta is new but rejected too.
  // epsilon (new, of acme/api: rejected too) keeps acme/api among the repositories the run
  // records for: a state entry of any other is never decommissioned (issue 38).
  emulator.state.repos.splice(emulator.state.repos.indexOf('acme/api'), 1)
  const newBeta = { ...b, digest: digest('beta-2'), github_repository: 'gone' }
  const delta = { ...entry(source, 'delta'), github_repository: 'gone' }
  const epsilon = { ...entry(source, 'epsilon'), github_repository: 'api' }
  await writeFile(
    join(workspace, 'deployments.json'),
    JSON.stringify([{ ...a, github_repository: undefined }, newBeta, delta, epsilon])
  )
  emulator.requests.length = 0
  const partial = await step(source, 'job', { 'partial-success': 'true' })
  expect(partial.code).toBe(0)
  expect(sentIn()).toEqual([a, newBeta, delta, epsilon, { ...api, status: 'decommissioned' }])
  expect(
    (
      JSON.parse(partial.outputs['errors'] ?? '[]') as Array<{
        deployment: { deployment_name: string }
      }>
    )
      .map(e => e.deployment.deployment_name)
      .sort()
  ).toEqual(
    [b.deployment_name, delta.deployment_name, epsilon.deployment_name, c.deployment_name].sort()
  )
  expect(decommissionedOutput(partial)).toEqual([])
  expect(await stateOf()).toEqual(expectedState([a, b, { ...api, decommission_rejections: 1 }]))

  // The repository is back: the next run sends the decommission it still owes, once.
  emulator.state.repos.push('acme/api')
  await writeFile(
    join(workspace, 'deployments.json'),
    JSON.stringify([
      { ...a, github_repository: undefined },
      { ...b, github_repository: undefined },
      epsilon
    ])
  )
  emulator.requests.length = 0
  const owed = await step(source, 'job')
  expect(owed.code).toBe(0)
  expect(sentIn()).toEqual([a, b, epsilon, { ...api, status: 'decommissioned' }])
  expect(decommissionedOutput(owed)).toEqual([api])
  expect(await stateOf()).toEqual(expectedState([a, b, epsilon]))
})

test('allow-mass-decommission without state-file, and state-file without a whole cluster, are refused', async () => {
  await snapshot('deployments-file', ['alpha'])
  const run = await step('deployments-file', 'sync', {
    'state-file': '',
    'allow-mass-decommission': 'true'
  })
  expect(errorOf(run)).toContain('allow-mass-decommission: belongs to `state-file`')
  const single = await runAction(
    {
      token: TOKEN,
      'api-url': emulator.url,
      digest: digest('alpha'),
      name: 'ghcr.io/acme/alpha',
      environment: 'production',
      'state-file': STATE
    },
    {},
    { context: { repository: 'acme/web', workspace } }
  )
  expect(errorOf(single)).toContain('state-file: belongs to a whole cluster')
  expect(emulator.requests).toEqual([])
})
