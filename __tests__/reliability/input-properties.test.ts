// Over 300 lines: the README's count of parsed values is this file's whole run, and its bundled-action check reuses the values refused here.
/**
 * Bad input, generated: every input parser gets thousands of hostile values. The result is
 * either a valid typed value or an InputError whose problems name the input; never another
 * exception, never a request, never a polluted prototype. The generators and what a valid
 * value looks like are in __fixtures__/input-generators.ts and __fixtures__/input-validity.ts.
 */
import fc from 'fast-check'
import { DIGEST, TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { statedFigures } from '../../__fixtures__/readme.js'
import { CLUSTER_ITEMS, singleDeployment, wholeCluster } from '../../__fixtures__/reliability.js'
import type { Emulator } from '../../emulator/index.js'
import { runAction } from '../../scripts/run-action.js'
import { LABEL_INPUT_NAMES } from '../../src/inputs/names.js'
import { RUNTIME_RISKS } from '../../src/shared/limits.js'
import {
  INPUT_NAMES,
  InputError,
  parseInputs,
  type FileReader,
  type InputName,
  type Inputs,
  type RawInputs
} from '../../src/step/parse-inputs.js'
import {
  TRICKY,
  jsonObjectText,
  hostile,
  deploymentsText
} from '../../__fixtures__/input-generators.js'
import {
  CLUSTER_INPUTS,
  RELATED,
  FILE_PATH,
  noFiles,
  fileHolding,
  expectValid
} from '../../__fixtures__/input-validity.js'

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
/** Read from the file system, which the parser here fakes: not tried in the bundled action. */
const FILE_INPUTS = new Set<InputName>(['deployments-file', 'kubernetes-file'])
const asStrings = (raw: RawInputs): Record<string, string> =>
  Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >

function baseFor(input: InputName): RawInputs {
  return CLUSTER_INPUTS.has(input)
    ? wholeCluster(emulator.url, 'sync')
    : singleDeployment(emulator.url, { tags: 'team=web', 'runtime-risks': 'internet-exposed' })
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
  paths: 'web/**, !web/**/*.md',
  'label-linked-issues': 'true',
  'dry-run': 'true',
  'max-retries': '5',
  'job-summary': 'false',
  'time-budget': '90'
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
