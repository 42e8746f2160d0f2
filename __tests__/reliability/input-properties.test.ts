/**
 * Bad input, generated: every input parser gets thousands of hostile values. The result is
 * either a valid typed value or an InputError whose problems name the input; never another
 * exception, never a request, never a polluted prototype.
 */
import fc from 'fast-check'
import { DIGEST, TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { statedFigures } from '../../__fixtures__/readme.js'
import { CLUSTER_ITEMS, singleDeployment, wholeCluster } from '../../__fixtures__/reliability.js'
import type { Emulator } from '../../emulator/index.js'
import { runAction } from '../../scripts/run-action.js'
import { JOB_LIMIT, SYNC_LIMIT } from '../../src/cluster/items.js'
import { LABEL_INPUT_NAMES } from '../../src/inputs/names.js'
import { DEPLOYMENT_STATUSES, MAX_TAGS, RUNTIME_RISKS, STORAGE_STATUSES } from '../../src/limits.js'
import {
  INPUT_NAMES,
  InputError,
  MAX_RETRIES_LIMIT,
  parseInputs,
  type FileReader,
  type InputName,
  type Inputs,
  type RawInputs
} from '../../src/inputs/index.js'

// A fixed seed keeps CI reproducible: a failure names its counterexample and happens again.
// Set FC_SEED to explore other corners locally.
fc.configureGlobal({ seed: Number(process.env['FC_SEED'] ?? 20261122) })

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator()
})
afterAll(async () => {
  console.log(`input properties: ${propertyRuns} values parsed`)
  await emulator.close()
})

let propertyRuns = 0
/** The first refused value of each input that the runner would pass as it is (see `sendable`). */
const refusedSample = new Map<InputName, RawInputs>()
/** Read from the file system, which the parser above fakes: not tried in the bundled action. */
const FILE_INPUTS = new Set<InputName>(['deployments-file', 'kubernetes-file'])
const asStrings = (raw: RawInputs): Record<string, string> =>
  Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >
const CLUSTER_INPUTS = new Set<InputName>([
  'deployments',
  'deployments-file',
  'cluster-mode',
  'partial-success',
  'job-timeout'
])
/** Inputs whose bad value may be reported on another input that depends on it. */
const RELATED: Partial<Record<InputName, InputName[]>> = {
  repository: ['org'],
  name: ['deployment-name'],
  digest: ['name'],
  environment: [
    'physical-environment',
    'cluster',
    'deployment-name',
    'tags',
    'runtime-risks',
    'status'
  ],
  'registry-url': ['artifact-url', 'registry-repository', 'storage-path', 'storage-status'],
  // Empty, they mean "no whole cluster": then the cluster-only inputs of the base are named.
  deployments: ['deployments-file', 'cluster-mode', 'partial-success', 'job-timeout', 'digest'],
  'deployments-file': ['deployments', 'cluster-mode', 'partial-success', 'job-timeout', 'digest']
}

const FILE_PATH = '/workspace/deployments.json'
const noFiles: FileReader = {
  size: () => {
    throw Object.assign(new Error('no such file'), { code: 'ENOENT' })
  },
  read: () => {
    throw Object.assign(new Error('no such file'), { code: 'ENOENT' })
  }
}
const fileHolding = (text: string): FileReader => ({
  size: path => (path === FILE_PATH ? Buffer.byteLength(text) : noFiles.size(path)),
  read: path => (path === FILE_PATH ? text : noFiles.read(path))
})

function baseFor(input: InputName): RawInputs {
  return CLUSTER_INPUTS.has(input)
    ? wholeCluster(emulator.url, 'sync')
    : singleDeployment(emulator.url, { tags: 'team=web', 'runtime-risks': 'internet-exposed' })
}

// ---------------------------------------------------------------------------------------------
// What a valid typed value looks like

const OWNER = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/
const REPO_NAME = /^[A-Za-z0-9._-]{1,100}$/
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/

function text(value: string | undefined, max: number): void {
  if (value === undefined) return
  expect(value.length).toBeGreaterThan(0)
  expect(value.length).toBeLessThanOrEqual(max)
  expect(value).not.toMatch(CONTROL)
}

