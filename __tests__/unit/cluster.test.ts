import {
  FIRST_POLL_MS,
  MAX_POLL_MS,
  MIN_POLL_MS,
  nextPollDelay
} from '../../src/cluster/record-cluster.js'
import { MAX_LISTED_PROBLEMS, validateClusterItems } from '../../src/cluster/items.js'
import {
  InputError,
  parseInputs,
  type FileReader,
  type RawInputs
} from '../../src/step/parse-inputs.js'

const digest = (n: number) => 'sha256:' + n.toString(16).padStart(64, '0')
const item = (n: number, over: Record<string, unknown> = {}) => ({
  name: `ghcr.io/acme/svc-${n}`,
  digest: digest(n),
  deployment_name: `ns-svc-${n}-app`,
  ...over
})
const messages = (value: unknown) =>
  validateClusterItems(value, 'deployments').problems.map(p => p.message)

describe('cluster items', () => {
  test('valid items pass, digests lower-cased, the default repository filled in', () => {
    const { items, problems } = validateClusterItems(
      [
        item(1, {
          digest: digest(1).toUpperCase().replace('SHA256', 'sha256'),
          status: 'decommissioned'
        }),
        item(2, { github_repository: 'api' })
      ],
      'deployments',
      { github_repository: 'web' }
    )
    expect(problems).toEqual([])
    expect(items[0]).toMatchObject({
      digest: digest(1),
      github_repository: 'web',
      status: 'decommissioned'
    })
    expect(items[1]?.github_repository).toBe('api')
  })

  test.each([
    [{}, ['[0].name: is required', '[0].digest: is required', '[0].deployment_name: is required']],
    [item(1, { digest: 'sha512:abc' }), ['[0].digest: must be sha256:<64 hex digits>']],
    [item(1, { name: '' }), ['[0].name: must not be empty']],
    [item(1, { name: 'n'.repeat(257) }), ['[0].name: must be at most 256 characters']],
    [item(1, { version: 'v'.repeat(101) }), ['[0].version: must be at most 100 characters']],
    [
      item(1, { deployment_name: 'd'.repeat(257) }),
      ['[0].deployment_name: must be at most 256 characters']
    ],
    [item(1, { status: 'gone' }), ['[0].status: must be deployed or decommissioned']],
    [
      item(1, { github_repository: 'acme/web' }),
      ['[0].github_repository: must be a bare repository name, not owner/name']
    ],
    // the repository input's rule: not dots alone
    [
      item(1, { github_repository: '..' }),
      ['[0].github_repository: must be a bare repository name, not owner/name']
    ],
    [
      item(1, { tags: { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6' } }),
      ['[0].tags: must have at most 5 keys']
    ],
    [item(1, { tags: { a: 1 } }), ['[0].tags.a: values must be strings']],
    [
      item(1, { runtime_risks: ['laser'] }),
      [expect.stringMatching(/^\[0\]\.runtime_risks\.0: items must be one of/)]
    ],
    [
      item(1, { runtime_risks: ['internet-exposed', 'internet-exposed'] }),
      ['[0].runtime_risks: must not repeat a value']
    ],
    [item(1, { deploymnet_name: 'typo' }), ['[0]: unknown field `deploymnet_name`']],
    ['a string', ['[0]: must be an object']]
  ])('%j is refused', (bad, expected) => {
    expect(messages([bad])).toEqual(expected)
  })

  test('deployment_name must be unique in the array', () => {
    expect(messages([item(1), item(2), item(3, { deployment_name: 'ns-svc-1-app' })])).toEqual([
      '[2].deployment_name: `ns-svc-1-app` is already used by item [0]'
    ])
  })

  test('not an array, or an empty one', () => {
    expect(messages({ a: 1 })).toEqual(['must be a JSON array of deployments'])
    expect(messages([])).toEqual(['is an empty array: there is nothing to record'])
  })

  test(`at most ${MAX_LISTED_PROBLEMS} problems are listed, the rest counted`, () => {
    const found = messages(Array.from({ length: 80 }, (_, i) => item(i, { status: 'x' })))
    expect(found).toHaveLength(MAX_LISTED_PROBLEMS + 1)
    expect(found.at(-1)).toBe('... and 30 more problems')
  })

  test('__proto__ keys are data, not prototypes', () => {
    const parsed = JSON.parse(
      `[{"name":"a","digest":"${digest(1)}","deployment_name":"d","tags":{"__proto__":"x"}}]`
    )
    const { items, problems } = validateClusterItems(parsed, 'deployments')
    expect(problems).toEqual([])
    expect(Object.keys(items[0]?.tags ?? {})).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>)['x']).toBeUndefined()
  })
})

describe('cluster inputs', () => {
  const base: RawInputs = {
    token: 't',
    repository: 'acme/web',
    cluster: 'prod-1',
    environment: 'production'
  }
  const many = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => item(i)))
  const parse = (raw: RawInputs, files?: FileReader) => parseInputs({ ...base, ...raw }, {}, files)
  const problemsOf = (raw: RawInputs, files?: FileReader) => {
    try {
      parse(raw, files)
      return []
    } catch (error) {
      return (error as InputError).problems
    }
  }

  test('auto picks sync up to 1000 deployments and a job above', () => {
    expect(parse({ deployments: many(1000) }).cluster?.mode).toBe('sync')
    expect(parse({ deployments: many(1001) }).cluster?.mode).toBe('job')
    expect(parse({ deployments: many(3), 'cluster-mode': 'job' }).cluster?.mode).toBe('job')
  })

  test('defaults: partial-success false, job-timeout 300', () => {
    expect(parse({ deployments: many(2) }).cluster).toMatchObject({
      cluster: 'prod-1',
      logicalEnvironment: 'production',
      partialSuccess: false,
      jobTimeoutSeconds: 300
    })
    expect(parse({ deployments: many(2) }).deployment).toBeUndefined()
  })

  test('more than 5000 is an error before any request; sync takes at most 1000', () => {
    expect(problemsOf({ deployments: many(5001) })).toEqual([
      {
        input: 'deployments',
        message: 'has 5001 deployments; one step records at most 5000 (split the cluster)'
      }
    ])
    expect(problemsOf({ deployments: many(1001), 'cluster-mode': 'sync' })[0]?.message).toMatch(
      /sync` sends at most 1000/
    )
  })

  test('cluster and environment are required; digest and single-record inputs conflict', () => {
    const found = problemsOf({
      deployments: many(1),
      cluster: '',
      environment: '',
      digest: digest(1),
      tags: 'a=b'
    })
    expect(found.map(p => p.input).sort()).toEqual(['cluster', 'digest', 'environment', 'tags'])
  })

  test('cluster-only inputs without deployments are named', () => {
    expect(
      problemsOf({ digest: digest(1), name: 'x', 'cluster-mode': 'job', 'job-timeout': '10' }).map(
        p => p.input
      )
    ).toEqual(['cluster-mode', 'job-timeout'])
  })

  test('job-timeout is 1 to 21600 seconds; cluster-mode and partial-success are checked', () => {
    expect(parse({ deployments: many(1), 'job-timeout': '600' }).cluster?.jobTimeoutSeconds).toBe(
      600
    )
    const found = problemsOf({
      deployments: many(1),
      'job-timeout': '0',
      'cluster-mode': 'async',
      'partial-success': 'y'
    })
    expect(found.map(p => p.input).sort()).toEqual([
      'cluster-mode',
      'job-timeout',
      'partial-success'
    ])
  })

  test('a deployments-file that starts with a UTF-8 byte-order mark is read', () => {
    const files: FileReader = { size: () => 10, read: () => '\uFEFF' + many(2) }
    const inputs = parseInputs(
      { ...base, 'deployments-file': 'deployments.json' },
      { GITHUB_WORKSPACE: '/w' },
      files
    )
    expect(inputs.cluster?.items).toHaveLength(2)
  })

  test('item lengths are counted in code points', () => {
    const name = '🚀'.repeat(256)
    expect(messages([item(1, { name })])).toEqual([])
    expect(messages([item(1, { name: name + '🚀' })])).toEqual([
      '[0].name: must be at most 256 characters'
    ])
  })

  test('deployments-file is read relative to the workspace, as data only', () => {
    const asked: string[] = []
    const files: FileReader = {
      size: () => 10,
      read: path => {
        asked.push(path)
        return many(2)
      }
    }
    const inputs = parseInputs(
      { ...base, 'deployments-file': 'out/deployments.json' },
      { GITHUB_WORKSPACE: '/w' },
      files
    )
    expect(asked).toEqual(['/w/out/deployments.json'])
    expect(inputs.cluster?.items).toHaveLength(2)
  })

  test('an unreadable or invalid file is named', () => {
    const missing: FileReader = {
      size: () => {
        throw Object.assign(new Error('nope'), { code: 'ENOENT' })
      },
      read: () => ''
    }
    expect(problemsOf({ 'deployments-file': 'x.json' }, missing)).toEqual([
      { input: 'deployments-file', message: 'cannot read `x.json`: no such file' }
    ])
    const broken: FileReader = { size: () => 3, read: () => '[{' }
    expect(problemsOf({ 'deployments-file': 'x.json' }, broken)[0]?.message).toMatch(
      /^is not valid JSON/
    )
    const huge: FileReader = { size: () => 1e9, read: () => '' }
    expect(problemsOf({ 'deployments-file': 'x.json' }, huge)[0]?.message).toMatch(/bytes; at most/)
  })

  test('both deployments and deployments-file is a problem', () => {
    expect(problemsOf({ deployments: many(1), 'deployments-file': 'x' }).map(p => p.input)).toEqual(
      ['deployments-file']
    )
  })

  test('item problems name the input, index and field', () => {
    expect(
      problemsOf({ deployments: JSON.stringify([item(1), item(2, { digest: 'x' })]) })
    ).toEqual([{ input: 'deployments', message: '[1].digest: must be sha256:<64 hex digits>' }])
  })
})

describe('poll schedule', () => {
  test('starts at 2 s and grows to at most 30 s', () => {
    const delays: number[] = []
    let d: number | undefined
    for (let i = 0; i < 10; i++) delays.push((d = nextPollDelay(d)))
    // The documented figures, not the constants compared with themselves (a 60 s cap passed).
    expect(delays[0]).toBe(2000)
    expect(delays.slice(0, 4)).toEqual([2000, 3000, 4500, 6750])
    expect(Math.max(...delays)).toBe(30_000)
    expect(delays.at(-1)).toBe(30_000)
    expect([FIRST_POLL_MS, MIN_POLL_MS, MAX_POLL_MS]).toEqual([2000, 1000, 30_000])
  })

  test('x-poll-interval wins', () => {
    expect(nextPollDelay(undefined, 5)).toBe(5000)
    expect(nextPollDelay(30_000, 1)).toBe(1000)
  })

  test('x-poll-interval below 1 s is raised to 1 s; above the cap it is capped', () => {
    expect(nextPollDelay(undefined, 0)).toBe(1000)
    expect(nextPollDelay(undefined, 0.01)).toBe(1000)
    expect(nextPollDelay(undefined, 0.5)).toBe(1000)
    expect(nextPollDelay(undefined, 3600)).toBe(30_000)
  })
})
