// Over 300 lines: the new-user edge cases of one README section, sharing one staged workspace helper.
/**
 * README "Workloads that vanished are decommissioned", tried as a new user would: paths, files
 * written by other settings or another mode, odd encodings, the half-way line of the guard, renamed
 * and changed workloads, a rejected set, limits counted with the decommissions. The bundled action
 * against the emulator; what each run must send and keep is written out by hand.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { existsSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
import { TOKEN, writesOf } from '../../__fixtures__/emulator.js'
import { kubectlList, pod, workload } from '../../scripts/kubectl-list.js'
import { runAction } from '../../scripts/run-action.js'

useStateWorkspace('cluster-state-edges')
let home: string
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'cluster-state-home-'))
})
afterEach(async () => rm(home, { recursive: true, force: true }))

/** What the state lists for deployment `name` of workload `w` (deployments-file). */
const entry = (w: string, over: Record<string, string> = {}) => ({
  deployment_name: `apps-${w}`,
  name: `ghcr.io/acme/${w}`,
  digest: digest(w),
  version: '1.0.0',
  github_repository: 'web',
  ...over
})
type Entry = ReturnType<typeof entry>

const step = (inputs: Record<string, string> = {}, env: Record<string, string> = {}) =>
  stateStep({ 'deployments-file': 'deployments.json', ...inputs }, { HOME: home, ...env })

const stateText = (path = join(workspace, STATE)) => readFile(path, 'utf8')
const stateOf = async (path?: string) =>
  JSON.parse(await stateText(path)) as { deployments: unknown[] }
const gone = (e: Entry) => ({ ...e, status: 'decommissioned' })

test('`~/` in state-file is the home directory, as actions/cache reads the same path', async () => {
  const [a, b] = [entry('alpha'), entry('beta')]
  await writeDeployments([a, b])
  const inHome = '~/.record-deployment/prod-eu-1.json'
  const first = await step({ 'state-file': inHome })
  expect({ code: first.code, error: errorOf(first) }).toEqual({ code: 0, error: '' })
  expect(await stateOf(join(home, '.record-deployment/prod-eu-1.json'))).toEqual(
    expectedState([a, b])
  )
  expect(existsSync(join(workspace, '~'))).toBe(false)

  await writeDeployments([a])
  emulator.requests.length = 0
  const second = await step({ 'state-file': inHome })
  expect(second.code).toBe(0)
  expect(sentIn()).toEqual([a, gone(b)])
  expect(decommissionedOutput(second)).toEqual([b])
})

test('an absolute state-file in a directory that does not exist yet: the first run creates it, the next reads it', async () => {
  const [a, b] = [entry('alpha'), entry('beta')]
  await writeDeployments([a, b])
  const abs = join(home, 'not', 'yet', 'state.json')
  expect((await step({ 'state-file': abs })).code).toBe(0)
  expect(await stateOf(abs)).toEqual(expectedState([a, b]))
  await writeDeployments([a])
  emulator.requests.length = 0
  expect((await step({ 'state-file': abs })).code).toBe(0)
  expect(sentIn()).toEqual([a, gone(b)])
})

test('an empty deployments file decommissions what the state lists once allow-mass-decommission says so', async () => {
  const [a, b] = [entry('alpha'), entry('beta')]
  await writeDeployments([])
  const nothing = await step()
  expect(errorOf(nothing)).toContain(
    'deployments-file: is an empty array: there is nothing to record'
  )

  await writeDeployments([a, b])
  expect((await step()).code).toBe(0)
  await writeDeployments([])
  emulator.requests.length = 0
  const refused = await step()
  expect(refused.code).not.toBe(0)
  expect(errorOf(refused)).toContain('deployments-file: lacks 2 of the 2 deployments')
  expect(errorOf(refused)).not.toContain('nothing to record')
  expect(emulator.requests).toEqual([])

  const wiped = await step({ 'allow-mass-decommission': 'true' })
  expect({ code: wiped.code, error: errorOf(wiped) }).toEqual({ code: 0, error: '' })
  expect(sentIn()).toEqual([gone(a), gone(b)])
  expect(decommissionedOutput(wiped)).toEqual([a, b])
  expect(await stateOf()).toEqual(expectedState([]))

  const after = await step()
  expect(errorOf(after)).toContain(
    'deployments-file: is an empty array: there is nothing to record'
  )
})

