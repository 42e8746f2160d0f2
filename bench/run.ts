/**
 * `npm run bench`: runs the bundled action as a process against the emulator, under Node 24 as
 * the runner does, scenario by scenario, and prints where the time goes next to the floor that
 * the service's spacing rule imposes ((writes - 1) x 1 s). Also runs the `release` scenario as an
 * @octokit/core script with the throttling and retry plugins, for comparison, and a cold-start
 * table beside `node -e 0` and actions/labeler's bundle (../shared/anchors), interleaved.
 * Results go to .tmp/bench/results.json, or with --save to bench/results.json (tracked: the
 * figures README quotes). --node PATH runs the action under another Node; --labeler PATH names the
 * yardstick's bundle. The labels-under-limits scenarios (bench/limits.ts: 600 and 2,000 pull
 * requests under GitHub's documented limits on a scaled clock, beside octokit's throttling plugin)
 * run last; `--limits` runs them alone. `kubernetes-file`'s memory at 200 MB and 1 GiB is
 * bench/kubernetes-memory.ts (--memory 200,1020 sizes in MB, `--memory none` leaves it out).
 * Not a test: nothing here passes or fails.
 * Over 300 lines: the scenarios and the report share one emulator, one Node and the arguments;
 * the cold-start table is bench/cold-start.ts.
 */
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { cpus, tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { parseArgs } from 'node:util'
import { startEmulator, type Emulator } from '../emulator/index.js'
import { syntheticObjects, writeKubectlList } from '../scripts/kubectl-list.js'
import { coldStart, nccBuild, type ColdStartRow } from './cold-start.js'
import { labelsRange, mergeRange } from './ranges.js'
import { matrix10 } from './matrix.js'
import { LIMITS_CASES, limitsBench, printLimits, SCALE, type LimitsSample } from './limits.js'
import { kubernetesMemory } from './kubernetes-memory.js'
import { chooseNode, type ChosenNode } from '../scripts/node24.js'
import { projectRoot, runAction } from '../scripts/run-action.js'

const TOKEN = 'bench-token'
const DIGEST = 'sha256:' + 'be9c4'.padEnd(64, '0')
const PULLS = [1, 2, 3, 4, 5]
const root = projectRoot()

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string' },
    quick: { type: 'boolean', default: false },
    node: { type: 'string' },
    labeler: { type: 'string' },
    save: { type: 'boolean', default: false },
    limits: { type: 'boolean', default: false },
    // the labels-under-limits scenarios whose name holds this text; their clock's scale (120)
    only: { type: 'string' },
    scale: { type: 'string' },
    memory: { type: 'string' }
  }
})
const quick = args.quick === true
let chosen: ChosenNode
try {
  chosen = chooseNode(args.node)
} catch (error) {
  console.error((error as Error).message)
  process.exit(2)
}
const node = chosen.path
const nodeVersion = chosen.version
console.log(`the action runs under Node ${nodeVersion} (${node})`)
/** Where the figures go: bench/results.json (tracked, what README quotes) only with --save. */
const resultsFile = args.save
  ? join(root, 'bench/results.json')
  : join(root, '.tmp/bench/results.json')

interface Sample {
  wallMs: number
  cpuMs: number
  maxRssMb: number
  reads: number
  writes: number
  coldStartMs?: number
  code: number | null
}

interface Scenario {
  name: string
  runs: number
  /** Inputs for the action, or undefined for the octokit script. */
  inputs?: (dir: string) => Promise<Record<string, string>> | Record<string, string>
  entry?: string
  expectFailure?: boolean
}

const deployments = (n: number) =>
  JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      name: `ghcr.io/acme/svc-${i}`,
      digest: 'sha256:' + i.toString(16).padStart(64, '0'),
      deployment_name: `prod-svc-${i}-app`,
      version: `1.0.${i}`
    }))
  )

const release: Record<string, string> = {
  digest: `ghcr.io/acme/web@${DIGEST}`,
  version: '1.4.2',
  environment: 'production',
  cluster: 'prod-eu-1',
  'registry-url': 'https://ghcr.io',
  labels: 'deployed:production',
  'label-color': '0e8a16',
  'pull-requests': PULLS.join(',')
}

