/**
 * `npm run demo`: starts the emulator, runs the bundled action against it the way the runner
 * does, and prints the outputs, the job summary and the request timeline. No account needed.
 * `--node PATH` runs the action under another Node (CI uses Node 24); `--check` exits 1 unless
 * the action succeeded with the outputs a user relies on.
 */
import { parseArgs } from 'node:util'
import { startEmulator } from '../emulator/server.js'
import { runAction } from './run-action.js'

const DIGEST = 'sha256:' + '5f1c0de5'.repeat(8)
const TOKEN = 'demo-token'

const { values: args } = parseArgs({
  options: { node: { type: 'string' }, check: { type: 'boolean', default: false } }
})

const emulator = await startEmulator({ tokens: { [TOKEN]: { permissions: 'all' } } })
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
      'registry-repository': 'acme/web'
    },
    {
      GITHUB_REPOSITORY: 'acme/web',
      GITHUB_API_URL: emulator.url,
      GITHUB_SHA: 'f'.repeat(40),
      GITHUB_EVENT_NAME: 'push'
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
    if (problems.length > 0) {
      failed = true
      console.error(`\ncheck failed: ${problems.join('; ')}`)
    } else {
      console.log(
        '\ncheck passed: the bundled action recorded a storage record and a deployment record'
      )
    }
  }
} finally {
  await emulator.close()
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
