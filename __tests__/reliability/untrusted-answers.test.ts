/**
 * Issue 33, through the bundled action: an answer that never ends or is huge is cut at the cap in
 * bounded memory, fails clearly, and is neither retried nor sent again; an answer nested 5000 deep
 * after a write keeps the written record in the outputs and the summary.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { labelInputs, recordInputs, TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { foreignCommands } from '../../__fixtures__/runner-commands.js'
import { projectRoot, runAction } from '../../scripts/run-action.js'
import type { Emulator, Fault } from '../../emulator/index.js'

let emulator: Emulator
let dir: string
beforeAll(async () => {
  emulator = await withEmulator()
  dir = await mkdtemp(join(tmpdir(), 'untrusted-answers-'))
})
afterAll(async () => {
  await emulator.close()
  await rm(dir, { recursive: true, force: true })
})
beforeEach(() => emulator.reset())

const RECORD = '/orgs/acme/artifacts/metadata/deployment-record'
const REPORTER = pathToFileURL(join(projectRoot(), '__fixtures__/report-max-rss.mjs')).href

/** One deployment record written, with `fault` on its POST; the step's peak memory in MB. */
async function recordWith(fault: Fault, over: Record<string, string> = {}) {
  emulator.addFault({ method: 'POST', path: RECORD, fault })
  const rssFile = join(dir, `rss-${Math.random().toString(36).slice(2)}`)
  const run = await runAction(recordInputs(emulator, { 'max-retries': '3', ...over }), {
    NODE_OPTIONS: `--import=${REPORTER}`,
    MAX_RSS_FILE: rssFile
  })
  const maxRssMb = Number(await readFile(rssFile, 'utf8')) / 1024
  const posts = emulator.requests.filter(r => r.method === 'POST' && r.path === RECORD)
  return { run, maxRssMb, posts }
}

describe('an answer too large to read', () => {
  test.each([
    ['that never ends', { kind: 'huge' } as Fault],
    ['of 1 GiB', { kind: 'huge', bytes: 1024 ** 3 } as Fault],
    [
      'of 1 GiB, announced in content-length',
      { kind: 'huge', bytes: 1024 ** 3, announce: true } as Fault
    ]
  ])(
    '%s: cut at the cap in bounded memory, the write not sent again',
    async (_what, fault) => {
      const { run, maxRssMb, posts } = await recordWith(fault)
      console.log(`answer ${_what}: peak RSS of the step ${maxRssMb.toFixed(0)} MB`)
      expect(run.code).toBe(1)
      expect(run.stdout).toMatch(/answered 200 with more than 16 MiB \(16777216 bytes\)/)
      expect(run.stdout).toMatch(/so it is not sent again/)
      expect(posts).toHaveLength(1)
      expect(maxRssMb).toBeLessThan(200)
      expect(foreignCommands(run.stdout, [TOKEN])).toEqual([])
    },
    60_000
  )

  test('a read is not retried either', async () => {
    emulator.seed({ issues: { 'acme/web': [{ number: 7 }] } })
    const labels = /\/issues\/7$/ // the read of a target (it carries merged_at)
    emulator.addFault({ method: 'GET', path: labels, times: 5, fault: { kind: 'huge' } })
    const run = await runAction(labelInputs(emulator, { 'pull-requests': '7', 'max-retries': '3' }))
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/more than 16 MiB/)
    expect(emulator.requests.filter(r => r.method === 'GET' && labels.test(r.path))).toHaveLength(1)
  }, 60_000)
})

describe('an answer nested 5000 deep after a write', () => {
  test('the written record stays in the outputs and the summary; the deep part is left out', async () => {
    const { run, posts } = await recordWith({
      kind: 'deep',
      depth: 5000,
      into: 'deployment_records'
    })
    expect(posts).toHaveLength(1)
    expect(run.stderr).not.toMatch(/Maximum call stack/)
    expect(run.code).toBe(0)
    const id = (posts[0]?.response as { deployment_records: Array<{ id: number }> })
      .deployment_records[0]?.id
    expect(id).toEqual(expect.any(Number))
    expect(run.outputs['deployment-record-ids']).toBe(String(id))
    const records = JSON.parse(run.outputs['deployment-records'] ?? '[]')
    expect(records[0].id).toBe(id)
    expect(JSON.stringify(records)).toContain('(left out: nested deeper than 64 levels)')
    // the artifact as given, recorded as deployment `web`, with its id
    expect(run.summary).toMatch(
      new RegExp(
        `\\| Deployment record \\| \`ghcr.io/acme/web\` \\|.* as \`web\` \\|.*\\| ${id} \\|`
      )
    )
    expect(run.stdout).toMatch(/::warning::POST .*nests deeper than 64 levels/)
  }, 60_000)
})
