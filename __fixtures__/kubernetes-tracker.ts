/**
 * What the kubernetes-tracker*.test.ts files share: one emulator and one workspace per file, `go`
 * (writes a kubectl list into the workspace and runs the bundled action on it), what was sent and
 * said, and pods built by hand. `useTrackerEmulator()` registers the hooks; call it once at the
 * top of a test file. `emulator` is a live binding: it is the file's emulator once beforeAll ran.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Emulator } from '../emulator/index.js'
import { digestOf, pod, type ContainerSpec } from '../scripts/kubectl-list.js'
import { runAction } from '../scripts/run-action.js'
import { TOKEN, withEmulator, writesOf } from './emulator.js'

export let emulator: Emulator
let workspace: string

/** Starts the emulator and a workspace before the file's tests, resets it before each test. */
export function useTrackerEmulator(): void {
  beforeAll(async () => {
    emulator = await withEmulator({ jobStepMs: 5 })
    workspace = await mkdtemp(join(tmpdir(), 'kubernetes-tracker-'))
  })
  afterAll(async () => {
    await emulator.close()
    await rm(workspace, { recursive: true, force: true })
  })
  beforeEach(() => emulator.reset())
}

let files = 0
/** Writes the list (or raw bytes) into the workspace and runs the action on it. */
export async function go(list: unknown, inputs: Record<string, string> = {}) {
  const file = `cluster-${files++}.json`
  await writeFile(
    join(workspace, file),
    Buffer.isBuffer(list) ? list : JSON.stringify(list, null, 4)
  )
  return runAction(
    {
      token: TOKEN,
      'api-url': emulator.url,
      cluster: 'prod-eu-1',
      environment: 'production',
      'kubernetes-file': file,
      ...inputs
    },
    {},
    { context: { repository: 'acme/web', workspace } }
  )
}
export const warningsOf = (stdout: string) =>
  stdout
    .split('\n')
    .filter(l => l.startsWith('::warning'))
    .map(l => l.replace(/%0A/g, '\n').replace(/%25/g, '%'))
export const errorOf = (stdout: string) =>
  (stdout.split('\n').find(l => l.startsWith('::error')) ?? '').replace(/%0A/g, '\n')
type Sent = Record<string, unknown>
export const sent = (): Sent[] =>
  (writesOf(emulator.requests)[0]?.body as { deployments?: Sent[] })?.deployments ?? []
export const sentByName = () =>
  Object.fromEntries(sent().map(d => [String(d['deployment_name']), d]))

export const container = (name: string, image: string, label = image): ContainerSpec => ({
  name,
  image,
  imageID: `${image.replace(/:[^/:]*$/, '')}@${digestOf(label)}`
})
export const running = (
  namespace: string,
  name: string,
  owner: { kind: string; name: string } | undefined,
  created: string,
  containers: ContainerSpec[],
  extra: { phase?: string; annotations?: Record<string, string> } = {}
) =>
  pod({
    namespace,
    name,
    ...(owner ? { owner } : {}),
    phase: extra.phase ?? 'Running',
    created,
    containers,
    ...(extra.annotations ? { annotations: extra.annotations } : {})
  })
