/**
 * Issue 38: the state file comes from a cache that other runs can write (docs/state-file.md,
 * "Who can write the state file"). A crafted file, valid in every field, that lists deployments
 * of another repository is not obeyed: their records are never decommissioned (warned, kept in
 * the file), and they do not count toward the mass-decommission guard, so padding a file with
 * them cannot make a mass decommission of this repository's records look like half of it.
 * Through the bundled action, as the runner starts it.
 */
import { readFileSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { parse } from 'yaml'
import {
  decommissionedOutput,
  digest,
  emulator,
  errorOf,
  expectedState,
  sentIn,
  STATE,
  stateStep,
  useStateWorkspace,
  workspace,
  writeDeployments
} from '../../__fixtures__/cluster-state.js'
import { projectRoot } from '../../scripts/run-action.js'

useStateWorkspace('untrusted-state', ['acme/web', 'acme/secrets'])

/** An entry as the step writes it for workload `w` of repository `repo` (acme's). */
const entry = (w: string, repo = 'web') => ({
  deployment_name: `apps-${w}`,
  name: `ghcr.io/acme/${w}`,
  digest: digest(w),
  github_repository: repo
})
const item = (w: string) => {
  const { github_repository: _, ...rest } = entry(w)
  return rest
}

async function writeState(entries: object[]): Promise<void> {
  const path = join(workspace, STATE)
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, JSON.stringify(expectedState(entries)))
}
const stateOf = async () =>
  JSON.parse(await readFile(join(workspace, STATE), 'utf8')) as { deployments: unknown[] }

const step = (inputs: Record<string, string> = {}) =>
  stateStep({ 'deployments-file': 'deployments.json', 'cluster-mode': 'sync', ...inputs })

test('entries of another repository are kept and warned, never decommissioned, and do not pad the mass guard', async () => {
  // The crafted file: this repository's two running deployments, and two of `secrets` that the
  // snapshot lacks: exactly half, so the guard lets it pass.
  await writeDeployments([item('alpha'), item('beta')])
  await writeState([
    entry('alpha'),
    entry('beta'),
    entry('ledger', 'secrets'),
    entry('vault', 'secrets')
  ])

  const run = await step()

  expect(run.code).toBe(0)
  expect(sentIn()).toEqual([entry('alpha'), entry('beta')])
  expect(decommissionedOutput(run)).toEqual([])
  expect(run.stdout).toContain(
    `::warning::\`${STATE}\` lists deployments of \`secrets\`, a repository this run does not ` +
      'record for, that the snapshot lacks: apps-ledger, apps-vault. Kept, not decommissioned'
  )
  expect((await stateOf()).deployments).toEqual([
    entry('alpha'),
    entry('beta'),
    entry('ledger', 'secrets'),
    entry('vault', 'secrets')
  ])

  // This workflow did record them after all: one listed once as decommissioned names `secrets`
  // as a repository the run records for, so both are decommissioned and leave the file.
  await writeDeployments([
    item('alpha'),
    item('beta'),
    { ...entry('ledger', 'secrets'), status: 'decommissioned' }
  ])
  emulator.requests.length = 0
  const listed = await step()
  expect(listed.code).toBe(0)
  expect(sentIn()).toEqual([
    entry('alpha'),
    entry('beta'),
    { ...entry('ledger', 'secrets'), status: 'decommissioned' },
    { ...entry('vault', 'secrets'), status: 'decommissioned' }
  ])
  expect((await stateOf()).deployments).toEqual([entry('alpha'), entry('beta')])

  // Padding: three of this repository's four deployments gone, beside eight entries of
  // `secrets`. Counted with them (3 of 12) it would pass; the guard counts 3 of 4.
  const padding = Array.from({ length: 8 }, (_, i) => entry(`pad${i}`, 'secrets'))
  await writeDeployments([item('alpha')])
  await writeState([entry('alpha'), entry('beta'), entry('delta'), entry('gamma'), ...padding])
  emulator.requests.length = 0
  const padded = await step()
  expect(padded.code).not.toBe(0)
  expect(errorOf(padded)).toContain(
    `deployments-file: lacks 3 of the 4 deployments that \`${STATE}\` lists, so 3 would be decommissioned`
  )
  expect(emulator.requests).toEqual([])
})

test('the example state workflow runs only on the default branch and runs no pull request code', () => {
  // docs/state-file.md "Who can write the state file": the cache it restores is written by every
  // run of the default branch, so the example starts on nothing a pull request triggers there.
  const text = readFileSync(join(projectRoot(), 'examples', 'record-cluster-state.yml'), 'utf8')
  const workflow = parse(text) as {
    on: Record<string, unknown>
    jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, string> }> }>
  }
  expect(Object.keys(workflow.on).sort()).toEqual(['schedule', 'workflow_dispatch'])
  for (const job of Object.values(workflow.jobs))
    for (const step of job.steps) {
      // no checkout of anything but the default branch's own commit
      if (step.uses?.startsWith('actions/checkout@')) expect(step.with?.['ref']).toBeUndefined()
    }
  expect(text).not.toMatch(/github\.event\.pull_request|pull_request_target|workflow_run/)
})
