/**
 * Inputs whose value is an expression nothing evaluated, as `@github/local-action` hands over
 * action.yml's defaults (`${{ github.token }}`) and as a workflow copied into another tool does:
 * each is read as unset, so it falls back as documented, with a debug line; no message calls an
 * expression white space. Through the bundled action, started as the runner starts it.
 */
import { parse } from 'yaml'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { projectRoot, runAction } from '../../scripts/run-action.js'
import { DIGEST, TOKEN, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator()
})
afterAll(async () => emulator.close())
beforeEach(() => emulator.reset())

/** Every default of action.yml as written, expressions and all: what local-action passes. */
const writtenDefaults = Object.fromEntries(
  Object.entries(
    (
      parse(readFileSync(join(projectRoot(), 'action.yml'), 'utf8')) as {
        inputs: Record<string, { default?: string }>
      }
    ).inputs
  )
    .filter(([, spec]) => spec.default !== undefined)
    .map(([name, spec]) => [name, String(spec.default)])
)

test('token, api-url and repository left as `${{ github.* }}` fall back on GITHUB_TOKEN, GITHUB_API_URL and GITHUB_REPOSITORY', async () => {
  expect(writtenDefaults).toMatchObject({
    token: '${{ github.token }}',
    'api-url': '${{ github.api_url }}',
    repository: '${{ github.repository }}'
  })
  const run = await runAction(
    {
      ...writtenDefaults,
      digest: `ghcr.io/acme/web@${DIGEST}`,
      environment: 'production',
      // an expression of the user's own, left unevaluated: read as unset, as if not given
      cluster: '${{ vars.CLUSTER }}'
    },
    { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: emulator.url, GITHUB_REPOSITORY: 'acme/web' }
  )
  expect(run.code).toBe(0)
  expect(writesOf(emulator.requests).map(r => `${r.method} ${r.path} ${r.status}`)).toEqual([
    'POST /orgs/acme/artifacts/metadata/deployment-record 200'
  ])
  expect(emulator.requests[0]?.headers['authorization']).toBe(`Bearer ${TOKEN}`)
  const [record] = JSON.parse(run.outputs['deployment-records'] ?? '[]') as Array<
    Record<string, unknown>
  >
  expect(record).toMatchObject({ logical_environment: 'production', deployment_name: 'web' })
  // sent without a cluster, as when `cluster` is not given
  expect(emulator.requests[0]?.body).not.toHaveProperty('cluster')
  expect(emulator.requests[0]?.body).toMatchObject({ github_repository: 'web' })
  for (const [name, value] of [
    ['token', '${{ github.token }}'],
    ['api-url', '${{ github.api_url }}'],
    ['repository', '${{ github.repository }}'],
    ['cluster', '${{ vars.CLUSTER }}']
  ])
    expect(run.stdout).toContain(
      `::debug::Input ${name} is \`${value}\`, an expression nothing evaluated: read as unset`
    )
})

test('with nothing to fall back on, an unevaluated token is said to be empty, never white space', async () => {
  const run = await runAction(
    {
      ...writtenDefaults,
      digest: `ghcr.io/acme/web@${DIGEST}`,
      environment: 'production'
    },
    { GITHUB_TOKEN: '', GITHUB_API_URL: emulator.url, GITHUB_REPOSITORY: 'acme/web' }
  )
  expect(run.code).toBe(1)
  expect(emulator.requests).toEqual([])
  expect(run.stdout).toMatch(
    /::error::The inputs have a problem; nothing was sent:%0A {2}- token: is empty/
  )
  expect(run.stdout + run.stderr).not.toMatch(/white space/)
})
