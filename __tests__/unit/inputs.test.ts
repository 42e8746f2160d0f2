// Over 300 lines: the composed parser's cross-job rules, table-tested in one place.
import {
  defaultDeploymentName,
  InputError,
  parseInputs,
  readRawInputs,
  type RawInputs
} from '../../src/step/parse-inputs.js'
import { splitList } from '../../src/shared/text.js'

const DIGEST = 'sha256:' + 'a'.repeat(64)
const base: RawInputs = {
  token: 'tok',
  repository: 'acme/web',
  digest: DIGEST,
  name: 'ghcr.io/acme/web',
  environment: 'production'
}

function problems(
  raw: RawInputs,
  env: Record<string, string> = {}
): Array<{ input: string; message: string }> {
  try {
    parseInputs(raw, env)
  } catch (error) {
    if (error instanceof InputError) return error.problems
    throw error
  }
  return []
}
const inputsNamed = (raw: RawInputs, env: Record<string, string> = {}) =>
  problems(raw, env).map(p => p.input)

test('a minimal deployment record', () => {
  const inputs = parseInputs(base, {})
  expect(inputs).toEqual({
    connection: {
      token: 'tok',
      apiUrl: 'https://api.github.com',
      apiVersion: '2026-03-10',
      org: 'acme',
      repository: { owner: 'acme', name: 'web' },
      serviceRepository: 'web'
    },
    artifact: { name: 'ghcr.io/acme/web', digest: DIGEST },
    deployment: {
      status: 'deployed',
      logicalEnvironment: 'production',
      physicalEnvironment: undefined,
      cluster: undefined,
      deploymentName: 'web',
      tags: undefined,
      runtimeRisks: undefined
    },
    storage: undefined,
    dryRun: false,
    maxRetries: 3,
    jobSummary: true,
    timeBudget: 330
  })
})

test('empty inputs take the environment fallbacks of the runner', () => {
  const inputs = parseInputs(
    { digest: DIGEST, name: 'web', environment: 'prod', token: '', 'api-url': '', repository: '' },
    {
      GITHUB_TOKEN: 'envtok',
      GITHUB_API_URL: 'https://ghe.example.com/api/v3/',
      GITHUB_REPOSITORY: 'octo/site'
    }
  )
  expect(inputs.connection).toMatchObject({
    token: 'envtok',
    apiUrl: 'https://ghe.example.com/api/v3',
    org: 'octo',
    repository: { owner: 'octo', name: 'site' },
    serviceRepository: 'site'
  })
})

test('github_repository is sent only when the repository belongs to org', () => {
  expect(parseInputs({ ...base, org: 'ACME' }, {}).connection.serviceRepository).toBe('web')
  expect(parseInputs({ ...base, org: 'other' }, {}).connection.serviceRepository).toBeUndefined()
})

test('every problem is reported at once, each naming its input', () => {
  const found = problems({
    token: '',
    'api-url': 'http://example.com',
    digest: 'md5:abc',
    environment: 'x'.repeat(129),
    cluster: 'prod eu',
    tags: 'a=1,b',
    'runtime-risks': 'internet-exposed, space-laser',
    'max-retries': 'many',
    'dry-run': 'maybe'
  })
  expect(found.map(p => p.input).sort()).toEqual(
    [
      'api-url',
      'cluster',
      'digest',
      'dry-run',
      'environment',
      'max-retries',
      'org',
      'runtime-risks',
      'tags',
      'token'
    ].sort()
  )
  try {
    parseInputs({ token: '', environment: 'p', digest: 'nope' }, {})
  } catch (error) {
    expect((error as Error).message).toMatch(
      /^The inputs have \d+ problems; nothing was sent:\n {2}- token: /
    )
  }
})

describe('token', () => {
  test('required', () => expect(inputsNamed({ ...base, token: '' })).toEqual(['token']))
  test('white space inside is refused without echoing it', () => {
    const [p] = problems({ ...base, token: 'abc def' })
    expect(p?.input).toBe('token')
    expect(p?.message).not.toContain('abc')
  })
})

describe('api-url', () => {
  test.each([
    'https://api.github.com',
    'https://ghe.example.com/api/v3',
    'http://127.0.0.1:8787',
    'http://localhost:3000',
    'http://[::1]:9/'
  ])('%s is accepted', url => expect(inputsNamed({ ...base, 'api-url': url })).toEqual([]))
  test.each([
    'http://example.com',
    'ftp://x',
    'not a url',
    'https://user:pw@api.github.com',
    'https://api.github.com/?q=1'
  ])('%s is refused', url => expect(inputsNamed({ ...base, 'api-url': url })).toEqual(['api-url']))
})

