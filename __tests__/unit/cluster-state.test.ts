/**
 * `state-file` as the inputs read it, with files given in memory: which place a file belongs to,
 * the mass-decommission boundary, and the request size counted with the decommissions in it.
 */
import { digest, item, parsedOrProblems, range } from '../../__fixtures__/state-entries.js'
import { STATE_INPUTS } from '../../__fixtures__/state-entries.js'
import { settledState } from '../../src/cluster/settle-state.js'
import type { FileReader, RawInputs } from '../../src/step/parse-inputs.js'

function stateOf(names: number[], over: Record<string, unknown> = {}): string {
  return JSON.stringify({
    format: 'record-deployment/cluster-state',
    version: 1,
    cluster: 'prod-eu-1',
    logical_environment: 'production',
    deployments: names.map(item),
    ...over
  })
}

function files(contents: Record<string, string>): FileReader {
  const at = (path: string) => {
    const name = path.split('/').pop() ?? ''
    const content = contents[name]
    if (content === undefined) throw Object.assign(new Error('no such file'), { code: 'ENOENT' })
    return content
  }
  return { size: path => at(path).length, read: at }
}

function parse(snapshot: number[], state: string | undefined, over: RawInputs = {}) {
  const given = {
    'deployments.json': JSON.stringify(snapshot.map(item)),
    ...(state === undefined ? {} : { 'state.json': state })
  }
  return parsedOrProblems({ ...STATE_INPUTS, ...over }, files(given))
}

test('no file yet: nothing to decommission', () => {
  const { inputs } = parse([1, 2], undefined)
  expect(inputs?.cluster?.items.map(i => i.deployment_name)).toEqual(['s1', 's2'])
  expect(inputs?.cluster?.state?.decommissions).toEqual([])
})

test('a file with a byte-order mark is read', () => {
  const { inputs } = parse([1, 2], '\uFEFF' + stateOf([1, 2, 3]))
  expect(inputs?.cluster?.state?.decommissions.map(d => d.deployment_name)).toEqual(['s3'])
})

test('places are compared field by field: production/eu is not production + eu', () => {
  const { problems } = parse([1], stateOf([1], { logical_environment: 'production/eu' }), {
    environment: 'production',
    'physical-environment': 'eu'
  })
  expect(problems).toEqual([
    {
      input: 'state-file',
      message: expect.stringContaining(
        'holds the deployments of cluster prod-eu-1 in production/eu, not of cluster prod-eu-1 in production/eu:'
      )
    }
  ])
})

test.each([
  [4, 2, true],
  [5, 3, false],
  [5, 2, true],
  [1, 1, false],
  [2, 1, true]
])(
  'a file of %i with %i gone: passes without allow-mass-decommission = %s',
  (listed, gone, passes) => {
    // A new workload beside them: the snapshot is never empty.
    const { inputs, problems } = parse([...range(1, listed - gone), 99], stateOf(range(1, listed)))
    if (passes) expect(inputs?.cluster?.state?.decommissions).toHaveLength(gone)
    else
      expect(problems).toEqual([
        {
          input: 'deployments-file',
          message: expect.stringContaining(`lacks ${gone} of the ${listed} deployments`)
        }
      ])
  }
)

test('the decommissions count toward the request: 1000 present and 1 gone make a job', () => {
  const { inputs } = parse(range(1, 1000), stateOf(range(1, 1001)))
  expect(inputs?.cluster?.items).toHaveLength(1001)
  expect(inputs?.cluster?.items[1000]).toEqual({ ...item(1001), status: 'decommissioned' })
  expect(inputs?.cluster?.mode).toBe('job')
})

test('5000 present and 1 gone are more than one step records', () => {
  const { problems } = parse(range(2, 5001), stateOf(range(1, 5000)))
  expect(problems).toEqual([
    { input: 'deployments-file', message: expect.stringContaining('has 5001 deployments') }
  ])
})

