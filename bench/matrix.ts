/**
 * The bench's `matrix-10` scenario (issue 22): a matrix of 10 runs at once on one token, each
 * recording its own cluster's deployment record and labeling the same pull requests. Wall time is
 * the whole matrix's; writes sent (the emulator's count, every run together) against writes needed
 * (10 records, one label POST per pull request): the amplification README's "Many jobs at once"
 * avoids by labeling in one job after the matrix.
 */
import type { Emulator } from '../emulator/index.js'
import { runAction } from '../scripts/run-action.js'

export interface MatrixSample {
  wallMs: number
  cpuMs: number
  maxRssMb: number
  reads: number
  writes: number
  writesNeeded: number
  failedRuns: number
  code: number | null
}

export async function matrix10(
  emulator: Emulator,
  run: { dir: string; node: string; token: string; digest: string; pulls: number[] }
): Promise<MatrixSample> {
  const RUNS = 10
  emulator.reset()
  const env = {
    GITHUB_REPOSITORY: 'acme/web',
    GITHUB_API_URL: emulator.url,
    GITHUB_EVENT_NAME: 'workflow_dispatch',
    GITHUB_SHA: 'f'.repeat(40),
    GITHUB_WORKSPACE: run.dir
  }
  const started = performance.now()
  const runs = await Promise.all(
    Array.from({ length: RUNS }, (_, i) =>
      runAction(
        {
          token: run.token,
          digest: `ghcr.io/acme/web@${run.digest}`,
          environment: 'production',
          cluster: `prod-${i + 1}`,
          labels: 'deployed:production',
          'pull-requests': run.pulls.join(',')
        },
        env,
        { node: run.node }
      )
    )
  )
  const wallMs = performance.now() - started
  const writes = emulator.requests.filter(r => r.method !== 'GET').length
  const reads = emulator.requests.length - writes
  const writesNeeded = RUNS + run.pulls.length
  const failedRuns = runs.filter(r => r.code !== 0).length
  console.log(
    `matrix-${RUNS}: ${RUNS} runs at once, ${(wallMs / 1000).toFixed(1)} s, ${writes} writes sent for ` +
      `${writesNeeded} needed (x${(writes / writesNeeded).toFixed(1)}), ${failedRuns} runs failed`
  )
  return {
    wallMs,
    cpuMs: NaN,
    maxRssMb: NaN,
    reads,
    writes,
    writesNeeded,
    failedRuns,
    code: failedRuns === 0 ? 0 : 1
  }
}
