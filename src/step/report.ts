import { fitSummary, type FittedOutputs } from './output-budget.js'
import { describeCuts } from './outputs.js'
import type { RunResult } from '../shared/result.js'
import { clusterSection, decommissionedSection } from '../cluster/summary.js'
import { labelsSection, labelsTitle } from '../labels/summary.js'
import { cell, codeCell, firstRows } from '../runner/markdown.js'
import { recordsSection } from '../records/summary.js'

export { describeCuts, fittedOutputs, toOutputs } from './outputs.js'

/** The message the step fails with: what was done, what failed, what was not tried. */
export function failureReport(result: RunResult): string {
  const lines = result.cancelled
    ? [
        `The run was cancelled (${result.cancelled}) and stopped at a safe point: what is listed as done ` +
          'was written, the rest was not (a write cut in flight says so).'
      ]
    : []
  // What was refused or failed, told apart from what was never sent (an earlier failure stopped it).
  const calls = result.failures.filter(f => f.rerun === undefined)
  const unsent = calls.filter(f => f.notSent).length
  const failed = calls.length - unsent
  if (failed > 0 || unsent > 0)
    lines.push(
      [
        ...(failed > 0 ? [`${failed} of the step's calls failed`] : []),
        ...(unsent > 0 ? [`${unsent} ${unsent === 1 ? 'was' : 'were'} not sent`] : [])
      ].join('; ') + '.'
    )
  for (const f of result.failures) lines.push(`Failed: ${f.what}\n${indent(f.message)}`)
  for (const s of result.notAttempted) lines.push(`Not attempted: ${s}`)
  for (const d of result.done) lines.push(`Done: ${d}`)
  return lines.join('\n')
}

/**
 * Markdown for the job summary, within GitHub's 1 MiB; `fitted` says which outputs were cut. The
 * title, a cancel, the failures and the cuts are the run's; each job renders its own section.
 */
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

  if (result.dryRun) out.push(...previewSection(result))
  else out.push(...recordsSection(result, org), ...clusterSection(result))
  out.push(...decommissionedSection(result), ...labelsSection(result))

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
    // The sentences are the step's own (describeCuts): their backticks are code.
    out.push("### Outputs cut to GitHub's limits", '', ...cuts.map(c => `- ${c}.`), '')
  }
  out.push(`${result.requests.reads} reads and ${result.requests.writes} writes were sent.`)
  return fitSummary(out.join('\n') + '\n')
}

function previewSection(result: RunResult): string[] {
  if (result.preview.length === 0) return []
  const out = ['| Would send | Path | Effect |', '|---|---|---|']
  for (const p of result.preview) {
    const effect = p.records
      ? `${p.records.length} deployments: ${countEffects(p.records)}`
      : (p.effect ?? 'unknown')
    out.push(`| ${p.method} | ${codeCell(p.path)} | ${effect} |`)
  }
  out.push('')
  return out
}

function countEffects(records: Array<{ effect: string }>): string {
  const counts = new Map<string, number>()
  for (const r of records) counts.set(r.effect, (counts.get(r.effect) ?? 0) + 1)
  return [...counts].map(([effect, n]) => `${n} ${effect}`).join(', ')
}

function indent(text: string): string {
  return text
    .split('\n')
    .map(line => `  ${line}`)
    .join('\n')
}
