/**
 * `npm run demo`: starts the emulator with a seeded organization and repository, runs the bundled
 * action against it the way the runner does for a realistic release (a push to main that ships
 * three merged pull requests: storage record, deployment record into a cluster, labels moved from
 * deployed:staging to deployed:production), and prints the outputs, the job summary and the
 * request timeline. No account needed; nothing is left running.
 * `--node PATH` runs the action under another Node (CI uses Node 24); `--check` exits 1 unless
 * the action succeeded with the outputs a user relies on.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { DEMO_HEAD_SHA, DEMO_TAG_SHA, demoSeed } from '../emulator/demo-seed.js'
import { startEmulator } from '../emulator/server.js'
import { runAction } from './run-action.js'

const DIGEST = 'sha256:' + '5f1c0de5'.repeat(8)
const TOKEN = 'demo-token'

const { values: args } = parseArgs({
  options: { node: { type: 'string' }, check: { type: 'boolean', default: false } }
})

const emulator = await startEmulator({
  tokens: { [TOKEN]: { permissions: 'all' } },
  seed: demoSeed()
})
const workspace = await mkdtemp(join(tmpdir(), 'record-deployment-demo-'))
// The push that ships #12, #13 and #14: what the runner puts in GITHUB_EVENT_PATH.
const eventPath = join(workspace, 'event.json')
await writeFile(
  eventPath,
  JSON.stringify({
    ref: 'refs/heads/main',
    before: DEMO_TAG_SHA,
    after: DEMO_HEAD_SHA,
    commits: []
  })
)
let failed = false
try {
  const run = await runAction(
    {
      token: TOKEN,
      digest: `ghcr.io/acme/web@${DIGEST}`,
      version: '1.4.2',
      environment: 'production',
      'physical-environment': 'eu-west-1',
      cluster: 'prod-eu-1',
      tags: 'team=web,release=1.4.2',
      'runtime-risks': 'internet-exposed',
      'registry-url': 'https://ghcr.io',
      'artifact-url': 'https://ghcr.io/acme/web',
      'registry-repository': 'acme/web',
      labels: 'deployed:production',
      'remove-labels': 'deployed:staging',
      'label-color': '0e8a16',
      'label-description': 'Deployed to production',
      'label-linked-issues': 'true'
    },
    {
      GITHUB_REPOSITORY: 'acme/web',
      GITHUB_API_URL: emulator.url,
      GITHUB_SHA: DEMO_HEAD_SHA,
      GITHUB_REF: 'refs/heads/main',
      GITHUB_EVENT_NAME: 'push',
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_WORKSPACE: workspace
    },
    { node: args.node }
  )
  const started = emulator.requests[0]?.arrivedAt ?? 0

  section(`The action's log (exit code ${run.code}, ${Math.round(run.durationMs)} ms)`)
  console.log(run.stdout.trimEnd())
  if (run.stderr) console.log(run.stderr.trimEnd())

  section('Outputs (GITHUB_OUTPUT)')
  for (const [name, value] of Object.entries(run.outputs)) {
    console.log(`${name}:`)
    console.log(indent(pretty(value)))
  }

  section('Job summary (GITHUB_STEP_SUMMARY)')
  console.log(run.summary.trimEnd())

  section('Requests the emulator received')
  console.log('  ms since first   method  status  path')
  let lastWriteEnd: number | undefined
  for (const r of emulator.requests) {
    const write = r.method !== 'GET'
    const gap =
      write && lastWriteEnd !== undefined
        ? `  (${Math.round(r.arrivedAt - lastWriteEnd)} ms after the previous write)`
        : ''
    console.log(
      `  ${String(Math.round(r.arrivedAt - started)).padStart(14)}   ${r.method.padEnd(6)}  ${String(r.status).padEnd(6)}  ${r.path}${gap}`
    )
    if (write) lastWriteEnd = r.finishedAt
  }

  if (args.check) {
    const problems: string[] = []
    if (run.code !== 0) problems.push(`the action exited with ${run.code}`)
    if (!/^\d+$/.test(run.outputs['deployment-record-ids'] ?? ''))
      problems.push('no deployment-record-ids output')
    if (!/^\d+$/.test(run.outputs['storage-record-ids'] ?? ''))
      problems.push('no storage-record-ids output')
    const labeled = (run.outputs['pull-requests'] ?? '').split(',').sort().join(',')
    if (labeled !== '11,12,13,14') {
      problems.push(
        `pull-requests output is ${JSON.stringify(run.outputs['pull-requests'])}, not 11,12,13,14`
      )
    }
    if (problems.length > 0) {
      failed = true
      console.error(`\ncheck failed: ${problems.join('; ')}`)
    } else {
      console.log(
        '\ncheck passed: both records written, pull requests #12-#14 and issue #11 labeled'
      )
    }
  }
} finally {
  await emulator.close()
  await rm(workspace, { recursive: true, force: true })
}
process.exitCode = failed ? 1 : 0

function section(title: string): void {
  console.log(`\n=== ${title}`)
}

function pretty(value: string): string {
  try {
    return JSON.stringify(JSON.parse(value), null, 2)
  } catch {
    return value
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map(line => `  ${line}`)
    .join('\n')
}
