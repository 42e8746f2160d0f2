/**
 * The `labels under limits` scenarios (issue 44): N pull requests labeled (a read and a write
 * each) against the emulator enforcing GitHub's documented limits (80 content-creating requests a
 * minute, 500 an hour; 5,000 requests an hour for a user's token, 1,000 for a workflow's
 * GITHUB_TOKEN) on a clock SCALE times faster, by the bundled action and by an @octokit/core
 * script with the throttling and retry plugins (bench/octokit-limits.ts), both on that clock
 * (emulator/scaled-clock.mjs). Times are the scaled clock's, beside the floor the limits impose;
 * "lost" is what the service does not hold at the end.
 */
import { join } from 'node:path'
import { scaledClockEnv, startEmulator, type Limits } from '../emulator/index.js'
import { projectRoot, runAction } from '../scripts/run-action.js'

export const SCALE = 120
const LABEL = 'deployed:production'
const HOUR = 3_600_000

export interface LimitsCase {
  name: string
  pulls: number
  requestsPerHour: number
  by: 'action' | 'octokit'
}

export interface LimitsSample {
  name: string
  by: 'action' | 'octokit'
  pulls: number
  requestsPerHour: number
  /** how many times faster than real the clock ran */
  scale: number
  /** scaled minutes from the process's start to its end */
  minutes: number
  floorMinutes: number
  ratio: number
  labeled: number
  lost: number
  reads: number
  writes: number
  refusedSecondary: number
  refusedPrimary: number
  /** the action's estimate line, when it logged one */
  estimate?: string
  realSeconds: number
  code: number | null
}

/**
 * The least time the documented limits allow for `pulls` writes, one a second, and 2 x `pulls`
 * requests: 500 writes in any hour (the rest wait for the window), and the primary quota's
 * fixed hours (`requestsPerHour` each, from the first request).
 */
export function floorMs(pulls: number, requestsPerHour: number): number {
  const hours = Math.floor((pulls - 1) / 500)
  const writes = hours * HOUR + (pulls - 1 - hours * 500) * 1000
  const requests = 2 * pulls
  const windows = Math.floor((requests - 1) / requestsPerHour)
  // In the last window: its share of the requests, at the writes' pace (a write per read).
  const last = requests - windows * requestsPerHour
  const quota = windows * HOUR + Math.max(0, last / 2 - 1) * 1000
  return Math.max(writes, quota)
}

export const LIMITS_CASES: LimitsCase[] = [
  { name: 'labels-600 under limits', pulls: 600, requestsPerHour: 5000, by: 'action' },
  { name: 'labels-600 under limits (octokit)', pulls: 600, requestsPerHour: 5000, by: 'octokit' },
  { name: 'labels-2000 under limits', pulls: 2000, requestsPerHour: 5000, by: 'action' },
  { name: 'labels-2000 under limits (octokit)', pulls: 2000, requestsPerHour: 5000, by: 'octokit' },
  { name: 'labels-600, GITHUB_TOKEN', pulls: 600, requestsPerHour: 1000, by: 'action' },
  { name: 'labels-600, GITHUB_TOKEN (octokit)', pulls: 600, requestsPerHour: 1000, by: 'octokit' }
]

export async function limitsBench(
  cases: LimitsCase[],
  run: { dir: string; node: string; token: string; scale?: number },
  report: (sample: LimitsSample) => void = () => {}
): Promise<LimitsSample[]> {
  const root = projectRoot()
  const samples: LimitsSample[] = []
  for (const c of cases) {
    const emulator = await startEmulator({
      tokens: { [run.token]: { permissions: 'all' } },
      limits: { clockScale: run.scale ?? SCALE, requestsPerHour: c.requestsPerHour },
      seed: {
        pulls: {
          'acme/web': Array.from({ length: c.pulls }, (_, i) => ({
            number: i + 1,
            title: `Change ${i + 1}`,
            merged: true
          }))
        }
      }
    })
    try {
      const limits = emulator.limits as Limits
      const env = {
        ...scaledClockEnv(join(root, 'emulator/scaled-clock.mjs'), limits),
        GITHUB_REPOSITORY: 'acme/web',
        GITHUB_API_URL: emulator.url,
        GITHUB_EVENT_NAME: 'workflow_dispatch',
        GITHUB_SHA: 'f'.repeat(40),
        GITHUB_WORKSPACE: run.dir,
        BENCH_API_URL: emulator.url,
        BENCH_TOKEN: run.token,
        BENCH_PULLS: String(c.pulls)
      }
      const inputs: Record<string, string> =
        c.by === 'action'
          ? {
              token: run.token,
              labels: LABEL,
              'pull-requests': Array.from({ length: c.pulls }, (_, i) => i + 1).join(',')
            }
          : {}
      const entry = c.by === 'octokit' ? join(root, 'build/bench/octokit-limits.js') : undefined
      const started = limits.now()
      const realStart = performance.now()
      const result = await runAction(inputs, env, { entry, node: run.node })
      const ms = limits.now() - started
      const issues = emulator.state.issues['acme/web'] ?? []
      const labeled = issues.filter(i => i.labels.includes(LABEL)).length
      const writes = emulator.requests.filter(r => r.method !== 'GET').length
      const floor = floorMs(c.pulls, c.requestsPerHour)
      const estimate = /Labels: \d+ writes and \d+ reads to send;[^\n]*/.exec(result.stdout)?.[0]
      const sample: LimitsSample = {
        name: c.name,
        by: c.by,
        pulls: c.pulls,
        requestsPerHour: c.requestsPerHour,
        scale: limits.scale,
        minutes: ms / 60_000,
        floorMinutes: floor / 60_000,
        ratio: ms / floor,
        labeled,
        lost: c.pulls - labeled,
        reads: emulator.requests.length - writes,
        writes,
        refusedSecondary: limits.refused.secondary,
        refusedPrimary: limits.refused.primary,
        ...(estimate ? { estimate } : {}),
        realSeconds: (performance.now() - realStart) / 1000,
        code: result.code
      }
      if (result.code !== 0)
        console.error(
          `${c.name}: exit ${result.code}\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-2000)}`
        )
      samples.push(sample)
      report(sample)
    } finally {
      await emulator.close()
    }
  }
  return samples
}

export function printLimits(samples: LimitsSample[]): void {
  for (const s of samples) {
    console.log(
      `  ${s.name.padEnd(40)} (${s.scale}x clock) ${s.minutes.toFixed(1).padStart(6)} min  floor ${s.floorMinutes.toFixed(1).padStart(6)}  ` +
        `x${s.ratio.toFixed(2)}  labeled ${s.labeled}/${s.pulls}, lost ${s.lost}  ` +
        `${s.reads} reads ${s.writes} writes, refused ${s.refusedSecondary} secondary ${s.refusedPrimary} primary  (${s.realSeconds.toFixed(0)} s real)`
    )
    if (s.estimate) console.log(`    estimate: ${s.estimate}`)
  }
}
