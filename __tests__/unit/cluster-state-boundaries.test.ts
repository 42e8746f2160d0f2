// Over 300 lines on purpose: the limits of the state and of its settlement share one set of
// fixtures (a state file, a plan, a log), and each boundary is easier to read beside the others.
/**
 * The limits of the cluster's state (src/cluster/state.ts) and its settlement
 * (src/cluster/settle-state.ts) at, below and above each boundary: the file size, the mass
 * decommission guard with a namespace filter, the names and problems listed before "... and N
 * more", which request may have been applied (the status-500 boundary), which workloads are
 * still listed or filtered, what the log says for none, one and many, and `planned.length > 0`
 * in the dry run.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { item, range } from '../../__fixtures__/state-entries.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import { CancelledError } from '../../src/client/cancel.js'
import { ServiceError } from '../../src/client/errors.js'
import type { ClusterItem, NamespaceFilter, Workload } from '../../src/cluster/items.js'
import {
  announceState,
  mayHaveApplied,
  previewDecommissions,
  settleClusterState,
  settledState
} from '../../src/cluster/settle-state.js'
import {
  MAX_STATE_FILE_BYTES,
  STATE_VERSION,
  stateText,
  type ClusterState,
  type StateEntry
} from '../../src/cluster/state-format.js'
import { planState, type StatefulCluster, type StatePlan } from '../../src/cluster/state.js'
import { Collector } from '../../src/inputs/problems.js'
import { emptyResult } from '../../src/shared/result.js'

const PLACE = { cluster: 'prod-eu-1', logicalEnvironment: 'production' }
const stateOf = (deployments: StateEntry[], over: Partial<ClusterState> = {}): ClusterState => ({
  format: 'record-deployment/cluster-state',
  version: STATE_VERSION,
  cluster: 'prod-eu-1',
  logical_environment: 'production',
  deployments,
  ...over
})
const workload = (namespace: string, name: string): Workload => ({
  namespace,
  kind: 'Deployment',
  name
})
const inNamespace = (n: number, namespace: string) => ({
  ...item(n),
  workload: workload(namespace, `s${n}`)
})

/** planState over a file of `text` (its size as given), for a snapshot of `cluster`. */
function plan(
  text: string,
  cluster: Partial<StatefulCluster> & { items: ClusterItem[] },
  { size = text.length, allowMass = false } = {}
) {
  const c = new Collector({ 'state-file': 'state.json' })
  const result = planState(
    c,
    { GITHUB_WORKSPACE: '/work' },
    { size: () => size, read: () => text },
    { ...PLACE, ...cluster },
    { snapshotInput: 'kubernetes-file', allowMass }
  )
  return { result, problems: c.problems, message: c.problems.map(p => p.message).join('\n') }
}