test('the request limits count the decommissions from the state file, and the message says so', async () => {
  const many = Array.from({ length: 1000 }, (_, i) => entry(`w${i}`))
  await writeDeployments([...many, entry('extra')])
  expect((await step({ 'cluster-mode': 'job' })).code).toBe(0)
  await writeDeployments(many)
  emulator.requests.length = 0
  const run = await step({ 'cluster-mode': 'sync' })
  expect(run.code).not.toBe(0)
  expect(errorOf(run)).toContain(
    'deployments-file: has 1001 deployments (with the 1 decommissions from `state-file`); `cluster-mode: sync` sends at most 1000'
  )
  expect(emulator.requests).toEqual([])
  // auto sends the same as a job
  const auto = await step()
  expect(auto.code).toBe(0)
  expect(decommissionedOutput(auto)).toEqual([entry('extra')])
}, 60_000)

test('a state file saved with a byte-order mark and CRLF line ends is read as written', async () => {
  const [a, b] = [entry('alpha'), entry('beta')]
  await writeDeployments([a, b])
  expect((await step()).code).toBe(0)
  const text = await stateText()
  await writeFile(join(workspace, STATE), '\uFEFF' + text.replace(/\n/g, '\r\n'))
  await writeDeployments([a])
  emulator.requests.length = 0
  const run = await step()
  expect({ code: run.code, error: errorOf(run) }).toEqual({ code: 0, error: '' })
  expect(sentIn()).toEqual([a, gone(b)])
})

test('the half-way line: 1 of 2 passes, the only one of 1 and 2 of 3 need allow-mass-decommission', async () => {
  const [a, b, c] = [entry('alpha'), entry('beta'), entry('gamma')]
  await writeDeployments([a, b])
  expect((await step()).code).toBe(0)
  await writeDeployments([b])
  const half = await step()
  expect({ code: half.code, error: errorOf(half) }).toEqual({ code: 0, error: '' })
  expect(decommissionedOutput(half)).toEqual([a])

  await writeDeployments([c])
  const only = await step()
  expect(errorOf(only)).toContain('lacks 1 of the 1 deployments')
  expect(await stateOf()).toEqual(expectedState([b]))

  await writeDeployments([a, b, c])
  expect((await step({ 'allow-mass-decommission': 'true' })).code).toBe(0)
  await writeDeployments([c])
  emulator.requests.length = 0
  const over = await step()
  expect(errorOf(over)).toContain('lacks 2 of the 3 deployments')
  expect(emulator.requests).toEqual([])
})

test('a renamed deployment, and one whose digest changed and then vanished', async () => {
  const [a, b] = [entry('alpha'), entry('beta')]
  await writeDeployments([a, b])
  expect((await step()).code).toBe(0)
  const b2 = { ...b, digest: digest('beta-2'), version: '2.0.0' }
  await writeDeployments([a, b2])
  expect((await step()).code).toBe(0)
  expect(await stateOf()).toEqual(expectedState([a, b2]))

  // alpha renamed (same image), beta gone: the decommission carries the digest the service holds
  const renamed = entry('alpha', { deployment_name: 'apps-alpha-v2' })
  await writeDeployments([renamed])
  emulator.requests.length = 0
  const run = await step({ 'allow-mass-decommission': 'true' })
  expect(run.code).toBe(0)
  expect(sentIn()).toEqual([gone(a), renamed, gone(b2)])
  expect(decommissionedOutput(run)).toEqual([a, b2])
  expect(await stateOf()).toEqual(expectedState([renamed]))
})

