/**
 * Lead time for changes: for each merged pull request the run labeled (or would label), the time
 * from its merge to this deployment, and the median, 90th percentile and longest of them. The
 * deployment time is the step's clock when the run started; nothing is read for it.
 */
import type { LeadTime, ShippedPull } from '../shared/result.js'

/** A pull request the labels job found merged, with the `merged_at` the service answered. */
export interface MergedTarget {
  number: number
  mergedAt: string
}

export const NO_LEAD_TIME: LeadTime = {
  count: 0,
  median_seconds: null,
  p90_seconds: null,
  max_seconds: null,
  pull_requests: []
}

/**
 * The lead time of each pull request (whole seconds, a merge after the deployment's clock counted
 * as 0; an unreadable `merged_at` left out) and the statistics over them, in the order given.
 */
export function leadTimeOf(merged: readonly MergedTarget[], deployedAt: number): LeadTime {
  const seen = new Set<number>()
  const pulls: ShippedPull[] = []
  for (const { number, mergedAt } of merged) {
    const at = Date.parse(mergedAt)
    if (Number.isNaN(at) || seen.has(number)) continue
    seen.add(number)
    pulls.push({
      number,
      merged_at: mergedAt,
      seconds: Math.max(0, Math.floor((deployedAt - at) / 1000))
    })
  }
  if (pulls.length === 0) return NO_LEAD_TIME
  const sorted = pulls.map(p => p.seconds).sort((a, b) => a - b)
  return {
    count: pulls.length,
    median_seconds: nearestRank(sorted, 50),
    p90_seconds: nearestRank(sorted, 90),
    max_seconds: sorted[sorted.length - 1] as number,
    pull_requests: pulls
  }
}

/**
 * The nearest-rank percentile: the smallest value that at least `p` percent of the values are at
 * or below, i.e. the value at rank ceil(p/100 * n) counting from 1. Always one of the values; for
 * an even count the median is the lower of the two middle ones.
 */
export function nearestRank(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length))
  return sorted[rank - 1] as number
}

/** `2 d 4 h`, `5 h 12 min`, `40 min`, `35 s`: the two largest units, cut (not rounded) to whole ones. */
export function formatDuration(seconds: number): string {
  const units: Array<[string, number]> = [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
    ['s', 1]
  ]
  const first = units.findIndex(([, size]) => seconds >= size)
  if (first === -1) return '0 s'
  const [bigName, bigSize] = units[first] as [string, number]
  const big = Math.floor(seconds / bigSize)
  const next = units[first + 1]
  const small = next ? Math.floor((seconds - big * bigSize) / next[1]) : 0
  return next && small > 0 ? `${big} ${bigName} ${small} ${next[0]}` : `${big} ${bigName}`
}

/**
 * The summary's line: "Shipped 3 pull requests: lead time median 1 d, 90th percentile 3 d
 * (longest #12, 3 d)"; one pull request says its own. Nothing when none was merged.
 */
export function leadTimeLine(lead: LeadTime | undefined): string | undefined {
  if (!lead || lead.count === 0) return undefined
  const longest = lead.pull_requests.reduce((a, b) => (b.seconds > a.seconds ? b : a))
  if (lead.count === 1)
    return `Shipped 1 pull request: lead time ${formatDuration(longest.seconds)} (#${longest.number})`
  return (
    `Shipped ${lead.count} pull requests: lead time median ${formatDuration(lead.median_seconds ?? 0)}, ` +
    `90th percentile ${formatDuration(lead.p90_seconds ?? 0)} ` +
    `(longest #${longest.number}, ${formatDuration(longest.seconds)})`
  )
}
