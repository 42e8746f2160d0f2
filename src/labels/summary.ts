import { MAX_SUMMARY_ROWS, andMore, codeCell } from '../runner/markdown.js'
import type { RunResult } from '../shared/result.js'
import { leadTimeLine } from './lead-time.js'

/** A run with only labels to apply is titled by what it did to them, never "Deployment recorded". */
export function labelsTitle(result: RunResult): string {
  if (result.failures.length === 0) return 'Labels applied'
  return result.labeled.length > 0 ? 'Labels applied in part' : 'Labels not applied'
}

/**
 * The job summary's labels: each issue and pull request with what was added and removed, then the
 * lead time of the merged pull requests among them (a dry run has it without the table).
 */
export function labelsSection(result: RunResult): string[] {
  const lead = leadTimeLine(result.leadTime)
  return [...labeledTable(result), ...backportLines(result), ...(lead ? [lead, ''] : [])]
}

/** Which labeled pull request is a backport of which (its original is labeled with it). */
function backportLines(result: RunResult): string[] {
  const pairs = result.backports ?? []
  if (pairs.length === 0) return []
  const shown = pairs.slice(0, MAX_SUMMARY_ROWS).map(b => `#${b.number} of #${b.of}`)
  const more =
    pairs.length > MAX_SUMMARY_ROWS ? `, ${andMore(pairs.length - MAX_SUMMARY_ROWS)}` : ''
  return [`Backports (each original labeled with it): ${shown.join(', ')}${more}.`, '']
}

function labeledTable(result: RunResult): string[] {
  if (result.labeled.length === 0) return []
  const out = [
    `### Labeled (${result.labeled.length})`,
    '',
    '| Issue / pull request | Added | Removed |',
    '|---|---|---|'
  ]
  const names = (list: string[]) =>
    list.length > 0 ? list.map(n => codeCell(n)).join(', ') : 'already done'
  for (const l of result.labeled.slice(0, MAX_SUMMARY_ROWS)) {
    // What this run took off; what it found already gone (someone else's removal) said apart.
    const removed = [
      ...(l.removed.length > 0 ? [names(l.removed)] : []),
      ...(l.gone?.length ? [`${names(l.gone)} already gone`] : [])
    ]
    out.push(
      `| #${l.number} | ${names(l.added)} | ${removed.length > 0 ? removed.join('; ') : '-'} |`
    )
  }
  if (result.labeled.length > MAX_SUMMARY_ROWS)
    out.push('', `${andMore(result.labeled.length - MAX_SUMMARY_ROWS)}.`)
  out.push('')
  return out
}
