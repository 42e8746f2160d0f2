/**
 * `kubernetes-file` through the bundled action, as the runner starts it, against the emulator:
 * the realistic kubectl output (scripts/kubectl-list.ts) gives the items worked out by hand in
 * the unit tests, with its warnings; filters, dry run and bad files behave as README says.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TOKEN, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'
import {
  realisticCluster,
  REALISTIC_ITEMS,
  syntheticObjects,
  writeKubectlList
} from '../../scripts/kubectl-list.js'
import { runAction } from '../../scripts/run-action.js'

let emulator: Emulator
let workspace: string
beforeAll(async () => {
  emulator = await withEmulator({ jobStepMs: 5 })
  workspace = await mkdtemp(join(tmpdir(), 'kubernetes-file-'))
  await writeFile(join(workspace, 'cluster.json'), JSON.stringify(realisticCluster(), null, 4))
})
afterAll(async () => {
  await emulator.close()
  await rm(workspace, { recursive: true, force: true })
})
beforeEach(() => emulator.reset())

const go = (inputs: Record<string, string>) =>
  runAction(
    {
      token: TOKEN,
      'api-url': emulator.url,
      cluster: 'prod-eu-1',
      environment: 'production',
      'kubernetes-file': 'cluster.json',
      ...inputs
    },
    {},
    { context: { repository: 'acme/web', workspace } }
  )
const warningsOf = (stdout: string) => stdout.split('\n').filter(l => l.startsWith('::warning'))
const errorOf = (stdout: string) => stdout.split('\n').find(l => l.startsWith('::error')) ?? ''
const sent = () =>
  (writesOf(emulator.requests)[0]?.body as { deployments?: Array<Record<string, unknown>> })
    ?.deployments ?? []
const byName = (items: Array<Record<string, unknown>>) =>
  [...items].sort((a, b) =>
    String(a['deployment_name']).localeCompare(String(b['deployment_name']))
  )

test('the realistic cluster: every rule, one set request, records and warnings', async () => {
  const run = await go({})
  expect(run.code).toBe(0)
  // No github_repository: the tracker sends none (see kubernetes-tracker.test.ts).
  expect(byName(sent())).toEqual(byName(REALISTIC_ITEMS))
  const records = emulator.state.deploymentRecords['acme'] ?? []
  expect(records.map(r => r.deployment_name).sort()).toEqual(
    REALISTIC_ITEMS.map(i => i.deployment_name).sort()
  )
  expect(JSON.parse(run.outputs['deployment-records'] ?? '[]')).toHaveLength(REALISTIC_ITEMS.length)
  const warnings = warningsOf(run.stdout).join('\n')
  expect(warnings).toContain('1 container has no image digest')
  expect(warnings).toContain('payments/api-6f7d8c9b5-q4w9z/envoy')
  expect(warnings).toContain('StatefulSet shop/db: runtime risk `teleportation`')
  expect(warnings).toContain('StatefulSet shop/db: tag `owner-team`')
  expect(warnings).toContain('Pod payments/api-6f7d8c9b5-q4w9z: tag `slo`')
})

test('namespaces keeps only those; the template names the deployments', async () => {
  const run = await go({
    namespaces: 'shop, batch',
    'deployment-name-template': 'prod/{{namespace}}-{{deploymentName}}-{{containerName}}'
  })
  expect(run.code).toBe(0)
  expect(
    sent()
      .map(d => d['deployment_name'])
      .sort()
  ).toEqual([
    'prod/batch-migrate-once-migrate',
    'prod/batch-nightly-report-report',
    'prod/shop-db-postgres',
    'prod/shop-web-migrate',
    'prod/shop-web-web'
  ])
})

test('exclude-namespaces leaves those out', async () => {
  const run = await go({ 'exclude-namespaces': 'kube-system,payments' })
  expect(run.code).toBe(0)
  expect(sent().some(d => /^(kube-system|payments)\//.test(String(d['deployment_name'])))).toBe(
    false
  )
  expect(sent()).toHaveLength(REALISTIC_ITEMS.length - 2)
})

test('dry run: reads only, and plans the set request with every item', async () => {
  const run = await go({ 'dry-run': 'true' })
  expect(run.code).toBe(0)
  expect(writesOf(emulator.requests)).toEqual([])
  const planned = JSON.parse(run.outputs['planned'] ?? '[]') as Array<{ records: unknown[] }>
  expect(planned[0]?.records).toHaveLength(REALISTIC_ITEMS.length)
})

test.each([
  [{ namespaces: 'shop', 'exclude-namespaces': 'batch' }, 'not both'],
  [{ namespaces: 'nowhere' }, 'has no running pod in `namespaces`'],
  [{ deployments: '[]' }, 'give either `kubernetes-file` or `deployments`'],
  [{ 'deployment-name-template': '{{pod}}/{{containerName}}' }, '`{{pod}}`'],
  [{ 'kubernetes-file': 'missing.json' }, 'no such file'],
  [{ 'kubernetes-file': '', namespaces: 'shop' }, 'belongs to `kubernetes-file`'],
  [{ 'kubernetes-file': '', 'kubernetes-repository': 'web' }, 'belongs to `kubernetes-file`']
])('bad input %j fails before any request: %s', async (inputs, message) => {
  const run = await go(inputs)
  expect(run.code).not.toBe(0)
  expect(errorOf(run.stdout)).toContain(message)
  expect(emulator.requests).toEqual([])
})

test.each([
  ['not JSON', '{"apiVersion": v1}', 'is not JSON'],
  ['YAML', 'apiVersion: v1\nkind: List\n', 'is YAML'],
  ['a deployments array', '[{"name":"x"}]', 'is a JSON array, not a Kubernetes list'],
  ['cut short', JSON.stringify(realisticCluster()).slice(0, 5000), 'before the list is closed'],
  ['another kind', '{"apiVersion":"v1","items":[],"kind":"ConfigMap"}', 'its kind is `ConfigMap`'],
  [
    'items that are not objects',
    '{"apiVersion":"v1","items":[{"spec":{}}],"kind":"List"}',
    'is not a list of Kubernetes objects: item [0]'
  ]
])('a file that is %s fails before any request', async (_what, text, message) => {
  await writeFile(join(workspace, 'bad.json'), text)
  const run = await go({ 'kubernetes-file': 'bad.json' })
  expect(run.code).not.toBe(0)
  expect(errorOf(run.stdout)).toContain(message)
  expect(emulator.requests).toEqual([])
})

test('an empty cluster is an error, unless allow-empty-cluster says it is meant', async () => {
  await writeFile(join(workspace, 'empty.json'), '{"apiVersion":"v1","items":[],"kind":"List"}')
  const refused = await go({ 'kubernetes-file': 'empty.json' })
  expect(errorOf(refused.stdout)).toContain('allow-empty-cluster: true')
  const allowed = await go({ 'kubernetes-file': 'empty.json', 'allow-empty-cluster': 'true' })
  expect(allowed.code).toBe(0)
  expect(allowed.stdout).toContain('has no deployments to record; nothing was sent')
  expect(emulator.requests).toEqual([])
})

test('a bare PodList, as the API prints it (items without kind), is read as pods', async () => {
  const pods = (realisticCluster() as { items: Array<Record<string, unknown>> }).items
    .filter(i => i['kind'] === 'Pod')
    .map(({ kind: _kind, apiVersion: _apiVersion, ...pod }) => pod)
  await writeFile(
    join(workspace, 'pods.json'),
    JSON.stringify({ apiVersion: 'v1', items: pods, kind: 'PodList', metadata: {} })
  )
  const run = await go({ 'kubernetes-file': 'pods.json' })
  expect(run.code).toBe(0)
  // Without the owners listed: a Job stays its own workload, a ReplicaSet loses its hash.
  expect(sent().map(d => d['deployment_name'])).toContain('batch/nightly-report-29401440/report')
  expect(sent().map(d => d['deployment_name'])).toContain('shop/web/web')
})

test('more than 5000 deployments: a clear error naming the count and the limit', async () => {
  writeKubectlList(join(workspace, 'big.json'), syntheticObjects(4300))
  const run = await go({ 'kubernetes-file': 'big.json' })
  expect(run.code).not.toBe(0)
  expect(errorOf(run.stdout)).toMatch(/gives \d{4} deployments .*one step records at most 5000/)
  expect(emulator.requests).toEqual([])
})

test('above 1000 deployments the cluster goes as a background job', async () => {
  writeKubectlList(join(workspace, 'job.json'), syntheticObjects(1000))
  const run = await go({ 'kubernetes-file': 'job.json' })
  expect(run.code).toBe(0)
  expect(run.outputs['job-status']).toBe('completed')
})
