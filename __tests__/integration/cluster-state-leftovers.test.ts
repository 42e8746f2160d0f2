/**
 * Issue 29's state-file leftovers, through the bundled action against the emulator: a
 * decommission the service rejects for good is given up after MAX_DECOMMISSION_REJECTIONS runs
 * with a warning naming it (the count is kept in the state file); a state file in a directory it
 * cannot be written in is refused before any request.
 */
import { existsSync } from 'node:fs'
import { readFile, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import {
  decommissionsSent,
  digest,
  emulator,
  errorOf,
  STATE,
  stateStep,
  useStateWorkspace,
  workspace,
  writeDeployments
} from '../../__fixtures__/cluster-state.js'
import { MAX_DECOMMISSION_REJECTIONS } from '../../src/cluster/state-format.js'
import { type ActionRun } from '../../scripts/run-action.js'

useStateWorkspace('cluster-state-leftovers', ['acme/web', 'acme/api'])

const entry = (w: string, repository = 'web') => ({
  deployment_name: `apps-${w}`,
  name: `ghcr.io/acme/${w}`,
  digest: digest(w),
  github_repository: repository
})

const step = (inputs: Record<string, string> = {}) =>
  stateStep({
    'deployments-file': 'deployments.json',
    'cluster-mode': 'sync',
    'partial-success': 'true',
    ...inputs
  })
const warningsOf = (run: ActionRun) => run.stdout.split('\n').filter(l => l.startsWith('::warning'))
const stateOf = async () =>
  JSON.parse(await readFile(join(workspace, STATE), 'utf8')) as {
    deployments: Array<{ deployment_name: string; decommission_rejections?: number }>
  }

test('a decommission the service rejects on every run is given up after 3 runs, with a warning naming it, the count kept in the state file', async () => {
  expect(MAX_DECOMMISSION_REJECTIONS).toBe(3)
  const [web, api] = [entry('alpha'), entry('gamma', 'api')]
  await writeDeployments([web, api])
  expect((await step()).code).toBe(0)
  // acme/api goes away for good: gamma's decommission is rejected (unauthorized) every run.
  // epsilon (new, of acme/api, so rejected too and never listed) keeps acme/api among the
  // repositories the run records for: an entry of any other is never decommissioned (issue 38).
  emulator.state.repos.splice(emulator.state.repos.indexOf('acme/api'), 1)
  await writeDeployments([web, entry('epsilon', 'api')])
  for (let run = 1; run <= 3; run++) {
    emulator.requests.length = 0
    const r = await step()
    expect({ code: r.code, error: errorOf(r) }).toEqual({ code: 0, error: '' })
    expect(decommissionsSent()).toEqual(['apps-gamma'])
    const gamma = (await stateOf()).deployments.find(d => d.deployment_name === 'apps-gamma')
    const givenUp = warningsOf(r).filter(w => w.includes('Gave up decommissioning'))
    if (run < 3) {
      expect(gamma).toEqual({ ...api, decommission_rejections: run })
      expect(r.stdout).toContain(
        `The decommission of apps-gamma was rejected (${run} of at most 3 runs in a row)`
      )
      expect(givenUp).toEqual([])
    } else {
      expect(gamma).toBeUndefined()
      expect(givenUp).toHaveLength(1)
      expect(givenUp[0]).toContain(
        'Gave up decommissioning apps-gamma (ghcr.io/acme/gamma@sha256:67616d6d6100…): the service rejected its decommission on 3 runs in a row'
      )
    }
  }
  emulator.requests.length = 0
  const after = await step()
  expect(after.code).toBe(0)
  expect(decommissionsSent()).toEqual([])
  expect((await stateOf()).deployments.map(d => d.deployment_name)).toEqual(['apps-alpha'])
}, 60_000)

test('a rejected decommission that the service takes on a later run leaves the state, and its count with it', async () => {
  const [web, api] = [entry('alpha'), entry('gamma', 'api')]
  await writeDeployments([web, api])
  expect((await step()).code).toBe(0)
  emulator.state.repos.splice(emulator.state.repos.indexOf('acme/api'), 1)
  // epsilon keeps acme/api among the repositories the run records for (see above).
  const epsilon = entry('epsilon', 'api')
  await writeDeployments([web, epsilon])
  expect((await step()).code).toBe(0)
  expect((await stateOf()).deployments).toEqual([web, { ...api, decommission_rejections: 1 }])
  emulator.state.repos.push('acme/api')
  emulator.requests.length = 0
  const taken = await step()
  expect(taken.code).toBe(0)
  expect(decommissionsSent()).toEqual(['apps-gamma'])
  expect(JSON.parse(taken.outputs['decommissioned'] ?? '[]')).toEqual([api])
  expect((await stateOf()).deployments).toEqual([web, epsilon])
}, 60_000)

// /proc takes no files, from root either: a directory the step cannot write in on any Linux
// runner, where reading the state file finds nothing (the first run) and the old step went on.
// Off Linux (a contributor's macOS) there is no /proc: the test has nothing to try there.
const linux = existsSync('/proc/self')
test('a state file in a directory the step cannot write in is refused before any request', async () => {
  if (!linux) return
  await writeDeployments([entry('alpha')])
  const run = await step({ 'state-file': '/proc/record-deployment/state.json' })
  expect(run.code).not.toBe(0)
  expect(errorOf(run)).toMatch(
    /state-file: `\/proc\/record-deployment\/state.json` cannot be written: the directory `\/proc` is not writable \(E[A-Z]+\)/
  )
  expect(emulator.requests).toEqual([])
  expect(run.stderr).toBe('')
})

test('a state file under a symbolic link to nothing is refused before any request', async () => {
  await writeDeployments([entry('alpha')])
  await symlink(join(workspace, 'nowhere'), join(workspace, 'state-link'))
  const run = await step({ 'state-file': 'state-link/state.json' })
  expect(run.code).not.toBe(0)
  expect(errorOf(run)).toContain(
    `state-file: \`state-link/state.json\` cannot be written: \`${join(workspace, 'state-link')}\` is a symbolic link to nothing`
  )
  expect(emulator.requests).toEqual([])
})
