/**
 * `npm run demo`: starts the emulator with a seeded organization and repository and runs the
 * whole release of `examples/release.yml` (a push to main that ships three pull requests merged
 * hours to days before, so the summary shows their lead time: storage record, deployment record
 * into a cluster, labels moved from deployed:staging to deployed:production, the linked issue
 * too) through the runner-faithful launcher, its step's
 * `with:` exactly as written; then prints the outputs, the job summary and the request timeline.
 * No account needed; nothing is left running.
 * The action runs under Node 24 as on the runner (installed into .tmp/node24 when missing; see
 * scripts/node24.ts), or under `--node PATH` (a relative PATH is read from where npm was started;
 * the log says which Node ran it); `--check` exits 1 unless
 * the action succeeded with the outputs a user relies on; `--proxy` puts the emulator behind
 * https as `api.corp.test` (a self-signed certificate, trusted with NODE_EXTRA_CA_CERTS), starts
 * a local forward proxy that alone resolves that name, and runs the step with HTTPS_PROXY
 * pointing at it (loopback is never proxied, so the name is what makes the proxy needed); it says
 * how many tunnels passed through it (with `--check`, there must be some).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { startForwardProxy } from '../__fixtures__/forward-proxy.js'
import { startTlsFront } from '../__fixtures__/tls-front.js'
import { startEmulator } from '../emulator/index.js'
import { documentedJobs, stageJob } from './documented-jobs.js'
import { chooseNode, type ChosenNode } from './node24.js'
import { runAction } from './run-action.js'

const TOKEN = 'demo-token'
const RELEASE = 'examples/release.yml'

const { values: args } = parseArgs({
  options: {
    node: { type: 'string' },
    check: { type: 'boolean', default: false },
    proxy: { type: 'boolean', default: false }
  }
})

let node: ChosenNode
try {
  node = chooseNode(args.node)
} catch (error) {
  console.error((error as Error).message)
  process.exit(2)
}
const runnerNode = node.version.startsWith('v24.')
console.log(
  `the action runs under Node ${node.version} (${node.path})` +
    (runnerNode ? ', as on the runner' : `: NOT the runner's Node 24 (action.yml: node24)`)
)

const release = documentedJobs().find(job => job.source === RELEASE)
if (!release) throw new Error(`${RELEASE} has no record-deployment step`)
const emulator = await startEmulator({ tokens: { [TOKEN]: { permissions: 'all' } } })
const front = args.proxy
  ? await startTlsFront(Number(new URL(emulator.url).port), 'api.corp.test')
  : undefined
const proxy = front
  ? await startForwardProxy({ hosts: { [front.hostname]: '127.0.0.1' } })
  : undefined
const scratch = await mkdtemp(join(tmpdir(), 'record-deployment-demo-'))
let failed = false
try {
  const staged = await stageJob(release, join(scratch, 'workspace'), {
    token: TOKEN,
    apiUrl: front?.url ?? emulator.url
  })
  emulator.seed(staged.seed)
  // The launcher passes only the env it is given: the proxy variables are set here explicitly.
  const proxyEnv: Record<string, string> =
    proxy && front
      ? { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: front.caFile }
      : {}
  const run = await runAction(release.with, proxyEnv, {
    node: node.path,
    context: staged.context,
    expressions: staged.expressions
  })
  const started = emulator.requests[0]?.arrivedAt ?? 0

  section(
    `The action's log (Node ${node.version}, exit code ${run.code}, ${Math.round(run.durationMs)} ms)`
  )
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

  if (proxy) {
    section(`Through the proxy ${proxy.url}`)
    console.log(
      `  ${proxy.seen.length} connections or requests passed through it for the emulator's ${emulator.requests.length} requests`
    )
  }

  if (args.check) {
    const problems: string[] = []
    if (proxy && proxy.seen.length === 0) problems.push('nothing went through the proxy')
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
    // The seed merged them hours to days before the run (emulator/demo-seed.ts): a lead time of
    // 0 s would mean the summary's lead-time line no longer shows what it is for.
    const lead = leadTimeOf(run.outputs['lead-time'])
    if (!(lead.count === 3 && lead.median > 0))
      problems.push(
        `lead-time output is ${JSON.stringify(run.outputs['lead-time'])}, not 3 pull requests merged hours before`
      )
    if (problems.length > 0) {
      failed = true
      console.error(`\ncheck failed: ${problems.join('; ')}`)
    } else {
      console.log(
        '\ncheck passed: both records written, pull requests #12-#14 and issue #11 labeled, their lead time read'
      )
    }
  }
} finally {
  await emulator.close()
  await proxy?.close()
  await front?.close()
  await rm(scratch, { recursive: true, force: true })
}
process.exitCode = failed ? 1 : 0

function leadTimeOf(output: string | undefined): { count: number; median: number } {
  try {
    const value = JSON.parse(output ?? '') as { count?: unknown; median_seconds?: unknown }
    return { count: Number(value.count), median: Number(value.median_seconds) }
  } catch {
    return { count: 0, median: 0 }
  }
}

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
