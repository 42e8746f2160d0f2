import { fitSummary, type FittedOutputs } from './output-budget.js'
import { describeCuts } from './outputs.js'
import type { Inputs } from './parse-inputs.js'
import type { LabelChange, PreviewRequest, RunResult, StepFailure } from '../shared/result.js'
import { clusterSection, decommissionedSection } from '../cluster/summary.js'
import { NOTHING_TO_LABEL, labelsSection, labelsTitle, nothingToLabel } from '../labels/summary.js'
import {
  MAX_SUMMARY_ROWS,
  cell,
  code,
  codeCell,
  firstRows,
  inline,
  moreInOutput,
  stepWords
} from '../runner/markdown.js'
import { recordsSection, whatAndWhere, type SummaryAbout } from '../records/summary.js'

export { describeCuts, fittedOutputs, toOutputs } from './outputs.js'
export type { SummaryAbout } from '../records/summary.js'

/** What the summary says the run was about, from its inputs: the artifact, where it went. */
export function aboutRun(inputs: Inputs): SummaryAbout {
  const { connection, artifact, deployment, storage, cluster, labels } = inputs
  return {
    org: connection.org,
    ...(artifact ? { artifact } : {}),
    ...(deployment
      ? {
          deployment: {
            environment: deployment.logicalEnvironment,
            physicalEnvironment: deployment.physicalEnvironment,
            cluster: deployment.cluster,
            name: deployment.deploymentName
          }
        }
      : {}),
    ...(storage ? { storage: { registryUrl: storage.registryUrl } } : {}),
    ...(cluster
      ? {
          cluster: {
            name: cluster.cluster,
            environment: cluster.logicalEnvironment,
            physicalEnvironment: cluster.physicalEnvironment,
            items: cluster.items
          }
        }
      : {}),
    ...(labels
      ? {
          repository: connection.repository,
          labels: { add: labels.labels, remove: labels.removeLabels }
        }
      : {})
  }
}

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
 * The summary's title, true of the outcome: recorded, recorded in part (something was written,
 * something failed or was skipped), nothing recorded, previewed (a dry run), cancelled; a run of
 * labels alone is titled by its labels.
 */
export function summaryTitle(result: RunResult, about: SummaryAbout): string {
  if (result.cancelled)
    return `Cancelled (${result.cancelled}): ${wroteBeforeCancel(result) ? 'recorded in part' : 'nothing was written'}`
  if (result.dryRun)
    return `Dry run: ${result.failures.length > 0 ? 'previewed in part' : 'previewed'}, nothing was written`
  if (result.labelsOnly) return labelsTitle(result)
  // A cluster with no deployments (`allow-empty-cluster: true`) sends nothing: nothing recorded.
  if (result.requests.writes === 0 && !somethingRecorded(result, about)) return 'Nothing recorded'
  if (result.failures.length === 0 && result.deploymentErrors.length === 0)
    return 'Deployment recorded'
  return somethingRecorded(result, about) ? 'Deployment recorded in part' : 'Nothing recorded'
}

/** Done before a cancel, and a write among it: an issue found already labeled is done, not written. */
function wroteBeforeCancel(result: RunResult): boolean {
  return result.done.length > 0 && result.requests.writes > 0
}

/** Whether any record was written (a skipped cluster deployment is not), or any label changed. */
function somethingRecorded(result: RunResult, about: SummaryAbout): boolean {
  const clusterJobRecorded =
    result.jobStatus === 'completed' &&
    result.deploymentErrors.length < (about.cluster?.items.length ?? 0)
  return (
    result.storageRecords.length > 0 ||
    result.deploymentRecords.length > 0 ||
    result.noRecordReturned.length > 0 ||
    clusterJobRecorded ||
    result.labeled.some(l => l.added.length > 0 || l.removed.length > 0)
  )
}

/**
 * Markdown for the job summary, within GitHub's 1 MiB; `fitted` says which outputs were cut. The
 * title, what and where, a cancel, the failures with their fixes and the cuts are the run's; each
 * job renders its own section. Text the step does not own goes through markdown.ts.
 */
