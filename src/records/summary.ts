import { MAX_SUMMARY_ROWS, andMore, cell } from '../runner/markdown.js'
import { shortDigest } from '../shared/text.js'
import type { RunResult } from '../shared/result.js'

/** The job summary's records: the table of what was written, and writes answered without one. */
export function recordsSection(result: RunResult, org: string): string[] {
  const out: string[] = []
  const rows: string[] = []
  for (const r of result.storageRecords) {
    rows.push(
      `| Storage record | ${cell(String(r.name ?? ''))} | ${cell(String(r.registry_url ?? ''))}${r.repository ? ` / ${cell(r.repository)}` : ''} | ${cell(String(r.status ?? ''))} | ${r.id ?? ''} |`
    )
  }
  for (const r of result.deploymentRecords) {
    const where = [r.logical_environment, r.physical_environment, r.cluster]
      .filter(Boolean)
      .join(' / ')
    rows.push(
      `| Deployment record | ${cell(String(r.deployment_name ?? ''))} | ${cell(where)} | ${cell(shortDigest(r.digest ?? undefined))} | ${r.id ?? ''} |`
    )
  }
  const shown = rows.slice(0, MAX_SUMMARY_ROWS)
  if (shown.length > 0) {
    out.push(`Organization: **${cell(org)}**`, '')
    out.push(
      '| Record | Name | Where | Status / digest | Id |',
      '|---|---|---|---|---|',
      ...shown,
      ''
    )
    if (rows.length > shown.length)
      out.push(`${andMore(rows.length - shown.length, 'records')}.`, '')
  }
  for (const kind of result.noRecordReturned) {
    out.push(
      `The service accepted the ${kind.replace('-', ' ')} write but returned no record, ` +
        'although `return_records` was sent: it has no id here nor in the outputs ' +
        '(`no-record-returned` names it).',
      ''
    )
  }
  return out
}
