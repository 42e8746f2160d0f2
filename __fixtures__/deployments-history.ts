/**
 * The repository `since: previous-deployment` is tried on (discovery-deployments and
 * previous-deployment-shapes): no tags, five pull requests merged in a line, and the run id
 * scripts/run-action.ts gives, which a deployment status names when this run wrote it.
 */
import type { SeedPull } from '../emulator/index.js'
import type { HistoryCommit } from './history.js'

export const REPO = 'acme/web'
/** run-action's GITHUB_RUN_ID */
export const RUN = '4242'
export const runUrl = (run: string) => `https://github.com/${REPO}/actions/runs/${run}/job/77`

export const HISTORY: HistoryCommit[] = [
  { id: 'start', message: 'Start', parents: [] },
  { id: 'm1', message: 'Add search (#1)', parents: ['start'] },
  { id: 'm2', message: 'Add export (#2)', parents: ['m1'] },
  { id: 'm3', message: 'Fix the crash (#3)', parents: ['m2'] },
  { id: 'm4', message: 'Add filters (#4)', parents: ['m3'] },
  { id: 'm5', message: 'Speed up the start (#5)', parents: ['m4'] }
]
export const PULLS: SeedPull[] = [1, 2, 3, 4, 5].map(number => ({ number }))