function expectValid(inputs: Inputs): void {
  const { connection: c } = inputs
  expect(c.token).toMatch(/^\S+$/)
  const url = new URL(c.apiUrl)
  expect(
    url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.test(url.hostname))
  ).toBe(true)
  expect(url.username + url.password + url.search + url.hash).toBe('')
  expect(c.apiUrl.endsWith('/')).toBe(false)
  expect(c.apiVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/)
  expect(c.org).toMatch(OWNER)
  if (c.repository.name !== '') {
    expect(c.repository.owner).toMatch(OWNER)
    expect(c.repository.name).toMatch(REPO_NAME)
  }
  if (inputs.artifact) {
    expect(inputs.artifact.digest).toMatch(/^sha256:[0-9a-f]{64}$/)
    text(inputs.artifact.name, 256)
    text(inputs.artifact.version, 100)
  }
  const d = inputs.deployment
  if (d) {
    expect(DEPLOYMENT_STATUSES).toContain(d.status)
    text(d.logicalEnvironment, 128)
    text(d.physicalEnvironment, 128)
    if (d.cluster !== undefined) expect(d.cluster).toMatch(/^[A-Za-z0-9._-]{1,128}$/)
    text(d.deploymentName, 256)
    if (d.tags) {
      expect(Object.getPrototypeOf(d.tags)).toBe(Object.prototype)
      const keys = Object.keys(d.tags)
      expect(keys.length).toBeLessThanOrEqual(MAX_TAGS)
      for (const k of keys) expect(typeof d.tags[k]).toBe('string')
    }
    if (d.runtimeRisks) {
      for (const r of d.runtimeRisks) expect(RUNTIME_RISKS).toContain(r)
      expect(new Set(d.runtimeRisks).size).toBe(d.runtimeRisks.length)
    }
  }
  if (inputs.storage) {
    expect(new URL(inputs.storage.registryUrl).protocol).toBe('https:')
    if (inputs.storage.artifactUrl)
      expect(new URL(inputs.storage.artifactUrl).protocol).toBe('https:')
    expect(STORAGE_STATUSES).toContain(inputs.storage.status)
  }
  const cl = inputs.cluster
  if (cl) {
    expect(cl.items.length).toBeGreaterThan(0)
    expect(cl.items.length).toBeLessThanOrEqual(cl.mode === 'sync' ? SYNC_LIMIT : JOB_LIMIT)
    expect(cl.jobTimeoutSeconds).toBeGreaterThanOrEqual(1)
    const names = new Set<string>()
    for (const item of cl.items) {
      expect(item.digest).toMatch(/^sha256:[0-9a-f]{64}$/)
      text(item.name, 256)
      text(item.deployment_name, 256)
      names.add(item.deployment_name)
      if (item.tags) {
        // Own keys only, each a string, whatever the JSON called them. A `__proto__` key is
        // exempt here only because of the known bug pinned by the test.failing below.
        const entries = Object.entries(item.tags)
        expect(entries.length).toBeLessThanOrEqual(MAX_TAGS)
        for (const [, v] of entries) expect(typeof v).toBe('string')
      }
    }
    expect(names.size).toBe(cl.items.length)
  }
  expect(Number.isInteger(inputs.maxRetries)).toBe(true)
  expect(inputs.maxRetries).toBeGreaterThanOrEqual(0)
  expect(inputs.maxRetries).toBeLessThanOrEqual(MAX_RETRIES_LIMIT)
  expect(typeof inputs.dryRun).toBe('boolean')
}

/** Parses; a valid result must look valid, an error must name `input` (or what depends on it). */
function check(raw: RawInputs, input: InputName, files: FileReader = noFiles): 'ok' | 'refused' {
  propertyRuns++
  let inputs: Inputs
  try {
    inputs = parseInputs(raw, {}, files)
  } catch (error) {
    if (!(error instanceof InputError)) throw error
    expect(error.problems.length).toBeGreaterThan(0)
    for (const p of error.problems) {
      expect(INPUT_NAMES).toContain(p.input)
      expect(p.message.length).toBeGreaterThan(0)
    }
    const named = new Set(error.problems.map(p => p.input))
    const acceptable = [input, ...(RELATED[input] ?? [])]
    expect(acceptable.some(i => named.has(i))).toBe(true)
    expect(error.message).toContain(`- ${error.problems[0]?.input}:`)
    return 'refused'
  }
  expectValid(inputs)
  return 'ok'
}

// ---------------------------------------------------------------------------------------------
// Generators