describe('planState', () => {
  test('a file of exactly MAX_STATE_FILE_BYTES is read; one byte more is refused unread', () => {
    const text = stateText(stateOf([item(1)]))
    expect(plan(text, { items: [item(1)] }, { size: MAX_STATE_FILE_BYTES }).problems).toEqual([])
    expect(plan(text, { items: [item(1)] }, { size: MAX_STATE_FILE_BYTES + 1 }).message).toContain(
      `is ${MAX_STATE_FILE_BYTES + 1} bytes; a state file is at most ${MAX_STATE_FILE_BYTES}`
    )
  })

  test.each([
    ['another cluster', { cluster: 'prod-us-1' }],
    ['another environment', { logical_environment: 'staging' }],
    ['a physical environment the step has not', { physical_environment: 'eu-west-1' }]
  ])('a file of %s is refused; the same place is read', (_, over) => {
    const ours = plan(stateText(stateOf([item(1)])), { items: [item(1)] })
    expect(ours.problems).toEqual([])
    const theirs = plan(stateText(stateOf([item(1)], over)), { items: [item(1)] })
    expect(theirs.message).toContain('each cluster and environment needs its own state file')
  })

  test('the mass guard counts only what the filter keeps: half of those gone passes, more is refused', () => {
    // 4 in `apps`, 4 in `old` (left out by the filter: not seen, not counted).
    const listed = [
      ...range(1, 4).map(n => inNamespace(n, 'apps')),
      ...range(5, 8).map(n => inNamespace(n, 'old'))
    ]
    const filter: NamespaceFilter = { input: 'namespaces', wanted: ns => ns === 'apps' }
    const text = stateText(stateOf(listed))
    const half = plan(text, { items: [item(1), item(2)], namespaceFilter: filter })
    expect(half.problems).toEqual([])
    expect(half.result?.decommissions.map(d => d.deployment_name)).toEqual(['s3', 's4'])
    expect(half.result?.filtered.map(d => d.deployment_name)).toEqual(['s5', 's6', 's7', 's8'])
    expect(half.result?.filterInput).toBe('namespaces')
    const more = plan(text, { items: [item(1)], namespaceFilter: filter })
    expect(more.message).toContain(
      'lacks 3 of the 4 deployments that `state.json` lists in the namespaces `namespaces` keeps, so 3 would be decommissioned (s2, s3, s4)'
    )
  })

  test('without a filter the guard names no namespaces, and nothing is filtered', () => {
    const refused = plan(stateText(stateOf(range(1, 4).map(item))), { items: [item(1)] })
    expect(refused.message).toContain('lacks 3 of the 4 deployments that `state.json` lists, so 3')
    const passed = plan(stateText(stateOf(range(1, 2).map(item))), { items: [item(1)] })
    expect(passed.result).toMatchObject({ filtered: [], kept: [] })
    expect(passed.result?.filterInput).toBeUndefined()
  })

  test('a filter keeps a namespace it wants in view: its workload gone is decommissioned', () => {
    const filter: NamespaceFilter = { input: 'namespaces', wanted: ns => ns === 'apps' }
    const text = stateText(stateOf([inNamespace(1, 'apps'), inNamespace(2, 'apps'), item(3)]))
    const { result } = plan(text, { items: [item(1), item(3)], namespaceFilter: filter })
    expect(result?.decommissions.map(d => d.deployment_name)).toEqual(['s2'])
    expect(result?.filtered).toEqual([])
    expect(result?.filterInput).toBeUndefined() // named only when it left something out
  })

  test('`~/` is the HOME the step is given', () => {
    const c = new Collector({ 'state-file': '~/state/prod.json' })
    const text = stateText(stateOf([item(1)]))
    const result = planState(
      c,
      { GITHUB_WORKSPACE: '/work', HOME: '/home/runner' },
      { size: () => text.length, read: () => text },
      { ...PLACE, items: [item(1)] },
      { snapshotInput: 'deployments-file', allowMass: false }
    )
    expect(result?.path).toBe('/home/runner/state/prod.json')
  })

  test.each([
    [5, 'would be decommissioned (s2, s3, s4, s5, s6): more than half'],
    [6, 'would be decommissioned (s2, s3, s4, s5, s6, ... and 1 more): more than half']
  ])('%i names to decommission: five are named, the rest counted', (gone, named) => {
    const { message } = plan(stateText(stateOf(range(1, gone + 1).map(item))), { items: [item(1)] })
    expect(message).toContain(named)
  })

  test.each([
    [5, false],
    [6, true]
  ])(
    'a hand-edited file with %i bad entries: five problems named, the rest counted = %s',
    (bad, counted) => {
      const entries = range(1, bad).map(n => ({ ...item(n), digest: `bad-${n}` }))
      const { message } = plan(stateText(stateOf(entries)), { items: [item(1)] })
      expect(message).toContain('is not a state file this action can read')
      expect(message.includes('; ... and 1 more.')).toBe(counted)
      expect(message.match(/must be sha256/g)).toHaveLength(5)
    }
  )

  test('still listed and idle: kept; listed but running under new names: gone', () => {
    // s1's workload runs now as s3 (a renamed container); s2's workload is listed with no pod.
    const text = stateText(
      stateOf([
        { ...item(1), workload: workload('apps', 'web') },
        { ...item(2), workload: workload('apps', 'idle') }
      ])
    )
    const web = workload('apps', 'web')
    const { result } = plan(
      text,
      {
        items: [item(3)],
        workloads: new Map([['s3', web]]),
        listedWorkloads: new Set([
          'Deployment\u0000apps\u0000web',
          'Deployment\u0000apps\u0000idle'
        ])
      },
      { allowMass: true }
    )
    expect(result?.decommissions.map(d => d.deployment_name)).toEqual(['s1'])
    expect(result?.kept.map(d => d.deployment_name)).toEqual(['s2'])
  })

  test('a run over the entry limit with nothing kept does not speak of kept entries', () => {
    const text = stateText(stateOf([item(1)]))
    const items = range(2, 10_001).map(item)
    const { message } = plan(text, { items }, { allowMass: true })
    expect(message).toContain(
      '(10000 in the snapshot, 1 listed before); a state file lists at most'
    )
  })
})

