import {
  MAX_SUMMARY_ROWS,
  code,
  codeCell,
  firstRows,
  inline,
  moreInOutput,
  stepWords
} from '../runner/markdown.js'
import { shortDigest } from '../shared/text.js'
import type { RunResult } from '../shared/result.js'
import { byCause, whatToDo } from './rejections.js'

/**
 * The job summary's cluster part after a write: the job's status, and what was not recorded:
 * each cause once, counted, with what to do about it, then each deployment.
 */
export function clusterSection(result: RunResult): string[] {
  const out: string[] = []
  if (result.jobId !== undefined) {
    out.push(
      `Cluster job **${inline(String(result.jobId))}**: ${inline(result.jobStatus ?? 'unknown')}.`,
      ''
    )
  }
  if (result.deploymentErrors.length > 0) {
    out.push(`### Not recorded (${result.deploymentErrors.length})`, '')
    // A service may give each deployment a cause of its own: the causes are a list cut like any.
    out.push(
      ...firstRows(
        [...byCause(result.deploymentErrors)],
        ([cause, group]) => `- ${group.length} ${code(cause)}: ${stepWords(whatToDo(cause))}`,
        'causes in the `errors` output and the log'
      )
    )
    out.push('', '| Deployment | Artifact | Cause |', '|---|---|---|')
    for (const e of result.deploymentErrors.slice(0, MAX_SUMMARY_ROWS)) {
      const d = e.deployment ?? {}
      out.push(
        `| ${codeCell(d.deployment_name ?? '')} | ${codeCell(d.name ?? e.name ?? '')} | ${codeCell(e.cause ?? '')} |`
      )
    }
    out.push(...moreInOutput(result.deploymentErrors.length, 'errors', true), '')
  }
  return out
}

/** Workloads the state file found gone: decommissioned, or in a dry run, would be. */
export function decommissionedSection(result: RunResult): string[] {
  if (result.decommissioned.length === 0) return []
  const title = result.dryRun ? 'Would decommission' : 'Decommissioned'
  return [
    `### ${title} (${result.decommissioned.length})`,
    '',
    '| Deployment | Artifact | Digest |',
    '|---|---|---|',
    ...result.decommissioned
      .slice(0, MAX_SUMMARY_ROWS)
      .map(
        d =>
          `| ${codeCell(d.deployment_name)} | ${codeCell(d.name)}${d.version ? ` ${codeCell(d.version)}` : ''} | ${codeCell(shortDigest(d.digest))} |`
      ),
    ...moreInOutput(result.decommissioned.length, 'decommissioned'),
    ''
  ]
}