const TRICKY = [
  '',
  ' ',
  '\t',
  '\n\n',
  'true',
  'TRUE',
  'false',
  'yes',
  '0',
  '-1',
  '3.0',
  ' 3 ',
  '10',
  '11',
  '1e3',
  'NaN',
  'Infinity',
  '0x10',
  '{}',
  '[]',
  'null',
  '"x"',
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '[{"__proto__":{"polluted":"yes"}}]',
  '..',
  '.',
  '%2e%2e',
  '%2F',
  '../../etc/passwd',
  'a/b',
  'a?b=c',
  'a#b',
  'a b',
  'ünïcødé',
  '\u202eevil',
  '\ufeffbom',
  '\u0000',
  '\u001b[31m',
  '\u007f',
  'http://localhost:1',
  'http://127.0.0.1:8080/api',
  'http://[::1]:1',
  'http://localhost.evil.com',
  'http://127.0.0.1.nip.io',
  'http://evil.com',
  'https://api.github.com/',
  'https://user:pw@api.github.com',
  'https://api.github.com/?q=1',
  'javascript:alert(1)',
  'file:///etc/passwd',
  'ftp://x',
  DIGEST,
  DIGEST.toUpperCase(),
  `ghcr.io/acme/web@${DIGEST}`,
  'sha512:' + 'a'.repeat(128),
  'a'.repeat(64),
  '${{ secrets.GITHUB_TOKEN }}',
  '$(touch /tmp/pwned)',
  '`id`',
  'deployed',
  'decommissioned',
  'active',
  'eol',
  'critical-resource,internet-exposed',
  'critical-resource\ncritical-resource',
  'a=b,c=d',
  '=b',
  'a=',
  'k=v\nk=w',
  'acme/web',
  'acme/web/extra',
  '-acme/web',
  '2026-03-10',
  '2026-3-10',
  'auto',
  'sync',
  'job',
  '21600',
  '21601',
  '/etc/passwd',
  'deployments.json'
]

const ODD_CHARS = fc.constantFrom(
  '\u0000',
  '\u0007',
  '\u001b',
  '\u007f',
  '\r',
  '\n',
  '\t',
  ' ',
  ',',
  '=',
  '/',
  '.',
  '%',
  '"',
  '{',
  '}',
  '\u2028',
  '\ufeff',
  '\u202e',
  'é',
  '😀',
  'a',
  'Z',
  '0',
  '-',
  '_'
)

/** `{"k": v, ...}` written by hand, so that `__proto__` stays an own key of the JSON text. */
const jsonObjectText = (value: fc.Arbitrary<unknown>) =>
  fc
    .array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'),
          fc.string({ maxLength: 8 })
        ),
        value
      ),
      { maxLength: 8 }
    )
    .map(
      pairs => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`
    )

const hostile = (valid: string) =>
  fc.oneof(
    fc.constantFrom(...TRICKY),
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: ODD_CHARS, maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.jsonValue({ maxDepth: 2 }).map(v => JSON.stringify(v) ?? ''),
    jsonObjectText(fc.jsonValue({ maxDepth: 1 })),
    // Near misses of a valid value: the likeliest shape of a real mistake.
    fc
      .tuple(
        fc.string({ unit: ODD_CHARS, maxLength: 3 }),
        fc.string({ unit: ODD_CHARS, maxLength: 3 })
      )
      .map(([a, b]) => a + valid + b),
    fc.integer({ min: 0, max: Math.max(0, valid.length) }).map(n => valid.slice(0, n)),
    fc.constant(valid.toUpperCase())
  )

// ---------------------------------------------------------------------------------------------
// Every input, one at a time

const RUNS_PER_INPUT = 45

/** A valid value of each input the bases leave unset. */
const VALID: Partial<Record<InputName, string>> = {
  'api-version': '2026-03-10',
  status: 'decommissioned',
  'artifact-url': 'https://ghcr.io/acme/web',
  'storage-path': 'web/1.0',
  'storage-status': 'eol',
  'deployments-file': FILE_PATH,
  'partial-success': 'true',
  'label-color': '0e8a16',
  'label-description': 'Shipped',
  'pull-requests': '12, 14',
  since: 'v1.0.0',
  'label-linked-issues': 'true',
  'dry-run': 'true',
  'max-retries': '5'
}
/** What a label input needs beside it to be read at all. */
const WITH_LABELS: RawInputs = { labels: 'deployed' }
/**
 * Inputs that are valid only with others the bases do not give (a kubectl file and its filters,
 * the state file of a whole cluster and its guard).
 */
const NO_VALID_ALONE = new Set<InputName>([
  'allow-empty-cluster',
  'kubernetes-file',
  'kubernetes-repository',
  'state-file',
  'allow-mass-decommission',
  'deployment-name-template',
  'namespaces',
  'exclude-namespaces'
])

describe.each(INPUT_NAMES.map(name => [name]))('input `%s`', input => {
  test('gives a valid value or an error naming it, never a crash', () => {
    const base = baseFor(input)
    const valid = base[input] ?? VALID[input] ?? 'x'
    const files = fileHolding(JSON.stringify(CLUSTER_ITEMS))
    const rawWith = (value: string): RawInputs => {
      const raw: RawInputs = { ...base, [input]: value }
      if (input === 'deployments-file') delete raw.deployments
      return raw
    }
    // A valid value is accepted: a parser that refuses every value fails here (an empty value,
    // "not given", is accepted by most inputs and would not show it).
    const beside = (LABEL_INPUT_NAMES as readonly string[]).includes(input) ? WITH_LABELS : {}
    if (!NO_VALID_ALONE.has(input))
      expect(check({ ...rawWith(valid), ...beside }, input, files)).toBe('ok')
    const outcomes = { ok: 0, refused: 0 }
    fc.assert(
      fc.property(hostile(valid), value => {
        const outcome = check(rawWith(value), input, files)
        outcomes[outcome]++
        // Not a blank value: "not given" falls back to the runner's variables, which the
        // parser here is not given.
        const sendable = value.trim() !== '' && !value.includes('\u0000')
        if (outcome === 'refused' && sendable && !refusedSample.has(input))
          refusedSample.set(input, rawWith(value))
      }),
      {
        // Every tricky value on every run of the suite, not only those a draw happens to pick
        // (`http://evil.com` for `api-url`); fast-check counts examples within numRuns, so the
        // drawn values come on top of them.
        numRuns: TRICKY.length + RUNS_PER_INPUT,
        examples: TRICKY.map(value => [value] as [string])
      }
    )
    // The values reach the refusing side, or the property proves little.
    expect(outcomes.refused).toBeGreaterThan(0)
  })
})