test('api-version must be a date version', () => {
  expect(inputsNamed({ ...base, 'api-version': '2022-11-28' })).toEqual([])
  expect(inputsNamed({ ...base, 'api-version': 'v3' })).toEqual(['api-version'])
})

describe('org and repository', () => {
  test('repository must be owner/name', () => {
    for (const bad of ['acme', 'acme/web/x', '/web', 'acme/..', 'ac me/web']) {
      expect(inputsNamed({ ...base, repository: bad })).toEqual(['repository'])
    }
  })
  test('org defaults to the owner of repository, and is required without one', () => {
    expect(parseInputs({ ...base, repository: 'octo/x' }, {}).connection.org).toBe('octo')
    expect(inputsNamed({ ...base, repository: '' })).toEqual(['org'])
    expect(parseInputs({ ...base, repository: '', org: 'acme' }, {}).connection.org).toBe('acme')
  })
  test('org must be an organization name', () => {
    expect(inputsNamed({ ...base, org: 'acme/web' })).toEqual(['org'])
  })
})

describe('digest', () => {
  test.each([
    [DIGEST, DIGEST],
    ['sha256:' + 'A'.repeat(64), DIGEST],
    ['a'.repeat(64), DIGEST],
    ['SHA256:' + 'a'.repeat(64), DIGEST]
  ])('%s -> %s', (value, expected) => {
    expect(parseInputs({ ...base, digest: value }, {}).artifact?.digest).toBe(expected)
  })

  test('an image reference gives the name (without its tag) and the version (its tag) too', () => {
    const inputs = parseInputs({ ...base, name: '', digest: `ghcr.io/acme/api:1.2@${DIGEST}` }, {})
    expect(inputs.artifact).toEqual({ name: 'ghcr.io/acme/api', version: '1.2', digest: DIGEST })
    expect(inputs.deployment?.deploymentName).toBe('api')
  })

  test('other algorithms are a clear error', () => {
    expect(problems({ ...base, digest: 'sha512:' + 'a'.repeat(128) })).toEqual([
      { input: 'digest', message: 'only sha256 digests can be recorded, not sha512' }
    ])
  })

  test.each(['sha256:abc', 'sha256:' + 'g'.repeat(64), 'a'.repeat(63)])('%s is refused', value => {
    expect(inputsNamed({ ...base, digest: value })).toEqual(['digest'])
  })

  test('required for a record', () => {
    expect(inputsNamed({ ...base, digest: '' })).toEqual(['digest'])
    expect(
      inputsNamed({ ...base, environment: '', digest: '', 'registry-url': 'https://ghcr.io' })
    ).toEqual(['digest'])
  })
})

describe('name, version, lengths', () => {
  test('name is required with a bare digest', () =>
    expect(inputsNamed({ ...base, name: '' })).toEqual(['name']))
  test('name at most 256', () =>
    expect(inputsNamed({ ...base, name: 'n'.repeat(257) })).toEqual(['name']))
  test('version 1-100', () => {
    expect(inputsNamed({ ...base, version: 'v'.repeat(100) })).toEqual([])
    expect(inputsNamed({ ...base, version: 'v'.repeat(101) })).toEqual(['version'])
  })
  test('environment at most 128', () => {
    expect(inputsNamed({ ...base, environment: 'e'.repeat(128) })).toEqual([])
    expect(inputsNamed({ ...base, environment: 'e'.repeat(129) })).toEqual(['environment'])
  })
  test('physical-environment at most 128', () => {
    expect(inputsNamed({ ...base, 'physical-environment': 'e'.repeat(129) })).toEqual([
      'physical-environment'
    ])
  })
  test('deployment-name at most 256', () => {
    expect(inputsNamed({ ...base, 'deployment-name': 'd'.repeat(257) })).toEqual([
      'deployment-name'
    ])
  })
  test('lengths are counted in code points, as the service counts them', () => {
    expect(inputsNamed({ ...base, environment: '🌍'.repeat(128) })).toEqual([])
    expect(inputsNamed({ ...base, environment: '🌍'.repeat(129) })).toEqual(['environment'])
  })
  test('control characters are refused', () => {
    expect(inputsNamed({ ...base, version: 'v1\u0000' })).toEqual(['version'])
  })
})

test('status is deployed or decommissioned', () => {
  expect(parseInputs({ ...base, status: 'decommissioned' }, {}).deployment?.status).toBe(
    'decommissioned'
  )
  expect(problems({ ...base, status: 'gone' })).toEqual([
    { input: 'status', message: '`gone` is not one of `deployed`, `decommissioned`' }
  ])
})

