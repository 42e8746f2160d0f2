import { fitSummary, type FittedOutputs } from './output-budget.js'
import { describeCuts } from './outputs.js'
import type { RunResult } from './result.js'

export { describeCuts, fittedOutputs, toOutputs } from './outputs.js'

/** The message the step fails with: what was done, what failed, what was not tried. */
export function failureReport(result: RunResult): string {
  const lines = result.cancelled
    ? [
        `The run was cancelled (${result.cancelled}) and stopped at a safe point: what is listed as done ` +
          'was written, the rest was not (a write cut in flight says so).'
      ]
    : []
  if (result.failures.length > 0)
    lines.push(`${result.failures.length} of the step's calls failed.`)
  for (const f of result.failures) lines.push(`Failed: ${f.what}\n${indent(f.message)}`)
  for (const s of result.notAttempted) lines.push(`Not attempted: ${s}`)
  for (const d of result.done) lines.push(`Done: ${d}`)
  return lines.join('\n')
}

/** Markdown for the job summary, within GitHub's 1 MiB; `fitted` says which outputs were cut. */
export function renderSummary(
  result: RunResult,
  org: string,
  fitted: Pick<FittedOutputs, 'cut' | 'total'> = { cut: {}, total: {} }
): string {
  const out: string[] = []
  const title = result.cancelled
    ? `Cancelled (${result.cancelled}): ${result.done.length > 0 ? 'recorded in part' : 'nothing was written'}`
    : result.dryRun
      ? 'Dry run: nothing was written'
      : result.labelsOnly
        ? labelsTitle(result)
        : result.failures.length > 0
          ? 'Deployment recorded in part'
          : 'Deployment recorded'
  out.push(`## ${title}`, '')
  if (result.cancelled) {
    out.push(
      `The run was cancelled (${result.cancelled}) and stopped at the next safe point.`,
      '',
      ...(result.done.length > 0
        ? ['Written before the cancel:', ...firstRows(result.done, d => `- ${cell(d)}`), '']
        : []),
      'Not written:',
      ...firstRows(
        result.failures,
        f => `- ${cell(f.what)}: ${cell(f.message.split('\n')[0] ?? '')}`
      ),
      ...firstRows(result.notAttempted, s => `- ${cell(s)}: not attempted`),
      ''
    )
  }

  if (result.dryRun) {
    if (result.preview.length > 0) {
      out.push('| Would send | Path | Effect |', '|---|---|---|')
      for (const p of result.preview) {
        const effect = p.records
          ? `${p.records.length} deployments: ${countEffects(p.records)}`
          : (p.effect ?? 'unknown')
        out.push(`| ${p.method} | \`${cell(p.path)}\` | ${effect} |`)
      }
      out.push('')
    }
  } else {
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
        out.push(`... and ${rows.length - shown.length} more records.`, '')
    }
    for (const kind of result.noRecordReturned) {
      out.push(
        `The service accepted the ${kind.replace('-', ' ')} write but returned no record, ` +
          'although `return_records` was sent: it has no id here nor in the outputs ' +
          '(`no-record-returned` names it).',
        ''
      )
    }
    if (result.jobId !== undefined) {
      out.push(`Cluster job **${result.jobId}**: ${cell(result.jobStatus ?? 'unknown')}.`, '')
    }
    if (result.deploymentErrors.length > 0) {
      out.push(
        `### Not recorded (${result.deploymentErrors.length})`,
        '',
        '| Deployment | Artifact | Cause |',
        '|---|---|---|'
      )
      for (const e of result.deploymentErrors.slice(0, MAX_SUMMARY_ROWS)) {
        const d = e.deployment ?? {}
        out.push(
          `| ${cell(d.deployment_name ?? '')} | ${cell(d.name ?? e.name ?? '')} | ${cell(e.cause ?? '')} |`
        )
      }
      if (result.deploymentErrors.length > MAX_SUMMARY_ROWS) {
        const more = result.deploymentErrors.length - MAX_SUMMARY_ROWS
        out.push(
          '',
          `... and ${more} more in the \`errors\` output (\`truncated\` counts any it could not hold).`
        )
      }
      out.push('')
    }
  }

  if (result.decommissioned.length > 0) {
    const title = result.dryRun ? 'Would decommission' : 'Decommissioned'
    out.push(
      `### ${title} (${result.decommissioned.length})`,
      '',
      '| Deployment | Artifact | Digest |',
      '|---|---|---|',
      ...result.decommissioned
        .slice(0, MAX_SUMMARY_ROWS)
        .map(
          d =>
            `| ${cell(d.deployment_name)} | ${cell(d.name)}${d.version ? ` ${cell(d.version)}` : ''} | ${cell(shortDigest(d.digest))} |`
        )
    )
    if (result.decommissioned.length > MAX_SUMMARY_ROWS) {
      const more = result.decommissioned.length - MAX_SUMMARY_ROWS
      out.push(
        '',
        `... and ${more} more in the \`decommissioned\` output (\`truncated\` counts any it could not hold).`
      )
    }
    out.push('')
  }

  if (result.labeled.length > 0) {
    out.push(
      `### Labeled (${result.labeled.length})`,
      '',
      '| Issue / pull request | Added | Removed |',
      '|---|---|---|'
    )
    for (const l of result.labeled.slice(0, MAX_SUMMARY_ROWS)) {
      const names = (list: string[]) =>
        list.length > 0 ? list.map(n => `\`${cell(n)}\``).join(', ') : 'already done'
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
      out.push('', `... and ${result.labeled.length - MAX_SUMMARY_ROWS} more.`)
    out.push('')
  }

  if (result.failures.length > 0 && !result.cancelled) {
    out.push('### Failed', '')
    out.push(
      ...firstRows(
        result.failures,
        f => `- **${cell(f.what)}**: ${cell(f.message.split('\n')[0] ?? '')}`
      ),
      ...firstRows(result.notAttempted, s => `- not attempted: ${cell(s)}`),
      ''
    )
  }
  const cuts = describeCuts(fitted)
  if (cuts.length > 0) {
    out.push("### Outputs cut to GitHub's limits", '', ...cuts.map(c => `- ${cell(c)}.`), '')
  }
  out.push(`${result.requests.reads} reads and ${result.requests.writes} writes were sent.`)
  return fitSummary(out.join('\n') + '\n')
}