// ---------------------------------------------------------------------------------------------
// JSON inputs: wrong types, prototype keys

const itemArbitrary = fc
  .record(
    {
      name: fc.oneof(fc.constant('ghcr.io/acme/web'), fc.jsonValue({ maxDepth: 1 })),
      digest: fc.oneof(fc.constant(DIGEST), fc.constant(DIGEST.toUpperCase()), fc.string()),
      deployment_name: fc.oneof(fc.constantFrom('web', 'api', '__proto__'), fc.string()),
      version: fc.oneof(fc.constant('1.0'), fc.jsonValue({ maxDepth: 1 })),
      status: fc.oneof(fc.constantFrom(...DEPLOYMENT_STATUSES), fc.string()),
      github_repository: fc.oneof(fc.constantFrom('web', 'acme/web', '..'), fc.string()),
      tags: fc.oneof(
        fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 7 }),
        fc.jsonValue({ maxDepth: 2 })
      ),
      runtime_risks: fc.oneof(
        fc.array(fc.constantFrom(...RUNTIME_RISKS), { maxLength: 5 }),
        fc.jsonValue({ maxDepth: 1 })
      )
    },
    { requiredKeys: [] }
  )
  .map(item => JSON.stringify(item))

/** Items as JSON text, some with `__proto__` / `constructor` as own keys (item or tags). */
const itemText = fc.oneof(
  itemArbitrary,
  fc
    .tuple(
      fc.constantFrom('web', 'api', 'db'),
      fc.constantFrom('__proto__', 'constructor', 'prototype'),
      fc.jsonValue({ maxDepth: 2 })
    )
    .map(
      ([name, key, value]) =>
        `{"name":"n","digest":"${DIGEST}","deployment_name":"${name}",` +
        `"tags":{${JSON.stringify(key)}:${JSON.stringify(value)},"a":"b"}}`
    ),
  fc
    .constantFrom('__proto__', 'constructor')
    .map(
      key =>
        `{"name":"n","digest":"${DIGEST}","deployment_name":"x",${JSON.stringify(key)}:{"polluted":"yes"}}`
    )
)

const deploymentsText = fc.oneof(
  fc.array(itemText, { maxLength: 6 }).map(items => `[${items.join(',')}]`),
  fc.jsonValue({ maxDepth: 3 }).map(v => JSON.stringify(v) ?? ''),
  jsonObjectText(fc.jsonValue({ maxDepth: 2 })),
  fc.string({ maxLength: 30 })
)

