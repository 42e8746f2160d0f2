/**
 * The bench's cold-start table: process start to exit (or to the first request) of bare Node,
 * actions/labeler's bundle, ours and the same source built with @vercel/ncc, interleaved.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import type { Emulator } from '../emulator/index.js'
import { projectRoot, runAction } from '../scripts/run-action.js'

const root = projectRoot()
/** How to get the cold-start yardstick when it is missing. */
const LABELER_FETCH =
  'curl -fsSL https://raw.githubusercontent.com/actions/labeler/v7.0.0/dist/index.js -o .tmp/labeler-v7-dist.mjs'

export interface ColdStartOptions {
  /** the Node that runs every command */
  node: string
  /** 5 rounds instead of 21 */
  quick: boolean
  token: string
  digest: string
  /** --labeler: the yardstick's bundle */
  labeler?: string
}

export interface ColdStartRow {
  name: string
  ms: number[]
  median: number
}

/**
 * Process start to exit (or to the first request), each command in turn so that a drift of the
 * machine's speed hits them alike: bare Node, labeler's bundle stopping on its missing inputs,
 * ours stopping on an input error, ours to the first request of a single record.
 */
export async function coldStart(
  emulator: Emulator,
  dir: string,
  ncc: string | undefined,
  options: ColdStartOptions
): Promise<ColdStartRow[]> {
  const { node, quick, token: TOKEN, digest: DIGEST } = options
  const runs = quick ? 5 : 21
  const labeler = labelerBundle(options.labeler)
  const env = {
    GITHUB_REPOSITORY: 'acme/web',
    GITHUB_API_URL: emulator.url,
    GITHUB_EVENT_NAME: 'workflow_dispatch',
    GITHUB_WORKSPACE: dir
  }
  const rows: Record<string, number[]> = {
    'node -e 0': [],
    ...(existsSync(labeler) ? { 'labeler v7 bundle, start to exit (no inputs)': [] } : {}),
    'ours, start to exit on an input error': [],
    'ours, start to first request (single record)': [],
    ...(ncc
      ? {
          'ncc, start to exit on an input error': [],
          'ncc, start to first request (single record)': []
        }
      : {})
  }
  for (let i = 0; i < runs; i++) {
    rows['node -e 0']?.push(await timeProcess(node, ['-e', '0'], dir))
    rows['labeler v7 bundle, start to exit (no inputs)']?.push(
      await timeProcess(node, [labeler], dir)
    )
    const bad = await runAction(
      { token: TOKEN, digest: 'sha512:nope', environment: 'production' },
      env,
      { node }
    )
    rows['ours, start to exit on an input error']?.push(bad.durationMs)
    emulator.reset()
    const single = await runAction(
      { token: TOKEN, digest: DIGEST, name: 'ghcr.io/acme/web', environment: 'production' },
      env,
      { node }
    )
    const first = emulator.requests[0]
    if (first)
      rows['ours, start to first request (single record)']?.push(first.arrivedAt - single.spawnedAt)
    if (ncc) await nccColdStart(emulator, env, ncc, rows, options)
  }
  if (!existsSync(labeler))
    console.error(
      `warning: no labeler bundle (looked for ${labeler}), so the cold-start table has no yardstick. ` +
        `It is actions/labeler v7.0.0's dist/index.js (commit bf12e9b, MIT): ${LABELER_FETCH}, then run the bench again ` +
        '(or pass --labeler PATH).'
    )
  return Object.entries(rows).map(([name, ms]) => {
    const sorted = [...ms].sort((a, b) => a - b)
    return { name, ms, median: sorted[Math.floor(sorted.length / 2)] ?? NaN }
  })
}

/** Wall time of one process from spawn to exit, its output thrown away. */
async function timeProcess(command: string, argv: string[], cwd: string): Promise<number> {
  const started = performance.now()
  await new Promise<void>((done, fail) => {
    const child = spawn(command, argv, {
      cwd,
      env: { PATH: process.env['PATH'] ?? '' },
      stdio: 'ignore'
    })
    child.on('error', fail)
    child.on('close', () => done())
  })
  return performance.now() - started
}

/** --labeler, else the shared anchors beside the checkout, else .tmp/ where LABELER_FETCH puts it. */
function labelerBundle(given: string | undefined): string {
  if (given) return resolve(process.env['INIT_CWD'] ?? process.cwd(), given)
  const candidates = [
    join(root, '../shared/anchors/labeler-v7-dist.mjs'),
    join(root, '.tmp/labeler-v7-dist.mjs')
  ]
  return candidates.find(path => existsSync(path)) ?? (candidates[1] as string)
}

/**
 * The yardstick for the bundler: the same source built with @vercel/ncc (what the design card
 * named, and what most JavaScript actions use) into the bench's temporary folder, at every bench
 * run, so the choice of esbuild is measured again each time. Undefined (and a warning) when ncc
 * fails: the table then has no ncc rows.
 */
export async function nccBuild(dir: string): Promise<string | undefined> {
  const out = join(dir, 'ncc')
  const cli = join(root, 'node_modules/@vercel/ncc/dist/ncc/cli.js')
  const code = await new Promise<number | null>(done => {
    const child = spawn(process.execPath, [cli, 'build', 'src/index.ts', '-o', out, '-q'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit']
    })
    child.on('error', () => done(null))
    child.on('close', done)
  })
  const entry = join(out, 'index.js')
  if (code === 0 && existsSync(entry)) {
    let bytes = 0
    for (const file of await readdir(out)) bytes += (await stat(join(out, file))).size
    console.log(`ncc build of the same source: ${(bytes / 1024).toFixed(0)} KiB in all`)
    return entry
  }
  console.error(
    `warning: the ncc build failed (exit ${code}): the cold-start table has no ncc rows`
  )
  return undefined
}

/** One interleaved round of the ncc build: an input error, then a single record's first request. */
async function nccColdStart(
  emulator: Emulator,
  env: Record<string, string>,
  entry: string,
  rows: Record<string, number[]>,
  { node, token: TOKEN, digest: DIGEST }: ColdStartOptions
): Promise<void> {
  const bad = await runAction(
    { token: TOKEN, digest: 'sha512:nope', environment: 'production' },
    env,
    { node, entry }
  )
  rows['ncc, start to exit on an input error']?.push(bad.durationMs)
  emulator.reset()
  const single = await runAction(
    { token: TOKEN, digest: DIGEST, name: 'ghcr.io/acme/web', environment: 'production' },
    env,
    { node, entry }
  )
  const first = emulator.requests[0]
  if (first)
    rows['ncc, start to first request (single record)']?.push(first.arrivedAt - single.spawnedAt)
}