test('a set run, a job run and a set run again share one state file', async () => {
  const [a, b, c] = [entry('alpha'), entry('beta'), entry('gamma')]
  await writeDeployments([a, b, c])
  expect((await step({ 'cluster-mode': 'sync' })).code).toBe(0)
  await writeDeployments([a, b])
  const job = await step({ 'cluster-mode': 'job' })
  expect(job.code).toBe(0)
  expect(decommissionedOutput(job)).toEqual([c])
  await writeDeployments([b, c])
  emulator.requests.length = 0
  const set = await step({ 'cluster-mode': 'sync' })
  expect(set.code).toBe(0)
  expect(sentIn()).toEqual([gone(a), b, c])
  expect(await stateOf()).toEqual(expectedState([b, c]))
})

test('partial success in a set request: a rejected update keeps the old entry, the decommission beside it goes through', async () => {
  const [a, b, c] = [entry('alpha'), entry('beta'), entry('gamma')]
  await writeDeployments([a, b, c])
  expect((await step()).code).toBe(0)
  const movedB = { ...b, digest: digest('beta-2'), github_repository: 'gone' }
  await writeDeployments([a, movedB])
  const run = await step({ 'partial-success': 'true' })
  expect(run.code).toBe(0)
  expect(decommissionedOutput(run)).toEqual([c])
  expect(run.summary).toContain('### Decommissioned (1)')
  expect(run.summary).toContain('### Not recorded (1)')
  expect(await stateOf()).toEqual(expectedState([a, b]))
})

test('a state file of the same cluster spelled in another letter case is refused', async () => {
  await writeDeployments([entry('alpha')])
  expect((await step()).code).toBe(0)
  emulator.requests.length = 0
  const run = await step({ cluster: 'PROD-EU-1' })
  expect(run.code).not.toBe(0)
  expect(errorOf(run)).toContain(
    'holds the deployments of cluster prod-eu-1 in production, not of cluster PROD-EU-1'
  )
  expect(emulator.requests).toEqual([])
})

test('kubernetes-file: a changed deployment-name-template renames every workload, which the guard stops; a changed image tag updates the entry', async () => {
  const list = (tag: string) =>
    kubectlList(
      ['alpha', 'beta'].flatMap(w => [
        workload('StatefulSet', 'apps', w),
        pod({
          namespace: 'apps',
          name: `${w}-0`,
          owner: { kind: 'StatefulSet', name: w },
          phase: 'Running',
          created: '2026-01-02T10:00:00Z',
          containers: [
            {
              name: 'app',
              image: `ghcr.io/acme/${w}:${w === 'beta' ? tag : '1.0.0'}`,
              imageID: `ghcr.io/acme/${w}@${digest(w === 'beta' ? w + tag : w)}`
            }
          ]
        })
      ])
    )
  const k = { 'deployments-file': '', 'kubernetes-file': 'cluster.json' }
  await writeFile(join(workspace, 'cluster.json'), JSON.stringify(list('1.0.0')))
  expect((await step(k)).code).toBe(0)
  const renamed = await step({
    ...k,
    'deployment-name-template': '{{namespace}}-{{deploymentName}}'
  })
  expect(errorOf(renamed)).toContain('kubernetes-file: lacks 2 of the 2 deployments')

  await writeFile(join(workspace, 'cluster.json'), JSON.stringify(list('1.1.0')))
  emulator.requests.length = 0
  const updated = await step(k)
  expect(updated.code).toBe(0)
  expect(decommissionedOutput(updated)).toEqual([])
  const state = (await stateOf()) as {
    deployments: Array<{ deployment_name: string; digest: string; version?: string }>
  }
  expect(state.deployments.map(d => [d.deployment_name, d.digest, d.version])).toEqual([
    ['apps/alpha/app', digest('alpha'), '1.0.0'],
    ['apps/beta/app', digest('beta1.1.0'), '1.1.0']
  ])
})