test('deployments and deployments-file: generated JSON, wrong types, prototype keys', () => {
  const outcomes = { ok: 0, refused: 0 }
  fc.assert(
    fc.property(deploymentsText, fc.boolean(), (json, fromFile) => {
      const base = wholeCluster(emulator.url, 'sync')
      const raw: RawInputs = fromFile
        ? { ...base, deployments: '', 'deployments-file': FILE_PATH }
        : { ...base, deployments: json }
      outcomes[check(raw, fromFile ? 'deployments-file' : 'deployments', fileHolding(json))]++
    }),
    {
      numRuns: 600,
      // Both outcomes always occur, whatever the seed draws: one valid cluster, one prototype key.
      examples: [
        [
          `[{"name":"n","digest":"${DIGEST}","deployment_name":"web","tags":{"__proto__":"x"}}]`,
          false
        ],
        [`[{"name":"n","digest":"${DIGEST}","deployment_name":"web","tags":{"__proto__":0}}]`, true]
      ]
    }
  )
  expect(outcomes.ok).toBeGreaterThan(0)
  expect(outcomes.refused).toBeGreaterThan(0)
})

test('tags: generated JSON objects with prototype keys stay plain data', () => {
  const outcomes = { ok: 0, refused: 0 }
  fc.assert(
    fc.property(
      jsonObjectText(fc.oneof(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }))),
      json => {
        outcomes[check({ ...baseFor('tags'), tags: json }, 'tags')]++
      }
    ),
    { numRuns: 400, examples: [['{"__proto__":"x"}'], ['{"__proto__":{"a":"b"}}']] }
  )
  expect(outcomes.ok).toBeGreaterThan(0)
  expect(outcomes.refused).toBeGreaterThan(0)
  // A `__proto__` key is a tag called `__proto__`, not a prototype.
  const parsed = parseInputs(
    { ...baseFor('tags'), tags: '{"__proto__":"x","constructor":"y"}' },
    {},
    noFiles
  )
  const tags = parsed.deployment?.tags ?? {}
  expect(Object.getPrototypeOf(tags)).toBe(Object.prototype)
  expect(Object.keys(tags).sort()).toEqual(['__proto__', 'constructor'])
  expect(JSON.stringify(tags)).toBe('{"__proto__":"x","constructor":"y"}')
})

afterAll(() => {
  // Nothing above may have reached Object.prototype, whatever the JSON said.
  expect(Object.keys(Object.prototype)).toEqual([])
  expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
})

test('a refused value stops the bundled action before any request', async () => {
  // The parser above cannot send anything; the action that runs it could. The first refused
  // value of each input (one an environment variable can hold), given to the bundled action as
  // the runner starts it: it fails naming the input, and the service sees nothing.
  const samples = [...refusedSample].filter(([input]) => !FILE_INPUTS.has(input))
  expect(samples.length).toBeGreaterThan(20)
  // The control: the same base, valid, reaches the service, so the count below can fail.
  emulator.reset()
  const control = await runAction({ ...asStrings(baseFor('tags')), 'dry-run': 'true' })
  expect(control.code).toBe(0)
  expect(emulator.requests.length).toBeGreaterThan(0)
  emulator.reset()
  const outcomes: Array<[InputName, number | null, boolean]> = []
  for (let i = 0; i < samples.length; i += 4) {
    const batch = samples.slice(i, i + 4)
    const runs = await Promise.all(batch.map(([, raw]) => runAction(asStrings(raw))))
    runs.forEach((step, j) => {
      const input = batch[j]?.[0] as InputName
      outcomes.push([input, step.code, step.stdout.includes('::error::')])
    })
  }
  expect(outcomes).toEqual(samples.map(([input]) => [input, 1, true]))
  expect(emulator.requests).toEqual([])
}, 120_000)

// ---------------------------------------------------------------------------------------------
// Huge values