describe('mayHaveApplied: the status-500 boundary of "the write may have applied"', () => {
  const refused = (status: number, over: { unanswered?: number; serverErrors?: number } = {}) =>
    Object.assign(new ServiceError({ method: 'POST', path: '/x', status }), over)

  test('every attempt answered with a 4xx: not applied; a 5xx last, or any 5xx or unanswered attempt before: maybe', () => {
    expect(mayHaveApplied(refused(499))).toBe(false)
    expect(mayHaveApplied(refused(422))).toBe(false)
    expect(mayHaveApplied(refused(500))).toBe(true)
    expect(mayHaveApplied(refused(503))).toBe(true)
    expect(mayHaveApplied(refused(429, { unanswered: 1 }))).toBe(true)
    expect(mayHaveApplied(refused(429, { serverErrors: 1 }))).toBe(true)
    expect(mayHaveApplied(refused(429, { unanswered: 0, serverErrors: 0 }))).toBe(false)
  })

  test('a cancel or an error that is no answer of the service: maybe', () => {
    expect(mayHaveApplied(new CancelledError('POST', '/x', 'SIGTERM', true))).toBe(true)
    expect(mayHaveApplied(new CancelledError('POST', '/x', 'SIGTERM', false))).toBe(true)
    expect(mayHaveApplied(new Error('socket hang up'))).toBe(true)
  })
})

describe('settledState', () => {
  const previous = stateOf([item(1), item(2)])
  const withState = (items: ClusterItem[], over: Partial<StatePlan> = {}): StatefulCluster => ({
    ...PLACE,
    items,
    state: {
      given: 'state.json',
      path: '/work/state.json',
      previous,
      decommissions: [],
      kept: [],
      filtered: [],
      ...over
    }
  })

  test('an entry keeps exactly the fields sent: version, repository and workload when given, none when not', () => {
    const full = { ...item(3), version: '1.2.0', github_repository: 'web' }
    const cluster = {
      ...withState([item(1), full]),
      workloads: new Map([['s3', workload('apps', 's3')]])
    }
    const entries = settledState(cluster, [])?.state.deployments
    expect(entries).toStrictEqual([
      { deployment_name: 's1', name: item(1).name, digest: item(1).digest },
      { ...full, workload: workload('apps', 's3') }
    ])
  })

  test('a rejection by artifact and digest counts for that digest only', () => {
    const items = [item(1), item(3)]
    const rejected = (digest: string) =>
      settledState(withState(items), [{ cause: 'x', deployment: { name: item(3).name, digest } }])
    expect(rejected(item(3).digest)?.state.deployments.map(d => d.deployment_name)).toEqual(['s1'])
    expect(rejected(item(4).digest)?.state.deployments.map(d => d.deployment_name)).toEqual([
      's1',
      's3'
    ])
  })

  test('a decommission accepted leaves; one sent unconfirmed stays as the file had it', () => {
    const gone = { ...item(2), status: 'decommissioned' as const }
    expect(settledState(withState([item(1), gone]), [])?.decommissioned).toEqual([item(2)])
    const unconfirmed = settledState(withState([item(1), gone]), [], false)
    expect(unconfirmed?.state.deployments).toEqual([item(1), item(2)])
    expect(unconfirmed?.decommissioned).toEqual([])
  })

  test('entries are written sorted by deployment name', () => {
    const settled = settledState(withState([item(3), item(1), item(2)]), [])
    expect(settled?.state.deployments.map(d => d.deployment_name)).toEqual(['s1', 's2', 's3'])
  })
})