test('a state of 5000 deployments, 4999 of them gone: one job, and the outputs and summary stay within their budgets', async () => {
  const many = Array.from({ length: 5000 }, (_, i) => entry(`workload-number-${i}`))
  await writeDeployments(many)
  expect((await step()).code).toBe(0)
  await writeDeployments(many.slice(0, 1))
  emulator.requests.length = 0
  const run = await step({ 'allow-mass-decommission': 'true' })
  expect({ code: run.code, error: errorOf(run) }).toEqual({ code: 0, error: '' })
  expect(writesOf(emulator.requests)).toHaveLength(1)
  expect(sentIn().filter(d => (d as { status?: string }).status === 'decommissioned')).toHaveLength(
    4999
  )
  expect(await stateOf()).toEqual(expectedState(many.slice(0, 1)))
  // 4999 entries are over GitHub's 1 MB of outputs: the output holds the first ones, `truncated`
  // counts the rest, and the summary says so.
  const listed = decommissionedOutput(run) as Array<{ deployment_name: string }>
  const { decommissioned: left } = JSON.parse(run.outputs['truncated'] ?? '{}') as {
    decommissioned: number
  }
  expect(listed.length).toBeGreaterThan(1000)
  expect(listed.length + left).toBe(4999)
  expect(listed[0]).toEqual(many[1])
  expect(run.summary).toContain('### Decommissioned (4999)')
  expect(run.summary).toContain(
    `The \`decommissioned\` output holds the first ${listed.length} of 4999 items`
  )
}, 120_000)

test.each(['sync', 'job'])(
  'a run cancelled while its %s request is in flight leaves the state file as it was, with no temporary file, and the next run sends the same decommission',
  async mode => {
    const [a, b] = [entry('alpha'), entry('beta')]
    await writeDeployments([a, b])
    expect((await step({ 'cluster-mode': mode })).code).toBe(0)
    const before = await stateText()
    await writeDeployments([a])
    // the set request itself, or the first poll of the job
    const method = mode === 'sync' ? 'POST' : 'GET'
    emulator.addFault({ method, fault: { kind: 'hang' } })
    const hanging = () => emulator.requests.some(r => r.method === method)
    emulator.requests.length = 0
    const cancelled = await runAction(
      {
        token: TOKEN,
        'api-url': emulator.url,
        cluster: 'prod-eu-1',
        environment: 'production',
        'deployments-file': 'deployments.json',
        'state-file': STATE,
        'cluster-mode': mode
      },
      { HOME: home },
      {
        context: { repository: 'acme/web', workspace },
        signals: [
          { signal: 'SIGINT', when: hanging },
          { signal: 'SIGTERM', afterMs: 200 }
        ]
      }
    )
    expect(cancelled.code).not.toBe(0)
    expect(await stateText()).toBe(before)
    expect(readdirSync(join(workspace, '.record-deployment'))).toEqual(['prod-eu-1.json'])
    expect(decommissionedOutput(cancelled) ?? []).toEqual([])

    emulator.clearFaults()
    emulator.requests.length = 0
    const next = await step({ 'cluster-mode': mode })
    expect({ code: next.code, error: errorOf(next) }).toEqual({ code: 0, error: '' })
    expect(sentIn()).toEqual([a, gone(b)])
    expect(await stateOf()).toEqual(expectedState([a]))
  },
  60_000
)

test('runs that overlap on one state file (no concurrency group) each end with a whole file, and the service holds the decommission', async () => {
  const [a, b, c] = [entry('alpha'), entry('beta'), entry('gamma')]
  await writeDeployments([a, b, c])
  expect((await step()).code).toBe(0)
  await writeDeployments([a, b])
  const runs = await Promise.all([step(), step(), step()])
  expect(runs.map(r => [r.code, errorOf(r)])).toEqual([
    [0, ''],
    [0, ''],
    [0, '']
  ])
  // each run decommissions gamma at most once; which of them saw the old file depends on timing
  for (const r of runs) expect([[], [c]]).toContainEqual(decommissionedOutput(r))
  expect(await stateOf()).toEqual(expectedState([a, b]))
  expect(readdirSync(join(workspace, '.record-deployment'))).toEqual(['prod-eu-1.json'])
  expect(
    (emulator.state.deploymentRecords['acme'] ?? [])
      .filter(r => r.deployment_name === c.deployment_name)
      .map(r => r.status)
  ).toEqual(['decommissioned'])
}, 60_000)