// No time is asserted (a house rule: times are the benchmark's); on two shared cores the 2 s this
// used to allow failed under load while the parser was unchanged.
describe('huge values are refused or accepted, naming the input', () => {
  const MB = 1024 * 1024
  const timed = (raw: RawInputs, input: InputName, files?: FileReader) => check(raw, input, files)

  test('1 MB tags, as key=value and as JSON', () => {
    const kv = 'k=' + 'v'.repeat(MB)
    expect(timed({ ...baseFor('tags'), tags: kv }, 'tags')).toBe('ok')
    const many = Array.from({ length: 60_000 }, (_, i) => `k${i}=v`).join(',')
    expect(many.length).toBeGreaterThan(MB / 2)
    expect(timed({ ...baseFor('tags'), tags: many }, 'tags')).toBe('refused')
    const json = JSON.stringify({ k: 'v'.repeat(MB) })
    expect(timed({ ...baseFor('tags'), tags: json }, 'tags')).toBe('ok')
  })

  test('100k-line lists', () => {
    const risks = Array.from({ length: 100_000 }, (_, i) => RUNTIME_RISKS[i % 4]).join('\n')
    expect(timed({ ...baseFor('runtime-risks'), 'runtime-risks': risks }, 'runtime-risks')).toBe(
      'ok'
    )
    const bad = risks + '\nnot-a-risk'
    expect(timed({ ...baseFor('runtime-risks'), 'runtime-risks': bad }, 'runtime-risks')).toBe(
      'refused'
    )
    const tags = Array.from({ length: 100_000 }, (_, i) => `k${i}=v`).join('\n')
    expect(timed({ ...baseFor('tags'), tags }, 'tags')).toBe('refused')
  })

  test('100k deployments, inline and from a file; a file over the size limit is not read', () => {
    const items = Array.from({ length: 100_000 }, (_, i) => ({
      name: 'n',
      digest: DIGEST,
      deployment_name: `d${i}`
    }))
    const json = JSON.stringify(items)
    const base = baseFor('deployments')
    expect(timed({ ...base, deployments: json }, 'deployments')).toBe('refused')
    expect(
      timed(
        { ...base, deployments: '', 'deployments-file': FILE_PATH },
        'deployments-file',
        fileHolding(json)
      )
    ).toBe('refused')
    let reads = 0
    const huge: FileReader = { size: () => 65 * MB, read: () => String(++reads) }
    expect(
      timed({ ...base, deployments: '', 'deployments-file': FILE_PATH }, 'deployments-file', huge)
    ).toBe('refused')
    expect(reads).toBe(0)
  })

  test('1 MB of every text input', () => {
    const big = 'x'.repeat(MB)
    for (const input of INPUT_NAMES) {
      const raw: RawInputs = { ...baseFor(input), [input]: big }
      if (input === 'deployments-file') delete raw.deployments
      timed(raw, input)
    }
    expect(propertyRuns).toBeGreaterThan(INPUT_NAMES.length)
  })

  test('the token check holds for a 1 MB token and one with control characters', () => {
    expect(timed({ ...baseFor('token'), token: TOKEN + 'x'.repeat(MB) }, 'token')).toBe('ok')
    expect(timed({ ...baseFor('token'), token: `${TOKEN}\u0000x y` }, 'token')).toBe('refused')
  })
})

// ---------------------------------------------------------------------------------------------
// Known bug (src/cluster/items.ts, not ours to fix): a cluster item's `tags` with a `__proto__`
// key. zod builds the record by assignment, so that key escapes validation; the copy made
// afterwards then sends it as it came. A number (or object) goes to the service as a tag value,
// and the key is not counted against MAX_TAGS. Proposed fix: validate the own entries of the raw
// tags (Object.entries, typeof value === 'string', count <= MAX_TAGS) before copying them, or
// refuse a `__proto__` key. `test.failing` passes while the bug is there; remove `.failing`
// when it is fixed.
test('cluster item tags with a `__proto__` key are checked like any other tag', () => {
  const item = (tags: string) =>
    `[{"name":"n","digest":"${DIGEST}","deployment_name":"web","tags":${tags}}]`
  const base = wholeCluster(emulator.url, 'sync')
  for (const tags of [
    '{"__proto__":0,"a":"b"}',
    '{"__proto__":{"x":"y"}}',
    '{"a":"1","b":"2","c":"3","d":"4","e":"5","__proto__":"6"}'
  ]) {
    expect(() => parseInputs({ ...base, deployments: item(tags) }, {}, noFiles)).toThrow(InputError)
  }
})

test('README states the number of values this run parsed', () => {
  // Last in the file: every test above has counted its values (the whole file must run).
  expect(
    statedFigures(
      /Property tests\*\* \(fast-check\) over every input: \*\*(\d+) values\*\* parsed in the last run/
    )
  ).toEqual([propertyRuns])
})