describe('settleClusterState and the log', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'state-boundaries-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })
  const cluster = (items: ClusterItem[]): StatefulCluster => ({
    ...PLACE,
    items,
    state: {
      given: 'state.json',
      path: join(dir, 'state.json'),
      previous: stateOf([item(1), item(2)]),
      decommissions: [],
      kept: [],
      filtered: []
    }
  })
  const written = async () =>
    (JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as ClusterState).deployments.map(
      d => d.deployment_name
    )

  test('confirmed with nothing decommissioned: no "Decommissioned" line; the file is what was sent', async () => {
    const log = new MemoryLog()
    const result = emptyResult(false)
    await settleClusterState(cluster([item(1), item(3)]), 'confirmed', [], result, log)
    expect(log.text()).not.toContain('Decommissioned')
    expect(result.decommissioned).toEqual([])
    expect(await written()).toEqual(['s1', 's3'])
  })

  test('confirmed with one decommissioned: said, and output', async () => {
    const log = new MemoryLog()
    const result = emptyResult(false)
    const gone = { ...item(2), status: 'decommissioned' as const }
    await settleClusterState(cluster([item(1), gone]), 'confirmed', [], result, log)
    expect(log.text()).toContain('Decommissioned 1 deployments: s2')
    expect(result.decommissioned).toEqual([item(2)])
    expect(await written()).toEqual(['s1'])
  })

  test('unconfirmed: every entry kept and the new one added, and the log says the service did not confirm', async () => {
    const log = new MemoryLog()
    const gone = { ...item(2), status: 'decommissioned' as const }
    const s1 = { ...item(1), digest: item(9).digest } // an update of s1
    await settleClusterState(
      cluster([s1, item(3), gone]),
      'unconfirmed',
      [],
      emptyResult(false),
      log
    )
    expect(JSON.parse(await readFile(join(dir, 'state.json'), 'utf8'))).toMatchObject({
      deployments: [item(1), item(2), item(3)]
    })
    expect(log.text()).toContain('(the service did not confirm the request:')
  })

  test('confirmed, but a rejection names nothing: settled as unconfirmed, and the log says why', async () => {
    const log = new MemoryLog()
    await settleClusterState(
      cluster([item(1), item(2), item(3)]),
      'confirmed',
      [{ cause: 'x' }],
      emptyResult(false),
      log
    )
    expect(await written()).toEqual(['s1', 's2', 's3'])
    expect(log.text()).toContain('a deployment the service rejected is not named in its answer')
  })

  test('refused: the file is not written', async () => {
    const log = new MemoryLog()
    await settleClusterState(cluster([item(3)]), 'refused', [], emptyResult(false), log)
    await expect(readFile(join(dir, 'state.json'))).rejects.toMatchObject({ code: 'ENOENT' })
    expect(log.text()).toContain('was left as it was: the service refused the request')
  })
})

describe('announceState: none, one and many', () => {
  const announce = (over: Partial<StatePlan>) => {
    const log = new MemoryLog()
    const planned: StatePlan = {
      given: 'state.json',
      path: '/work/state.json',
      previous: stateOf([item(1), item(2), item(3)]),
      decommissions: [],
      kept: [],
      filtered: [],
      ...over
    }
    announceState({ ...PLACE, items: [], state: planned }, log)
    return log.text()
  }
  const gone = (n: number) => ({ ...item(n), status: 'decommissioned' as const })

  test('nothing lacking: the snapshot has every one', () => {
    expect(announce({})).toContain('lists 3 deployments; the snapshot has every one')
  })

  test('decommissions: one is, two are', () => {
    expect(announce({ decommissions: [gone(2)] })).toContain(
      '1 not in the snapshot is sent as decommissioned: s2'
    )
    expect(announce({ decommissions: [gone(2), gone(3)] })).toContain(
      '2 not in the snapshot are sent as decommissioned: s2, s3'
    )
    expect(announce({ decommissions: [gone(2)] })).not.toMatch(/kept/)
  })

  test('kept as still listed: its workload, their workloads', () => {
    expect(announce({ kept: [item(2)] })).toContain(
      '1 not in the snapshot is kept, as `kubernetes-file` still lists its workload (no running pod): s2'
    )
    expect(announce({ kept: [item(2), item(3)] })).toContain(
      '2 not in the snapshot are kept, as `kubernetes-file` still lists their workloads'
    )
    expect(announce({ kept: [item(2)] })).not.toMatch(/sent as decommissioned|namespace/)
  })

  test('left out by the filter: by namespace, one and many', () => {
    expect(announce({ filtered: [inNamespace(2, 'batch')], filterInput: 'namespaces' })).toContain(
      '1 not in the snapshot is kept, not decommissioned, as `namespaces` leaves namespace batch (1) out of this run: s2'
    )
    expect(
      announce({
        filtered: [inNamespace(2, 'batch'), inNamespace(3, 'old')],
        filterInput: 'namespaces'
      })
    ).toContain(
      '2 not in the snapshot are kept, not decommissioned, as `namespaces` leaves namespaces batch (1), old (1) out'
    )
  })

  test('the first run: no file, nothing to decommission', () => {
    expect(announce({ previous: undefined })).toContain(
      'not found: the first run for cluster prod-eu-1'
    )
  })
})

describe('previewDecommissions: planned.length > 0', () => {
  const preview = (items: ClusterItem[]) => {
    const log = new MemoryLog()
    const result = emptyResult(true)
    previewDecommissions({ ...PLACE, items }, result, log)
    return { log: log.text(), decommissioned: result.decommissioned }
  }

  test('none planned: no line about decommissions', () => {
    expect(preview([item(1)])).toEqual({ log: '', decommissioned: [] })
  })

  test('one planned: said and output; a deployed item is not among them', () => {
    const { log, decommissioned } = preview([item(1), { ...item(2), status: 'decommissioned' }])
    expect(log).toBe('info: Dry run: would decommission 1 deployments: s2')
    expect(decommissioned).toEqual([item(2)])
  })
})