/** The first MAX_SUMMARY_ROWS lines of a list, and a count of the rest (the log has them all). */
function firstRows<T>(items: readonly T[], line: (item: T) => string): string[] {
  const rows = items.slice(0, MAX_SUMMARY_ROWS).map(line)
  if (items.length > MAX_SUMMARY_ROWS)
    rows.push(`- ... and ${items.length - MAX_SUMMARY_ROWS} more (the log has them all)`)
  return rows
}

/** A run with only labels to apply is titled by what it did to them, never "Deployment recorded". */
function labelsTitle(result: RunResult): string {
  if (result.failures.length === 0) return 'Labels applied'
  return result.labeled.length > 0 ? 'Labels applied in part' : 'Labels not applied'
}

/** A summary is for reading: a 5000-deployment cluster shows its first rows and a count. */
export const MAX_SUMMARY_ROWS = 100

function countEffects(records: Array<{ effect: string }>): string {
  const counts = new Map<string, number>()
  for (const r of records) counts.set(r.effect, (counts.get(r.effect) ?? 0) + 1)
  return [...counts].map(([effect, n]) => `${n} ${effect}`).join(', ')
}

function shortDigest(digest: string | undefined): string {
  return digest ? `${digest.slice(0, 19)}…` : ''
}

/** Keeps a value inside its table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
}

function indent(text: string): string {
  return text
    .split('\n')
    .map(line => `  ${line}`)
    .join('\n')
}
