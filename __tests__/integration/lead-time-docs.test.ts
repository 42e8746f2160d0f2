/**
 * The documented way to send `lead-time` to a metrics system, run as a user copies it: the YAML
 * block of the docs' "Lead time for changes" section, our step through the bundled action on a
 * push of three merged pull requests, then the next step's `if:` and `env:` evaluated as the
 * runner evaluates them and its script run in the runner's shell against a stand-in Pushgateway.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { parse } from 'yaml'
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { DAY, HOUR, hex, pinnedClock, squashMerged } from '../../__fixtures__/lead-time.js'
import type { Emulator } from '../../emulator/index.js'
import { evaluate, projectRoot, runAction, type ActionRun } from '../../scripts/run-action.js'

/** Where the section is; the first YAML block after its heading is the workflow. */
const DOCS = 'docs/lead-time.md'
const HEADING = '# Lead time for changes'

const exec = promisify(execFile)

interface Step {
  id?: string
  uses?: string
  if?: string
  env?: Record<string, string>
  run?: string
  with?: Record<string, string>
}

function documentedSteps(): { ours: Step; metrics: Step } {
  const text = readFileSync(join(projectRoot(), DOCS), 'utf8')
  const section = text.slice(text.indexOf(HEADING))
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1]
  if (!block) throw new Error(`${DOCS}: no YAML block under ${HEADING}`)
  const workflow = parse(block) as { jobs: Record<string, { steps: Step[] }> }
  const steps = Object.values(workflow.jobs)[0]?.steps ?? []
  const index = steps.findIndex(s => /record-deployment@/.test(s.uses ?? ''))
  const ours = steps[index]
  const metrics = steps[index + 1]
  if (!ours?.id || !metrics?.run) throw new Error(`${DOCS}: our step, with an id, then a run step`)
  return { ours, metrics }
}

let emulator: Emulator
let gateway: Server
let pushed: Array<{ method: string; url: string; body: string }>
beforeAll(async () => {
  emulator = await withEmulator()
  gateway = createServer((req, res) => {
    let body = ''
    req.on('data', chunk => (body += String(chunk)))
    req.on('end', () => {
      pushed.push({ method: req.method ?? '', url: req.url ?? '', body })
      res.end()
    })
  })
  await new Promise<void>(resolve => gateway.listen(0, '127.0.0.1', resolve))
})
afterAll(async () => {
  await emulator.close()
  await new Promise(resolve => gateway.close(resolve))
})
beforeEach(() => {
  emulator.reset()
  pushed = []
})

/** A push to main of `pulls` (number, merged how long before), one squash commit each. */
async function push(pulls: Array<[number, number]>): Promise<ActionRun> {
  const head = hex(pulls.length + 2)
  emulator.seed(squashMerged(pulls, [{ sha: head, message: 'Docs' }]))
  const { ours } = documentedSteps()
  return runAction({ ...ours.with }, pinnedClock, {
    context: {
      token: TOKEN,
      apiUrl: emulator.url,
      eventName: 'push',
      sha: head,
      ref: 'refs/heads/main',
      event: { before: hex(1), after: head, ref: 'refs/heads/main' }
    }
  })
}

/** The metrics step as the runner runs it: skipped unless `if:` holds, else its script in bash. */
async function runMetricsStep(run: ActionRun): Promise<'skipped' | 'ran'> {
  const { ours, metrics } = documentedSteps()
  const { port } = gateway.address() as AddressInfo
  const context = {
    steps: { [ours.id as string]: { outputs: run.outputs, outcome: 'success' } },
    vars: { PUSHGATEWAY_URL: `http://127.0.0.1:${port}` }
  }
  if (metrics.if && evaluate(`\${{ ${metrics.if} }}`, context) !== 'true') return 'skipped'
  const env = Object.fromEntries(
    Object.entries(metrics.env ?? {}).map(([name, value]) => [name, evaluate(value, context)])
  )
  await exec('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', metrics.run ?? ''], {
    env: { PATH: process.env['PATH'] ?? '', ...env }
  })
  return 'ran'
}

test('the documented Pushgateway step sends the lead time of the pull requests the push shipped', async () => {
  const run = await push([
    [12, DAY],
    [14, HOUR],
    [15, 3 * DAY]
  ])
  expect(run.code).toBe(0)

  expect(await runMetricsStep(run)).toBe('ran')
  expect(pushed).toEqual([
    {
      method: 'POST',
      url: '/metrics/job/deploy/environment/production',
      body: [
        'deploy_pull_requests_shipped 3',
        'deploy_lead_time_median_seconds 86400',
        'deploy_lead_time_p90_seconds 259200',
        'deploy_lead_time_max_seconds 259200',
        ''
      ].join('\n')
    }
  ])
})

test('the documented Pushgateway step is skipped when nothing shipped', async () => {
  const run = await push([])
  expect(run.code).toBe(0)
  expect(JSON.parse(run.outputs['lead-time'] ?? '')).toMatchObject({ count: 0 })

  expect(await runMetricsStep(run)).toBe('skipped')
  expect(pushed).toEqual([])
})
