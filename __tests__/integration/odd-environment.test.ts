import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAction, type ActionRun } from '../../scripts/run-action.js'
import { DIGEST, TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'

let emulator: Emulator
let dir: string
beforeAll(async () => {
  emulator = await withEmulator()
  dir = await mkdtemp(join(tmpdir(), 'odd-environment-'))
})
afterAll(async () => {
  await emulator.close()
  await rm(dir, { recursive: true, force: true })
})
beforeEach(() => emulator.reset())

const record = { digest: `ghcr.io/acme/web@${DIGEST}`, environment: 'production' }
const labels = { labels: 'deployed:production' }

async function start(inputs: Record<string, string>, env: Record<string, string>) {
  return runAction(inputs, env, {
    context: { token: TOKEN, apiUrl: emulator.url, eventName: 'push' }
  })
}

/** What a user reads: no stack trace, no uncaught error. */
function expectNoStackTrace(run: ActionRun) {
  expect(run.stdout + run.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m)
  expect(run.stderr).toBe('')
}

const warnings = (run: ActionRun) =>
  run.stdout.split('\n').filter(line => line.startsWith('::warning::'))

test.each([
  ['missing', undefined],
  ['empty', ''],
  ['not JSON', '{"after": '],
  ['not an object', '[1, 2]']
])(
  'an event payload file that is %s: a warning naming it, labels found from nothing, no failure',
  async (what, content) => {
    const path = join(dir, `event-${what.replace(/ /g, '-')}.json`)
    if (content !== undefined) await writeFile(path, content)
    const run = await start(labels, { GITHUB_EVENT_PATH: path })
    expectNoStackTrace(run)
    expect(run.code).toBe(0)
    expect(warnings(run).join('\n')).toContain(`the event payload file GITHUB_EVENT_PATH (${path})`)
  }
)

test('each odd payload file is the same one warning line as before @actions/github read the event, and nothing bare', async () => {
  const auto = '; the event is read as empty, so `pull-requests: auto` may find nothing'
  const notJson = '{"after": '
  let parseMessage = ''
  try {
    JSON.parse(notJson)
  } catch (error) {
    parseMessage = (error as Error).message
  }
  const cases: Array<[string, string | undefined, string]> = [
    ['missing', undefined, 'does not exist'],
    ['empty', '', 'is empty'],
    ['blanks', '  \n', 'is empty'],
    ['not-json', notJson, `is not JSON (${parseMessage})`],
    ['not-an-object', '[1, 2]', 'does not hold a JSON object']
  ]
  for (const [name, content, what] of cases) {
    const path = join(dir, `odd-${name}.json`)
    if (content !== undefined) await writeFile(path, content)
    const run = await start(labels, { GITHUB_EVENT_PATH: path })
    expectNoStackTrace(run)
    expect({ name, code: run.code }).toEqual({ name, code: 0 })
    const where = `the event payload file GITHUB_EVENT_PATH (${path})`
    expect(warnings(run).filter(w => w.includes('GITHUB_EVENT_PATH'))).toEqual([
      `::warning::${where} ${what}${auto}`
    ])
    // @actions/github's Context prints `GITHUB_EVENT_PATH ... does not exist` on its own line.
    expect(run.stdout.split('\n').filter(l => l.startsWith('GITHUB_EVENT_PATH'))).toEqual([])
  }
})

test('a record alone does not open the payload file: recorded, and no line names the file, not even a debug line', async () => {
  const run = await start(record, { GITHUB_EVENT_PATH: join(dir, 'nowhere.json') })
  expectNoStackTrace(run)
  expect(run.code).toBe(0)
  expect(run.stdout.split('\n').filter(line => line.includes('GITHUB_EVENT_PATH'))).toEqual([])
  expect(run.outputs['deployment-record-ids']).toMatch(/^\d+$/)
})

test("on a pull request's event a record alone reads the payload (a fork's token is read-only): an odd file is a debug line", async () => {
  const path = join(dir, 'nowhere.json')
  const run = await runAction(
    record,
    { GITHUB_EVENT_PATH: path },
    {
      context: { token: TOKEN, apiUrl: emulator.url, eventName: 'pull_request' }
    }
  )
  expectNoStackTrace(run)
  expect(run.code).toBe(0)
  expect(run.stdout.split('\n').filter(line => line.includes('GITHUB_EVENT_PATH'))).toEqual([
    `::debug::the event payload file GITHUB_EVENT_PATH (${path}) does not exist; the event is read as empty`
  ])
})

test('an event kind the action does not know: a warning that says how to name the pull requests', async () => {
  const run = await runAction(
    labels,
    {},
    {
      context: { token: TOKEN, apiUrl: emulator.url, eventName: 'merge_group', event: {} }
    }
  )
  expectNoStackTrace(run)
  expect(run.code).toBe(0)
  expect(warnings(run).join('\n')).toMatch(/`merge_group` event.*`since`.*`pull-requests`/)
})

test('a job summary that cannot be written is a warning, not a failed deployment', async () => {
  const run = await start(record, { GITHUB_STEP_SUMMARY: join(dir, 'no-such-folder', 'summary') })
  expectNoStackTrace(run)
  expect(run.code).toBe(0)
  expect(warnings(run).join('\n')).toMatch(
    /job summary could not be written to GITHUB_STEP_SUMMARY/
  )
  expect(run.outputs['deployment-record-ids']).toMatch(/^\d+$/)
})

test('outputs that cannot be written fail the step with one clear message, the records kept', async () => {
  const run = await start(record, { GITHUB_OUTPUT: join(dir, 'no-such-folder', 'output') })
  expectNoStackTrace(run)
  expect(run.code).toBe(1)
  const errors = run.stdout.split('\n').filter(line => line.startsWith('::error::'))
  expect(errors).toHaveLength(1)
  expect(errors[0]).toMatch(/outputs could not be written to GITHUB_OUTPUT/)
  expect(emulator.state.deploymentRecords['acme']).toHaveLength(1)
})