test('cluster: letters, digits, . _ -, at most 128', () => {
  expect(parseInputs({ ...base, cluster: 'prod-eu_1.a' }, {}).deployment?.cluster).toBe(
    'prod-eu_1.a'
  )
  expect(inputsNamed({ ...base, cluster: 'prod/eu' })).toEqual(['cluster'])
  expect(inputsNamed({ ...base, cluster: 'c'.repeat(129) })).toEqual(['cluster'])
})

describe('deployment-name default', () => {
  test.each([
    ['ghcr.io/acme/web', 'web'],
    ['ghcr.io/acme/web:1.2.3', 'web'],
    ['localhost:5000/team/api:latest', 'api'],
    ['web', 'web']
  ])('%s -> %s', (name, expected) => expect(defaultDeploymentName(name)).toBe(expected))
  test('an explicit one wins', () => {
    expect(
      parseInputs({ ...base, 'deployment-name': 'ns-web-app' }, {}).deployment?.deploymentName
    ).toBe('ns-web-app')
  })
})

describe('tags', () => {
  test('key=value items, newline or comma separated', () => {
    expect(
      parseInputs({ ...base, tags: 'team=web\nowner = sre, tier=1' }, {}).deployment?.tags
    ).toEqual({
      team: 'web',
      owner: 'sre',
      tier: '1'
    })
  })
  test('a value may hold =', () => {
    expect(parseInputs({ ...base, tags: 'q=a=b' }, {}).deployment?.tags).toEqual({ q: 'a=b' })
  })
  test('a JSON object of strings', () => {
    expect(
      parseInputs({ ...base, tags: '{"team":"web","run":"42"}' }, {}).deployment?.tags
    ).toEqual({ team: 'web', run: '42' })
  })
  test('at most 5 keys', () => {
    expect(inputsNamed({ ...base, tags: 'a=1,b=2,c=3,d=4,e=5' })).toEqual([])
    expect(problems({ ...base, tags: 'a=1,b=2,c=3,d=4,e=5,f=6' })).toEqual([
      { input: 'tags', message: 'has 6 keys; at most 5 are allowed' }
    ])
  })
  test.each(['{"a":1}', '{"a":', '["a"]', 'novalue', '=x', 'a=1,a=2'])('%s is refused', tags => {
    expect(inputsNamed({ ...base, tags })).toEqual(['tags'])
  })
  test('__proto__ stays a plain key and pollutes nothing', () => {
    const tags = parseInputs({ ...base, tags: '{"__proto__":"x","constructor":"y"}' }, {})
      .deployment?.tags
    expect(Object.keys(tags ?? {}).sort()).toEqual(['__proto__', 'constructor'])
    expect(({} as Record<string, unknown>)['x']).toBeUndefined()
    // The tags' own prototype, not a fresh object's (whose prototype no input can change).
    expect(Object.getPrototypeOf(tags)).toBe(Object.prototype)
    expect(tags?.['__proto__']).toBe('x')
  })
})

test('runtime-risks: the four values, duplicates dropped', () => {
  expect(
    parseInputs(
      { ...base, 'runtime-risks': 'internet-exposed\nsensitive-data, internet-exposed' },
      {}
    ).deployment?.runtimeRisks
  ).toEqual(['internet-exposed', 'sensitive-data'])
  expect(problems({ ...base, 'runtime-risks': 'internet-exposed,laser' })[0]?.message).toMatch(
    /`laser` is not one of/
  )
})

