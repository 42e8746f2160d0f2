import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import {
  INPUT_DEFAULTS,
  InputError,
  parseInputs,
  type InputName,
  type RawInputs
} from '../../src/step/parse-inputs.js'

const root = new URL('../../', import.meta.url)
const declared = (
  parse(readFileSync(new URL('action.yml', root), 'utf8')) as {
    inputs: Record<string, { default?: string }>
  }
).inputs
const readme = readFileSync(new URL('README.md', root), 'utf8')

const DIGEST = 'sha256:' + 'c'.repeat(64)
/** What the runner's context gives the `${{ github.* }}` defaults in these tests. */
const runContext: Record<string, string> = {
  'github.token': 'ghs_run-token',
  'github.api_url': 'https://api.github.com',
  'github.repository': 'acme/web'
}
const env = { GITHUB_TOKEN: '', GITHUB_REPOSITORY: 'acme/web' }

/** Every declared input, with its default where the workflow gives none: what the runner sends. */
function asTheRunnerFillsThem(given: RawInputs): RawInputs {
  const raw: RawInputs = {}
  for (const [name, spec] of Object.entries(declared)) {
    const fallback = (spec.default ?? '').replace(
      /\$\{\{\s*([\w.]+)\s*\}\}/g,
      (_, path: string) => runContext[path] ?? ''
    )
    raw[name as InputName] = given[name as InputName] ?? fallback
  }
  return raw
}

function outcome(raw: RawInputs): unknown {
  try {
    return parseInputs(raw, env)
  } catch (error) {
    if (error instanceof InputError) return error.problems
    throw error
  }
}

test('the code knows every literal default that action.yml declares, and only those', () => {
  const literal = Object.fromEntries(
    Object.entries(declared)
      .filter(([, spec]) => spec.default !== undefined && !spec.default.includes('${{'))
      .map(([name, spec]) => [name, spec.default])
  )
  expect(INPUT_DEFAULTS).toEqual(literal)
  const expressions = Object.entries(declared)
    .filter(([, spec]) => spec.default?.includes('${{'))
    .map(([name, spec]) => `${name}: ${spec.default}`)
  expect(expressions.sort()).toEqual([
    'api-url: ${{ github.api_url }}',
    'repository: ${{ github.repository }}',
    'token: ${{ github.token }}'
  ])
})

const jobs: Record<string, RawInputs> = {
  'single deployment record': { digest: DIGEST, name: 'ghcr.io/acme/web', environment: 'prod' },
  'storage record': { digest: DIGEST, name: 'ghcr.io/acme/web', 'registry-url': 'https://ghcr.io' },
  'both records': {
    digest: `ghcr.io/acme/web@${DIGEST}`,
    environment: 'prod',
    cluster: 'prod-eu-1',
    'registry-url': 'https://ghcr.io'
  },
  'whole cluster': {
    deployments: JSON.stringify([
      { name: 'ghcr.io/acme/web', digest: DIGEST, deployment_name: 'web' }
    ]),
    cluster: 'prod-eu-1',
    environment: 'prod'
  },
  'labels only': { labels: 'deployed:staging' },
  'labels and a record': { digest: DIGEST, name: 'web', environment: 'prod', labels: 'x' }
}

test.each(Object.entries(jobs))(
  '%s: every action.yml default filled in reads exactly like no input at all',
  (_job, given) => {
    const filled = outcome(asTheRunnerFillsThem(given))
    expect(filled).not.toBeInstanceOf(Array) // accepted, not a list of problems
    expect(filled).toEqual(outcome({ ...given, token: 'ghs_run-token', 'api-url': '' }))
  }
)

test.each([
  ['status', 'decommissioned', 'belongs to a deployment record'],
  ['storage-status', 'eol', 'belongs to a storage record'],
  ['cluster-mode', 'job', 'belongs to a whole cluster'],
  ['partial-success', 'true', 'belongs to a whole cluster'],
  ['job-timeout', '600', 'belongs to a whole cluster']
])('a value the user chose, %s: %s, still says where it belongs', (input, value, message) => {
  const raw = asTheRunnerFillsThem({ labels: 'deployed:staging', [input]: value })
  expect(outcome(raw)).toEqual([{ input, message: expect.stringContaining(message) }])
})

test('a default typed in another case is still the default', () => {
  const raw = asTheRunnerFillsThem({ labels: 'x', 'partial-success': 'False', status: 'Deployed' })
  expect(outcome(raw)).not.toBeInstanceOf(Array)
})

test("README's input tables show each action.yml default", () => {
  const rows = new Map<string, string>()
  for (const line of readme.split('\n')) {
    const cells = /^\|\s*`([a-z-]+)`\s*\|([^|]*)\|/.exec(line)
    if (cells && cells[1] && cells[1] in declared && !rows.has(cells[1]))
      rows.set(cells[1], (cells[2] ?? '').trim())
  }
  expect([...rows.keys()].sort()).toEqual(Object.keys(declared).sort())
  for (const [name, spec] of Object.entries(declared)) {
    const shown = rows.get(name) ?? ''
    if (spec.default !== undefined)
      expect({ name, shown }).toEqual({
        name,
        shown: expect.stringMatching(new RegExp(`^\`${escape(spec.default)}\``))
      })
    else expect({ name, literal: /^`[^`]*`$/.test(shown) }).toEqual({ name, literal: false })
  }
})

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
