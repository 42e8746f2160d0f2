/**
 * What the `state-file` tests share: the state file's path, a digest spelled from a workload's
 * name (so a record shows whose it is), and one emulator per test file with a fresh workspace per
 * test. `emulator` and `workspace` are live bindings: read them inside tests, after the hooks ran.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TOKEN, withEmulator, writesOf } from './emulator.js'
import type { Emulator } from '../emulator/index.js'
import { kubectlList } from '../scripts/kubectl-list.js'
import { runAction, type ActionRun } from '../scripts/run-action.js'

export const STATE = '.record-deployment/prod-eu-1.json'

/** `sha256:` and the hex of `word`'s characters, padded: `digest('web')` names web's image. */
export const digest = (word: string) =>
  'sha256:' +
  [...word]
    .map(ch => ch.charCodeAt(0).toString(16))
    .join('')
    .padEnd(64, '0')

export let emulator: Emulator
export let workspace: string

/** Registers the hooks: one emulator for the file, a new workspace (named `prefix`) per test. */
export function useStateWorkspace(prefix: string, repos: string[] = ['acme/web']): void {
  beforeAll(async () => {
    emulator = await withEmulator({ jobStepMs: 5, repos })
  })
  afterAll(async () => emulator.close())
  beforeEach(async () => {
    emulator.reset()
    workspace = await mkdtemp(join(tmpdir(), `${prefix}-`))
  })
  afterEach(async () => rm(workspace, { recursive: true, force: true }))
}

/**
 * The step as the runner starts it in the workspace, against the file's emulator with its token:
 * cluster `prod-eu-1`, environment `production`, `state-file` STATE, then `inputs` (the snapshot's
 * file and whatever else the test sets), with `env` besides.
 */
export const stateStep = (
  inputs: Record<string, string>,
  env: Record<string, string> = {}
): Promise<ActionRun> =>
  runAction(
    {
      token: TOKEN,
      'api-url': emulator.url,
      cluster: 'prod-eu-1',
      environment: 'production',
      'state-file': STATE,
      ...inputs
    },
    env,
    { context: { repository: 'acme/web', workspace } }
  )

/** Writes `objects` to the workspace as `cluster.json`, a `kubectl get -o json` list. */
export async function writeCluster(objects: Record<string, unknown>[]): Promise<void> {
  await writeFile(join(workspace, 'cluster.json'), JSON.stringify(kubectlList(objects)))
}

/** Writes `entries` to the workspace as `deployments.json`. */
export async function writeDeployments(entries: object[]): Promise<void> {
  await writeFile(join(workspace, 'deployments.json'), JSON.stringify(entries))
}

/** The state file as the step writes it for prod-eu-1 / production, listing `entries`. */
export const expectedState = (entries: object[], version = 3) => ({
  format: 'record-deployment/cluster-state',
  version,
  cluster: 'prod-eu-1',
  logical_environment: 'production',
  deployments: entries
})

/** The step's first `::error` line, '' when none. */
export const errorOf = (run: ActionRun) =>
  run.stdout.split('\n').find(l => l.startsWith('::error')) ?? ''

/** The step's `decommissioned` output, parsed. */
export const decommissionedOutput = (run: ActionRun) =>
  JSON.parse(run.outputs['decommissioned'] ?? 'null') as unknown

export const byName = <T extends { deployment_name: string }>(list: T[]) =>
  [...list].sort((a, b) => a.deployment_name.localeCompare(b.deployment_name))

/** The deployments of the run's write request `index`, by name. */
export const sentIn = (index = 0) =>
  byName(
    (
      writesOf(emulator.requests)[index]?.body as {
        deployments: Array<{ deployment_name: string }>
      }
    ).deployments
  )

/** The deployment names each write of this run sent as decommissioned. */
export const decommissionsSent = () =>
  writesOf(emulator.requests).flatMap(w =>
    (w.body as { deployments: Array<{ deployment_name: string; status?: string }> }).deployments
      .filter(d => d.status === 'decommissioned')
      .map(d => d.deployment_name)
  )
