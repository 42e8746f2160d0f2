/**
 * README's output budget tried with what a big cluster's answer holds: a 1000-deployment set
 * request (sync, the service returns every record) with long names, five tags each and names in
 * other scripts (three UTF-8 bytes a character), through the bundled action as the runner starts
 * it. All outputs together stay under 900,000 bytes, counted in UTF-16 or UTF-8 whichever is more;
 * `deployment-records` is cut between items and stays JSON; `deployment-record-ids` holds the ids
 * of exactly the records written, cut between items if at all; `truncated` counts what was left out.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'
import { runAction } from '../../scripts/run-action.js'

const N = 1000
const BUDGET = 900_000

let emulator: Emulator
let workspace: string
beforeAll(async () => {
  emulator = await withEmulator()
  workspace = await mkdtemp(join(tmpdir(), 'odd-outputs-'))
})
afterAll(async () => {
  await emulator.close()
  await rm(workspace, { recursive: true, force: true })
})

test(`a ${N}-deployment set answered with every record: outputs within budget, cut between items, counted`, async () => {
  const items = Array.from({ length: N }, (_, i) => ({
    name: `ghcr.io/acme/${'サービス'.repeat(58)}-${i + 1}`,
    digest: 'sha256:' + (i + 1).toString(16).padStart(64, '0'),
    deployment_name: `${'配備'.repeat(125)}-${i + 1}`,
    version: `1.${i + 1}.0`,
    tags: Object.fromEntries(
      ['team', 'owner', 'tier', 'region', 'cost'].map(k => [k, '値'.repeat(60)])
    )
  }))
  await writeFile(join(workspace, 'deployments.json'), JSON.stringify(items))
  const run = await runAction(
    {
      token: TOKEN,
      'api-url': emulator.url,
      cluster: 'prod-eu-1',
      environment: 'production',
      'deployments-file': 'deployments.json',
      'cluster-mode': 'sync'
    },
    {},
    { context: { workspace } }
  )
  expect(run.code).toBe(0)
  const values = Object.entries(run.outputs)
  const utf16 = values.reduce((n, [k, v]) => n + 2 * (k.length + v.length), 0)
  const utf8 = values.reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0)
  // Names and tags in other scripts: UTF-8 is the larger count here, and the one that binds.
  expect(utf8).toBeGreaterThan(utf16)
  expect(utf8).toBeLessThan(BUDGET)

  const records = JSON.parse(run.outputs['deployment-records'] ?? '') as Array<{
    id: number
    deployment_name: string
  }>
  const ids = (run.outputs['deployment-record-ids'] ?? '').split(',').filter(Boolean)
  const truncated = JSON.parse(run.outputs['truncated'] ?? '') as Record<string, number>
  // The first records, in the file's order, each whole.
  expect(records.length).toBeGreaterThan(0)
  expect(records.map(r => r.deployment_name)).toEqual(
    items.slice(0, records.length).map(i => i.deployment_name)
  )
  expect(truncated['deployment-records'] ?? 0).toBe(N - records.length)
  // The ids: every record's, or the first ones, the rest counted.
  expect(ids.length + (truncated['deployment-record-ids'] ?? 0)).toBe(N)
  expect(ids.slice(0, records.length)).toEqual(records.map(r => String(r.id)))
  expect(records.length).toBeLessThan(N)
  expect(run.stdout).toContain(
    `::warning::The \`deployment-records\` output holds the first ${records.length} of ${N} items`
  )
}, 60_000)