const scenarios: Scenario[] = [
  { name: 'release', runs: quick ? 1 : 3, inputs: () => release },
  {
    name: 'release (octokit script)',
    runs: quick ? 1 : 3,
    entry: join(root, 'build/bench/octokit-release.js')
  },
  {
    name: 'cluster-1000',
    runs: quick ? 1 : 5,
    // From a file, as a workflow would: 1000 deployments are more than one variable can carry.
    inputs: async dir => {
      await writeFile(join(dir, 'deployments-1000.json'), deployments(1000))
      return {
        'deployments-file': join(dir, 'deployments-1000.json'),
        cluster: 'prod-eu-1',
        environment: 'production',
        'cluster-mode': 'sync'
      }
    }
  },
  {
    name: 'cluster-5000',
    runs: quick ? 1 : 3,
    inputs: async dir => {
      await writeFile(join(dir, 'deployments.json'), deployments(5000))
      return {
        'deployments-file': join(dir, 'deployments.json'),
        cluster: 'prod-eu-2',
        environment: 'production'
      }
    }
  },
  {
    name: 'kubectl-20k',
    runs: quick ? 1 : 3,
    // What kubectl prints for about 20k pods (about 200 MB), read and derived in a dry run: the
    // reads of the preview, no write.
    inputs: dir => {
      const path = join(dir, 'cluster-20k.json')
      if (!existsSync(path)) {
        const bytes = writeKubectlList(
          path,
          syntheticObjects(1950, { podsPerDeployment: 10, padEnv: 30 })
        )
        console.log(`kubectl-20k: ${(bytes / 1024 / 1024).toFixed(0)} MB of kubectl output`)
      }
      return {
        'kubernetes-file': path,
        cluster: 'prod-eu-3',
        environment: 'production',
        'dry-run': 'true'
      }
    }
  },
  {
    name: 'labels-300',
    runs: quick ? 1 : 3,
    // The range of labelsRange() below, labeled in a dry run: reads only.
    inputs: () => ({ labels: 'deployed:production', since: 'v1.0.0', 'dry-run': 'true' })
  },
  {
    name: 'labels-merge-400',
    runs: quick ? 1 : 3,
    // The range of mergeRange() below (repository acme/api), labeled in a dry run: reads only.
    inputs: () => ({
      labels: 'deployed:production',
      since: 'v1.0.0',
      'dry-run': 'true',
      repository: 'acme/api'
    })
  },
  {
    name: 'labels-300 (octokit script)',
    runs: quick ? 1 : 3,
    entry: join(root, 'build/bench/octokit-labels.js')
  },
  {
    name: 'bad-input',
    runs: quick ? 2 : 10,
    inputs: () => ({ digest: 'sha512:nope', environment: 'production', cluster: 'bad cluster' }),
    expectFailure: true
  },
  {
    name: 'cold-start',
    runs: quick ? 2 : 10,
    inputs: () => ({ digest: DIGEST, name: 'ghcr.io/acme/web', 'registry-url': 'https://ghcr.io' })
  }
]