describe('what the state holds after the service took the request', () => {
  const previous = {
    format: 'record-deployment/cluster-state' as const,
    version: 1 as const,
    cluster: 'prod-eu-1',
    logical_environment: 'production',
    deployments: [item(1), item(2), item(3)]
  }
  const updated = (n: number) => ({ ...item(n), digest: digest(100 + n) })
  // s1 updated, s2 gone (decommissioned), s3 as it was, s4 new.
  const cluster = {
    cluster: 'prod-eu-1',
    logicalEnvironment: 'production',
    items: [updated(1), item(3), item(4), { ...item(2), status: 'decommissioned' as const }],
    state: {
      given: 'state.json',
      path: '/work/state.json',
      previous,
      decommissions: [],
      kept: [],
      filtered: []
    }
  }

  /** `cluster` with a version 3 previous state of `deployments`, `filtered` of them left out. */
  const withPrevious = <D extends object>(deployments: D[], filtered: D[] = []) => ({
    ...cluster,
    state: {
      ...cluster.state,
      previous: { ...previous, version: 3 as const, deployments },
      filtered
    }
  })

  test('nothing rejected: what was sent, without the decommissioned', () => {
    const settled = settledState(cluster, [])
    expect(settled?.state.deployments).toEqual([updated(1), item(3), item(4)])
    expect(settled?.decommissioned).toEqual([item(2)])
  })

  test('rejected by deployment name: an update keeps the old entry, a new one stays out, a decommission stays listed with its count', () => {
    const rejected = [1, 2, 4].map(n => ({
      cause: 'not_found',
      deployment: { deployment_name: `s${n}` }
    }))
    const settled = settledState(cluster, rejected)
    expect(settled?.state.deployments).toEqual([
      item(1),
      { ...item(2), decommission_rejections: 1 },
      item(3)
    ])
    expect(settled?.decommissioned).toEqual([])
    expect(settled?.owed).toEqual([{ deployment: item(2), runs: 1 }])
    expect(settled?.givenUp).toEqual([])
  })

  test.each([
    [1, 2, false],
    [2, 3, true]
  ])(
    'a decommission rejected before on %i runs and again now counts %i: given up = %s',
    (before, runs, givenUp) => {
      const counted = withPrevious([
        item(1),
        { ...item(2), decommission_rejections: before },
        item(3)
      ])
      const settled = settledState(counted, [
        { cause: 'not_found', deployment: { deployment_name: 's2' } }
      ])
      expect(settled?.state.deployments.find(e => e.deployment_name === 's2')).toEqual(
        givenUp ? undefined : { ...item(2), decommission_rejections: runs }
      )
      expect(settled?.givenUp).toEqual(givenUp ? [{ deployment: item(2), runs }] : [])
      // Accepted after all: it leaves the state, whatever its count.
      expect(settledState(counted, [])?.decommissioned).toEqual([item(2)])
    }
  )

  test('a rejected decommission the namespace filter now leaves out is kept as it was, its count with it', () => {
    const owed = {
      ...item(5),
      workload: { namespace: 'batch', kind: 'Deployment' as const, name: 's5' },
      decommission_rejections: 2
    }
    const filtered = withPrevious([...previous.deployments, owed], [owed])
    for (const settled of [settledState(filtered, []), settledState(filtered, [], false)])
      expect(settled?.state.deployments.find(e => e.deployment_name === 's5')).toEqual(owed)
  })

  test('not confirmed: every previous entry stays as it was (s1 not updated) and a new deployment sent is added, the decommission owed', () => {
    const settled = settledState(cluster, [], false)
    expect(settled?.state.deployments).toEqual([item(1), item(2), item(3), item(4)])
    expect(settled?.decommissioned).toEqual([])
  })

  test('not confirmed, with a rejection that names nothing: the same, the rejection ignored', () => {
    const settled = settledState(cluster, [{ cause: 'not_found' }], false)
    expect(settled?.state.deployments).toEqual([item(1), item(2), item(3), item(4)])
  })

  test('rejected by artifact name only (the flat {name, cause}): every deployment of that artifact', () => {
    const settled = settledState(cluster, [
      { name: 'ghcr.io/acme/s1', cause: 'not_found' } as never
    ])
    expect(settled?.state.deployments).toEqual([item(1), item(3), item(4)])
  })

  test('a rejection that names nothing: no confirmed state (the caller settles it as unconfirmed)', () => {
    expect(settledState(cluster, [{ cause: 'not_found' }])).toBeUndefined()
  })
})
