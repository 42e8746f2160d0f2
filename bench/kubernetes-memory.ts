/**
 * The memory and speed of `kubernetes-file` (issue 44): the bundled action, run as the runner
 * starts it, reads kubectl lists of 200 MB and 1 GiB, of tiny pods (the smallest a running pod
 * with a digest is, pretty-printed as kubectl does) and of realistic ones (the benchmark's
 * kubectl-20k shape), in a dry run; its peak RSS (the kernel's, from the preloaded usage probe)
 * per input MB and its time per MB, beside a plain `JSON.parse` of the same file in one Node (at
 * 200 MB: a 1 GiB file is past V8's longest string). The files are written to .tmp/ and deleted
 * after. Not a test: nothing here passes or fails. `npm run bench` runs it after the other
 * scenarios (`--memory-only` runs it alone, `--no-memory` leaves it out).
 */
import { spawnSync } from 'node:child_process'
import { closeSync, openSync, statSync, writeSync } from 'node:fs'
import { mkdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { digestOf, syntheticObjects } from '../scripts/kubectl-list.js'
import type { Json } from '../scripts/kubectl/objects.js'
import { startEmulator } from '../emulator/index.js'
import { projectRoot, runAction } from '../scripts/run-action.js'

const MB = 1024 * 1024

export interface MemoryRow {
  name: string
  inputMb: number
  pods: number
  /** The action's peak RSS, and that per input MB. */
  peakMb: number
  peakPerInputMb: number
  wallMs: number
  /** The action's CPU time (user and system), and that per input MB. */
  cpuMs: number
  cpuMsPerMb: number
  /** A plain `JSON.parse` of the whole file in one Node, when it fits in a string. */
  parsePeakMb?: number
  parseMs?: number
  code: number | null
  /** The line of the log that tells what was read (or the error). */
  said: string
}

const tinyNamespace = (w: number) => `ns-${w % 20}`

function tinyPod(i: number, workloads: number): Json {
  const w = i % workloads
  return {
    kind: 'Pod',
    metadata: {
      name: `svc-${w}-5d7e6c4b3-${i.toString(36)}`,
      namespace: tinyNamespace(w),
      ownerReferences: [{ kind: 'ReplicaSet', name: `svc-${w}-5d7e6c4b3` }]
    },
    spec: { containers: [{ name: 'app', image: `ghcr.io/acme/svc-${w}:1.0.0` }] },
    status: {
      phase: 'Running',
      containerStatuses: [{ name: 'app', imageID: `ghcr.io/acme/svc-${w}@${digestOf(`svc-${w}`)}` }]
    }
  }
}

/**
 * Tiny pods, pods first as kubectl prints `get pods,replicasets,deployments`: each one running
 * container with its digest and a ReplicaSet owner, spread over `workloads` Deployments; then the
 * ReplicaSets and Deployments.
 */
function* tinyObjects(pods: number, workloads: number): Generator<Json> {
  for (let i = 0; i < pods; i++) yield tinyPod(i, workloads)
  for (let w = 0; w < workloads; w++) {
    yield {
      kind: 'ReplicaSet',
      metadata: {
        name: `svc-${w}-5d7e6c4b3`,
        namespace: tinyNamespace(w),
        ownerReferences: [{ kind: 'Deployment', name: `svc-${w}` }]
      }
    }
    yield { kind: 'Deployment', metadata: { name: `svc-${w}`, namespace: tinyNamespace(w) } }
  }
}

/** Writes the objects as kubectl prints a list (4-space indent); how many pods it holds. */
function writeList(path: string, objects: Iterable<Json>): number {
  const fd = openSync(path, 'w')
  let pods = 0
  try {
    let batch = '{\n    "apiVersion": "v1",\n    "items": ['
    let first = true
    for (const object of objects) {
      if (object['kind'] === 'Pod') pods++
      batch += (first ? '\n' : ',\n') + JSON.stringify(object, null, 4)
      first = false
      if (batch.length > 4 * MB) {
        writeSync(fd, batch)
        batch = ''
      }
    }
    writeSync(fd, batch + '\n    ],\n    "kind": "List",\n    "metadata": {}\n}\n')
  } finally {
    closeSync(fd)
  }
  return pods
}

/** How big one pretty-printed tiny pod is, to fill a size. */
/**
 * The shape that costs most to keep: owners, which every pod may need and so are all kept (in
 * their slim form). 2000 tiny pods, then ReplicaSets of old rollouts, tiny, until `bytes`.
 */
function* ownerObjects(bytes: number, annotated = false): Generator<Json> {
  const replicaSet = (r: number): Json => ({
    kind: 'ReplicaSet',
    metadata: {
      name: `svc-${r % 2000}-${r.toString(36).padStart(9, '0')}`,
      namespace: tinyNamespace(r % 2000),
      ownerReferences: [{ kind: 'Deployment', name: `svc-${r % 2000}` }],
      // The Deployment controller copies a Deployment's annotations to each of its ReplicaSets.
      ...(annotated ? { annotations: { 'metadata.github.com/team': `team-${r % 20}` } } : {})
    }
  })
  const each = JSON.stringify(replicaSet(9_999_999), null, 4).length + 2
  const owners = Math.floor((bytes - 2000 * TINY_POD_BYTES) / each)
  yield* tinyObjects(2000, 2000)
  for (let r = 2000; r < owners; r++) yield replicaSet(r)
}

/** At most: the longest names (the last workload, a pod number of five digits in base 36). */
const TINY_POD_BYTES = JSON.stringify(tinyPod(1999 + 2000 * 999, 2000), null, 4).length + 2

/** A plain JSON.parse of the file in a fresh Node: its peak RSS and time. */
function parseBaseline(node: string, path: string): { peakMb: number; ms: number } | undefined {
  const script =
    "const t=performance.now();JSON.parse(require('fs').readFileSync(process.argv[1],'utf8'));" +
    'const ms=performance.now()-t;' +
    'console.log(JSON.stringify({ms,peak:process.resourceUsage().maxRSS/1024}))'
  const run = spawnSync(node, ['-e', script, path], { encoding: 'utf8' })
  if (run.status !== 0) return undefined
  const { ms, peak } = JSON.parse(run.stdout) as { ms: number; peak: number }
  return { peakMb: peak, ms }
}

const SHAPES: Array<[string, (bytes: number) => Iterable<Json>]> = [
  // 2000 workloads: under the 5000 deployments one step records.
  ['tiny', bytes => tinyObjects(Math.floor(bytes / TINY_POD_BYTES), 2000)],
  ['owners', bytes => ownerObjects(bytes)],
  // The same, each ReplicaSet with a `metadata.github.com/` annotation (its Deployment's): kept
  // whole, not small. Not in the default run (`shapes` names it).
  ['annotated-owners', bytes => ownerObjects(bytes, true)],
  // The kubectl-20k shape (about 10 KB a pod): 1950 workloads, 10 pods a Deployment in 197 MB,
  // more pods a Deployment for more bytes.
  [
    'realistic',
    bytes =>
      syntheticObjects(1950, {
        podsPerDeployment: Math.round((10 * bytes) / (197 * MB)),
        padEnv: 30
      })
  ]
]

/** Writes a list of `shape` (tiny, owners, realistic) of about `bytes` to `path`; its pods. */
export function writeShape(shape: string, path: string, bytes: number): number {
  const make = SHAPES.find(([name]) => name === shape)?.[1]
  if (!make) throw new Error(`no shape ${shape}`)
  return writeList(path, make(bytes))
}

export async function kubernetesMemory(options: {
  node: string
  sizes?: number[]
  /** Bundles to compare on the same files (another build's dist/index.js); the action's alone by default. */
  entries?: Array<{ label: string; entry?: string }>
  /** Which shapes (tiny, realistic, owners); all by default. */
  shapes?: string[]
  log?: (line: string) => void
}): Promise<MemoryRow[]> {
  const log = options.log ?? console.log
  const root = projectRoot()
  const dir = join(root, '.tmp/bench-kubernetes')
  await mkdir(dir, { recursive: true })
  const rows: MemoryRow[] = []
  const emulator = await startEmulator({ tokens: { 'bench-token': { permissions: 'all' } } })
  try {
    for (const size of options.sizes ?? [200 * MB, 1020 * MB]) {
      for (const [shape, make] of SHAPES) {
        if (options.shapes ? !options.shapes.includes(shape) : shape === 'annotated-owners')
          continue
        const path = join(dir, `${shape}-${Math.round(size / MB)}.json`)
        const count = writeList(path, make(size))
        const inputMb = statSync(path).size / MB
        const baseline = size <= 512 * MB ? parseBaseline(options.node, path) : undefined
        for (const { label, entry } of options.entries ?? [{ label: '' }]) {
          const usageFile = join(dir, 'usage.json')
          await rm(usageFile, { force: true })
          emulator.reset()
          const run = await runAction(
            {
              token: 'bench-token',
              'kubernetes-file': path,
              cluster: 'prod-eu-9',
              environment: 'production',
              'dry-run': 'true'
            },
            {
              NODE_OPTIONS: `--import=${join(root, 'bench/usage-probe.mjs')}`,
              BENCH_USAGE_FILE: usageFile,
              GITHUB_REPOSITORY: 'acme/web',
              GITHUB_API_URL: emulator.url,
              GITHUB_WORKSPACE: dir
            },
            { node: options.node, ...(entry ? { entry } : {}) }
          )
          const usage = JSON.parse(await readFile(usageFile, 'utf8').catch(() => '{}')) as {
            maxRssMb?: number
            cpuMs?: number
          }
          const said = run.stdout.split('\n').find(l => l.startsWith('::error')) ?? ''
          const peakMb = usage.maxRssMb ?? NaN
          const cpuMs = usage.cpuMs ?? NaN
          const row: MemoryRow = {
            name: `${label}${shape}-${Math.round(inputMb)}MB`,
            inputMb,
            pods: count,
            peakMb,
            peakPerInputMb: peakMb / inputMb,
            wallMs: run.durationMs,
            cpuMs,
            cpuMsPerMb: cpuMs / inputMb,
            ...(baseline ? { parsePeakMb: baseline.peakMb, parseMs: baseline.ms } : {}),
            code: run.code,
            said: said.slice(0, 300)
          }
          rows.push(row)
          log(
            `${row.name.padEnd(24)} ${String(count).padStart(8)} pods  peak ${peakMb.toFixed(0).padStart(5)} MB ` +
              `(${row.peakPerInputMb.toFixed(2)} per input MB)  cpu ${cpuMs.toFixed(0).padStart(6)} ms ` +
              `(${row.cpuMsPerMb.toFixed(1)} ms/MB), wall ${row.wallMs.toFixed(0)} ms` +
              (baseline
                ? `  JSON.parse: ${baseline.peakMb.toFixed(0)} MB, ${baseline.ms.toFixed(0)} ms`
                : '  JSON.parse: past V8 string limit') +
              `  exit ${run.code}${said ? ` ${said.slice(0, 120)}` : ''}`
          )
        }
        await rm(path, { force: true })
      }
    }
  } finally {
    await emulator.close()
    await rm(dir, { recursive: true, force: true })
  }
  return rows
}