if (args.limits) {
  // The labels-under-limits scenarios alone: their figures merged into the results file.
  const dir = await mkdtemp(join(tmpdir(), 'record-deployment-bench-'))
  let samples: LimitsSample[] = []
  try {
    const cases = LIMITS_CASES.filter(c => args.only === undefined || c.name.includes(args.only))
    const scale = args.scale === undefined ? SCALE : Number(args.scale)
    samples = await limitsBench(cases, { dir, node, token: TOKEN, scale }, s => printLimits([s]))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  const previous = JSON.parse(await readFile(resultsFile, 'utf8').catch(() => '{}')) as object
  await mkdir(dirname(resultsFile), { recursive: true })
  await writeFile(
    resultsFile,
    JSON.stringify({ ...previous, limits: { date: new Date().toISOString(), samples } }, null, 2) +
      '\n'
  )
  console.log(`written to ${relative(root, resultsFile)}`)
  process.exit(0)
}

const range = labelsRange()
const merges = mergeRange()

const emulator = await startEmulator({
  tokens: { [TOKEN]: { permissions: 'all' } },
  jobStepMs: 100,
  seed: {
    pulls: {
      'acme/web': [
        ...PULLS.map(number => ({ number, title: `Change ${number}`, merged: true })),
        ...range.pulls
      ],
      'acme/api': merges.pulls
    },
    commits: { 'acme/web': range.commits, 'acme/api': merges.commits },
    refs: { 'acme/web': { 'v1.0.0': range.start }, 'acme/api': { 'v1.0.0': merges.start } }
  }
})
const dir = await mkdtemp(join(tmpdir(), 'record-deployment-bench-'))
const results: Record<string, ReturnType<typeof summarize>> = {}
let coldStartRows: ColdStartRow[] = []
let limitSamples: LimitsSample[] = []
try {
  for (const scenario of scenarios) {
    const samples: Sample[] = []
    for (let i = 0; i < scenario.runs; i++) {
      emulator.reset()
      samples.push(await measure(emulator, scenario, dir))
    }
    results[scenario.name] = summarize(samples)
    const bad = samples.filter(s => (s.code === 0) === Boolean(scenario.expectFailure))
    if (bad.length > 0)
      console.error(
        `warning: ${scenario.name}: ${bad.length} runs ended with an unexpected exit code`
      )
  }
  const options = { node, quick, token: TOKEN, digest: DIGEST, labeler: args.labeler }
  coldStartRows = await coldStart(emulator, dir, await nccBuild(dir), options)
  const matrix = await matrix10(emulator, { dir, node, token: TOKEN, digest: DIGEST, pulls: PULLS })
  limitSamples = await limitsBench(quick ? LIMITS_CASES.slice(0, 2) : LIMITS_CASES, {
    dir,
    node,
    token: TOKEN
  })
  // The runs write side by side: the floor is one run's spacing ((its writes - 1) x 1 s), not the
  // sum of every run's writes.
  const matrixFloorMs = Math.max(0, Math.ceil(matrix.writes / 10) - 1) * 1000
  results['matrix-10'] = Object.assign(summarize([matrix]), {
    writesNeeded: matrix.writesNeeded,
    floorMs: matrixFloorMs,
    overheadMs: matrix.wallMs - matrixFloorMs
  })
} finally {
  await emulator.close()
  await rm(dir, { recursive: true, force: true })
}

const memorySizes = (args.memory ?? (quick ? '200' : '200,1020'))
  .split(',')
  .filter(size => size !== 'none')
  .map(size => Number(size) * 1024 * 1024)
const kubernetesMemoryRows =
  memorySizes.length > 0 ? await kubernetesMemory({ node, sizes: memorySizes }) : []

printTable(results)
printLimits(limitSamples)
const labelerMedian = coldStartRows.find(r => r.name.startsWith('labeler'))?.median
console.log(
  `\ncold start under Node ${nodeVersion}, medians of ${coldStartRows[0]?.ms.length ?? 0} interleaved runs:`
)
for (const row of coldStartRows) {
  const ratio = labelerMedian ? `  ${(row.median / labelerMedian).toFixed(2)}x labeler` : ''
  console.log(
    `  ${row.name.padEnd(48)} ${row.median.toFixed(0).padStart(5)} ms (${Math.min(...row.ms).toFixed(0)}-${Math.max(...row.ms).toFixed(0)})${ratio}`
  )
}
const ours = results['release']
const theirs = results['release (octokit script)']
const comparison =
  ours && theirs
    ? {
        wall: ours.wallMs.median / theirs.wallMs.median,
        writes: ours.writes / theirs.writes,
        requests: (ours.reads + ours.writes) / (theirs.reads + theirs.writes)
      }
    : undefined
if (comparison) {
  console.log(
    `\nrelease, action vs octokit script: wall x${comparison.wall.toFixed(2)}, writes x${comparison.writes.toFixed(2)}, ` +
      `requests x${comparison.requests.toFixed(2)}`
  )
}
const entrySize = (await stat(join(root, 'dist/index.js'))).size
const undiciSize = (await stat(join(root, 'dist/undici.js'))).size
console.log(
  `bundle: dist/index.js ${(entrySize / 1024).toFixed(0)} KiB (all that bad input loads), ` +
    `dist/undici.js ${(undiciSize / 1024).toFixed(0)} KiB (imported once the inputs are sound)`
)
await mkdir(dirname(resultsFile), { recursive: true })
await writeFile(
  resultsFile,
  JSON.stringify(
    {
      date: new Date().toISOString(),
      node: nodeVersion,
      cpus: `${cpus().length} x ${cpus()[0]?.model ?? 'unknown'}`,
      distBytes: entrySize + undiciSize,
      entryBytes: entrySize,
      coldStart: Object.fromEntries(
        coldStartRows.map(r => [
          r.name,
          { median: r.median, min: Math.min(...r.ms), max: Math.max(...r.ms), runs: r.ms.length }
        ])
      ),
      scenarios: results,
      kubernetesMemory: kubernetesMemoryRows,
      releaseVersusOctokit: comparison,
      limits: { date: new Date().toISOString(), samples: limitSamples }
    },
    null,
    2
  ) + '\n'
)
console.log(
  `written to ${relative(root, resultsFile)}${args.save ? '' : ' (--save writes bench/results.json, the figures README quotes)'}`
)

async function measure(emulator: Emulator, scenario: Scenario, dir: string): Promise<Sample> {
  const usageFile = join(dir, 'usage.json')
  await rm(usageFile, { force: true })
  const probe = join(root, 'bench/usage-probe.mjs')
  const env: Record<string, string> = {
    NODE_OPTIONS: `--import=${probe}`,
    BENCH_USAGE_FILE: usageFile,
    GITHUB_REPOSITORY: 'acme/web',
    GITHUB_API_URL: emulator.url,
    GITHUB_EVENT_NAME: 'workflow_dispatch',
    GITHUB_SHA: 'f'.repeat(40),
    GITHUB_WORKSPACE: dir,
    BENCH_API_URL: emulator.url,
    BENCH_TOKEN: TOKEN,
    BENCH_DIGEST: DIGEST,
    BENCH_PULLS: PULLS.join(',')
  }
  const inputs = scenario.inputs ? { token: TOKEN, ...(await scenario.inputs(dir)) } : {}
  const run = await runAction(inputs, env, { entry: scenario.entry, node })
  const usage = JSON.parse(await readFile(usageFile, 'utf8').catch(() => '{}')) as {
    cpuMs?: number
    maxRssMb?: number
  }
  const requests = emulator.requests
  const writes = requests.filter(r => r.method !== 'GET').length
  return {
    wallMs: run.durationMs,
    cpuMs: usage.cpuMs ?? NaN,
    maxRssMb: usage.maxRssMb ?? NaN,
    reads: requests.length - writes,
    writes,
    coldStartMs: requests[0] ? requests[0].arrivedAt - run.spawnedAt : undefined,
    code: run.code
  }
}

function summarize(samples: Sample[]) {
  const stats = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b)
    return {
      median: sorted[Math.floor(sorted.length / 2)] ?? NaN,
      min: sorted[0] ?? NaN,
      max: sorted.at(-1) ?? NaN
    }
  }
  const writes = Math.max(...samples.map(s => s.writes))
  const reads = Math.max(...samples.map(s => s.reads))
  const floorMs = Math.max(0, writes - 1) * 1000
  const wall = stats(samples.map(s => s.wallMs))
  const cold = samples.map(s => s.coldStartMs).filter((v): v is number => v !== undefined)
  return {
    runs: samples.length,
    wallMs: wall,
    cpuMs: stats(samples.map(s => s.cpuMs)).median,
    maxRssMb: Math.max(...samples.map(s => s.maxRssMb)),
    reads,
    writes,
    floorMs,
    overheadMs: wall.median - floorMs,
    coldStartMs: cold.length > 0 ? stats(cold).median : undefined
  }
}

function printTable(rows: Record<string, ReturnType<typeof summarize>>): void {
  const header = [
    'scenario',
    'runs',
    'wall ms (min-max)',
    'cpu ms',
    'rss MB',
    'reads',
    'writes',
    'floor ms',
    'overhead ms',
    'first request ms'
  ]
  const lines = Object.entries(rows).map(([name, r]) => [
    name,
    String(r.runs),
    `${r.wallMs.median.toFixed(0)} (${r.wallMs.min.toFixed(0)}-${r.wallMs.max.toFixed(0)})`,
    Number.isNaN(r.cpuMs) ? '-' : r.cpuMs.toFixed(0),
    Number.isNaN(r.maxRssMb) ? '-' : r.maxRssMb.toFixed(0),
    String(r.reads),
    String(r.writes),
    String(r.floorMs),
    r.overheadMs.toFixed(0),
    r.coldStartMs === undefined ? '-' : r.coldStartMs.toFixed(0)
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map(l => (l[i] ?? '').length)))
  const format = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ')
  console.log(format(header))
  for (const line of lines) console.log(format(line))
}
