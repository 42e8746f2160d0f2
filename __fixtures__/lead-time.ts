/**
 * What the lead-time tests through the bundled action share: the deployment's time, the step's
 * clock pinned to it (__fixtures__/pinned-clock.mjs), GitHub's spelling of a merge that long
 * before, and the seed of pull requests squash-merged one after another.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { SeedCommit, SeedData } from '../emulator/index.js'
import { projectRoot } from '../scripts/run-action.js'

export const REPO = 'acme/web'
export const LABEL = 'deployed:production'
export const DEPLOYED = Date.UTC(2026, 10, 22, 12, 0, 0)
export const HOUR = 3_600
export const DAY = 86_400

/** GitHub's spelling of a time: whole seconds, `Z`. */
export const mergedBefore = (seconds: number) =>
  new Date(DEPLOYED - seconds * 1000).toISOString().replace('.000Z', 'Z')

/** The step's environment that starts it with the machine's clock pinned to DEPLOYED. */
export const pinnedClock = {
  NODE_OPTIONS: `--import ${pathToFileURL(join(projectRoot(), '__fixtures__', 'pinned-clock.mjs')).href}`,
  PINNED_CLOCK_MS: String(DEPLOYED)
}

/** a sha whose short form shows `n` */
export const hex = (n: number) => n.toString(16).padStart(4, '0').repeat(10)

/**
 * The seed of `pulls` (number, merged how long before DEPLOYED) squash-merged in order: commit
 * Start (hex(1)), then one commit each (hex(2), …), then `after`; the label exists.
 */
export function squashMerged(pulls: Array<[number, number]>, after: SeedCommit[] = []): SeedData {
  const commits: SeedCommit[] = [{ sha: hex(1), message: 'Start' }]
  pulls.forEach(([number], i) =>
    commits.push({ sha: hex(i + 2), message: `Change (#${number})`, pulls: [number] })
  )
  return {
    labels: { [REPO]: [{ name: LABEL, color: '0e8a16' }] },
    pulls: { [REPO]: pulls.map(([number, ago]) => ({ number, merged_at: mergedBefore(ago) })) },
    commits: { [REPO]: [...commits, ...after] }
  }
}