export function renderSummary(
  result: RunResult,
  about: SummaryAbout | string,
  fitted: Pick<FittedOutputs, 'cut' | 'total'> = { cut: {}, total: {} }
): string {
  if (typeof about === 'string') about = { org: about }
  const out: string[] = [`## ${summaryTitle(result, about)}`, '', ...whatAndWhere(result, about)]
  if (result.cancelled) {
    out.push(
      `The run was cancelled (${result.cancelled}) and stopped at the next safe point.`,
      '',
      ...(result.done.length > 0
        ? [
            wroteBeforeCancel(result)
              ? 'Written before the cancel:'
              : 'Done before the cancel (no write was sent):',
            ...firstRows(result.done, d => `- ${inline(d)}`),
            ''
          ]
        : []),
      'Not written:',
      ...firstRows(
        result.failures,
        f => `- ${inline(f.what)}: ${inline(f.message.split('\n')[0] ?? '')}`,
        'in the `failed` output and the log'
      ),
      ...firstRows(result.notAttempted, s => `- ${inline(s)}: not attempted`),
      ''
    )
  }

  if (about.cluster?.items.length === 0 && !result.dryRun)
    out.push(
      `Cluster ${code(about.cluster.name)} has no deployments to record: nothing was sent.`,
      ''
    )
  if (result.dryRun) out.push(...previewSection(result))
  else out.push(...recordsSection(result, about), ...clusterSection(result))
  out.push(...decommissionedSection(result), ...labelsSection(result))
  if (about.labels && nothingToLabel(result)) out.push(NOTHING_TO_LABEL, '')

  if (result.failures.length > 0 && !result.cancelled) {
    out.push(
      `### Failed (${result.failures.length})`,
      '',
      ...firstRows(result.failures, failureLine, 'in the `failed` output and the log'),
      ...firstRows(
        result.notAttempted,
        s => `- not attempted: ${inline(s)} (an earlier failure would have repeated for it)`
      ),
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

/**
 * One failure: what, the first line of the message, and what to do about it: the hint the
 * service's answer gave (a permission, a target), or where the whole message is.
 */
function failureLine(f: StepFailure): string {
  const first = (f.message.split('\n')[0] ?? '').replace(/\.$/, '')
  const fix = fixOf(f)
  return `- **${inline(f.what)}**: ${inline(first)}.${fix ? ` Fix: ${stepWords(fix)}` : ''}`
}

/** What to do: the hint, a failed or silent service, or where the rest of a longer message is. */
function fixOf(f: StepFailure): string | undefined {
  if (f.hint) return f.hint
  const status = f.request?.status
  if (f.request && (status === undefined || status >= 500))
    return 'the service failed or did not answer (after `max-retries` retries): run the step again.'
  if (f.message.includes('\n')) return 'the whole message is in the log and the `failed` output.'
  return undefined
}

function previewSection(result: RunResult): string[] {
  if (result.preview.length === 0) return []
  const out = ['| Would send | Path | Effect |', '|---|---|---|']
  for (const p of result.preview.slice(0, MAX_SUMMARY_ROWS))
    out.push(`| ${p.method} | ${codeCell(p.path)} | ${effectOf(p)} |`)
  out.push(...moreInOutput(result.preview.length, 'planned', true), '')
  return out
}

function effectOf(p: PreviewRequest): string {
  if (p.records) return `${p.records.length} deployments: ${countEffects(p.records)}`
  if (p.labels) return labelEffect(p.labels)
  return p.effect ?? 'create or update (not read)'
}

/** `add `deployed`, `qa` to pull request #12`: what a label write would change. */
function labelEffect(change: LabelChange): string {
  const names = change.names.map(n => codeCell(n)).join(', ')
  const target = change.target
    ? ` ${change.action === 'remove' ? 'from' : 'to'} ${cell(change.target)}`
    : ''
  if (change.action === 'create') return `create label ${names}`
  if (change.action === 'update') return `update label ${names}`
  return `${change.action} ${names}${target}`
}

function countEffects(records: Array<{ effect: string }>): string {
  const counts = new Map<string, number>()
  for (const r of records) counts.set(r.effect, (counts.get(r.effect) ?? 0) + 1)
  // the step's own words: create, update, unknown (not read)
  return [...counts]
    .map(([effect, n]) => `${n} ${effect === 'unknown' ? 'unknown (not read)' : effect}`)
    .join(', ')
}

function indent(text: string): string {
  return text
    .split('\n')
    .map(line => `  ${line}`)
    .join('\n')
}
