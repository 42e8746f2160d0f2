// README, Record a whole cluster: "In job mode the service does not return the records, so
// `deployment-records` is empty; use `job-id`." Held through the bundled action, as the runner
// starts it; the set request beside it shows the same outputs filled, so the check can tell.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'
import { runAction } from '../../scripts/run-action.js'

const items = [1, 2, 3].map(n => ({
  name: `ghcr.io/acme/svc-${n}`,
  digest: 'sha256:' + n.toString(16).padStart(64, '0'),
  deployment_name: `prod-svc-${n}-app`
}))

let emulator: Emulator
let dir: string
beforeEach(async () => {
  emulator = await withEmulator({ jobStepMs: 20 })
  dir = await mkdtemp(join(tmpdir(), 'cluster-job-outputs-'))
  await writeFile(join(dir, 'deployments.json'), JSON.stringify(items))
})
afterEach(async () => {
  await emulator.close()
  await rm(dir, { recursive: true, force: true })
})

const step = (mode: string) =>
  runAction(
    {
      token: TOKEN,
      'deployments-file': 'deployments.json',
      cluster: 'prod-eu-1',
      environment: 'production',
      'cluster-mode': mode
    },
    { GITHUB_REPOSITORY: 'acme/web', GITHUB_API_URL: emulator.url, GITHUB_WORKSPACE: dir }
  )

test('job mode: the records are written, deployment-records is empty and job-id names the job', async () => {
  const action = await step('job')
  expect(action.code).toBe(0)
  expect(emulator.state.deploymentRecords['acme']).toHaveLength(3)
  expect(action.outputs['deployment-records']).toBe('[]')
  expect(action.outputs['deployment-record-ids']).toBe('')
  expect(action.outputs['job-id']).toMatch(/^\d+$/)
  expect(action.outputs['job-status']).toBe('completed')
}, 30_000)

test('sync mode, for contrast: the same deployments come back in deployment-records, no job-id', async () => {
  const action = await step('sync')
  expect(action.code).toBe(0)
  const records = JSON.parse(action.outputs['deployment-records'] ?? '[]') as Array<{
    deployment_name: string
  }>
  expect(records.map(r => r.deployment_name).sort()).toEqual(
    items.map(i => i.deployment_name).sort()
  )
  expect(action.outputs['job-id']).toBe('')
}, 30_000)