describe('storage record', () => {
  const storage: RawInputs = { ...base, environment: '', 'registry-url': 'https://ghcr.io' }
  test('registry-url alone asks for a storage record with defaults', () => {
    const inputs = parseInputs(storage, {})
    expect(inputs.deployment).toBeUndefined()
    expect(inputs.storage).toEqual({
      registryUrl: 'https://ghcr.io',
      artifactUrl: undefined,
      repository: undefined,
      path: undefined,
      status: 'active'
    })
  })
  test('URLs must be https and within their lengths', () => {
    expect(inputsNamed({ ...storage, 'registry-url': 'http://ghcr.io' })).toEqual(['registry-url'])
    expect(inputsNamed({ ...storage, 'registry-url': 'https://r.io/' + 'x'.repeat(250) })).toEqual([
      'registry-url'
    ])
    expect(inputsNamed({ ...storage, 'artifact-url': 'https://r.io/' + 'x'.repeat(140) })).toEqual([
      'artifact-url'
    ])
    expect(inputsNamed({ ...storage, 'artifact-url': 'ghcr.io/acme/web' })).toEqual([
      'artifact-url'
    ])
  })
  test('credentials in registry-url or artifact-url (`user:pass@`, a token or signature in the query) are refused, naming the input, the secret never quoted', () => {
    for (const input of ['registry-url', 'artifact-url'] as const) {
      for (const url of [
        'https://bot:s3cr3tpass@registry.example.com',
        'https://s3cr3tpass@registry.example.com',
        'https://r.example.com/x?token=s3cr3tpass',
        'https://b.s3.amazonaws.com/x?X-Amz-Signature=s3cr3tpass&X-Amz-Date=1',
        'https://a.blob.core.windows.net/c/x?sv=1&sig=s3cr3tpass',
        'https://bot:s3cr3t pass@registry.example.com'
      ]) {
        const found = problems({ ...storage, [input]: url }, {})
        expect({ url, inputs: found.map(p => p.input) }).toEqual({ url, inputs: [input] })
        expect(found[0]?.message).not.toContain('s3cr3t')
      }
    }
    // a query that is not a credential stays
    expect(inputsNamed({ ...storage, 'artifact-url': 'https://r.io/x?tag=v1&author=me' })).toEqual(
      []
    )
  })
  test('registry-repository at most 128, storage-path at most 512', () => {
    expect(inputsNamed({ ...storage, 'registry-repository': 'r'.repeat(129) })).toEqual([
      'registry-repository'
    ])
    expect(inputsNamed({ ...storage, 'storage-path': 'p'.repeat(513) })).toEqual(['storage-path'])
  })
  test('storage-status is active, eol or deleted', () => {
    expect(parseInputs({ ...storage, 'storage-status': 'eol' }, {}).storage?.status).toBe('eol')
    expect(inputsNamed({ ...storage, 'storage-status': 'inactive' })).toEqual(['storage-status'])
  })
  test('storage inputs without registry-url are a mistake worth naming', () => {
    expect(inputsNamed({ ...base, 'artifact-url': 'https://ghcr.io/x' })).toEqual(['artifact-url'])
  })
})

test('deployment inputs without environment are named', () => {
  expect(
    inputsNamed({ ...base, environment: '', 'registry-url': 'https://ghcr.io', cluster: 'c1' })
  ).toEqual(['cluster'])
})

test('nothing to record is an error naming what to set', () => {
  expect(
    problems({ token: 't', repository: 'acme/web', digest: DIGEST, name: 'x' })[0]
  ).toMatchObject({
    input: 'environment',
    message: expect.stringMatching(/registry-url/)
  })
})

test('dry-run is true or false in any case', () => {
  expect(parseInputs({ ...base, 'dry-run': 'TRUE' }, {}).dryRun).toBe(true)
  expect(parseInputs({ ...base, 'dry-run': 'False' }, {}).dryRun).toBe(false)
  expect(inputsNamed({ ...base, 'dry-run': 'yes' })).toEqual(['dry-run'])
})

test('job-summary is on unless false, in any case; any other word is a problem naming it', () => {
  expect(parseInputs({ ...base }, {}).jobSummary).toBe(true)
  expect(parseInputs({ ...base, 'job-summary': 'True' }, {}).jobSummary).toBe(true)
  expect(parseInputs({ ...base, 'job-summary': 'FALSE' }, {}).jobSummary).toBe(false)
  expect(inputsNamed({ ...base, 'job-summary': 'off' })).toEqual(['job-summary'])
})

test('max-retries is a whole number from 0 to 10', () => {
  expect(parseInputs({ ...base, 'max-retries': '0' }, {}).maxRetries).toBe(0)
  expect(parseInputs({ ...base, 'max-retries': '10' }, {}).maxRetries).toBe(10)
  for (const bad of ['-1', '11', '1.5', 'x'])
    expect(inputsNamed({ ...base, 'max-retries': bad })).toEqual(['max-retries'])
})

test('time-budget is a whole number of minutes from 1 to 1440', () => {
  expect(parseInputs({ ...base }, {}).timeBudget).toBe(330)
  expect(parseInputs({ ...base, 'time-budget': '1' }, {}).timeBudget).toBe(1)
  expect(parseInputs({ ...base, 'time-budget': '1440' }, {}).timeBudget).toBe(1440)
  for (const bad of ['0', '1441', '2.5', '-3', 'an hour'])
    expect(inputsNamed({ ...base, 'time-budget': bad })).toEqual(['time-budget'])
})

test('lists are trimmed, empty items and duplicates dropped', () => {
  expect(splitList(' a, b\n\n,a ,c ')).toEqual(['a', 'b', 'c'])
})

test('readRawInputs asks for every input by its action.yml name', () => {
  const asked: string[] = []
  readRawInputs(name => {
    asked.push(name)
    return ''
  })
  expect(asked).toContain('api-url')
  expect(asked).toContain('max-retries')
})
