import { MAX_SUMMARY_ROWS, cell, moreInOutput } from '../runner/markdown.js'
import { shortDigest } from '../shared/text.js'
import type { RunResult } from '../shared/result.js'

/** The job summary's cluster part after a write: the job's status and what was not recorded. */
export function clusterSection(result: RunResult): string[] {
  const out: string[] = []
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
    out.push(...moreInOutput(result.deploymentErrors.length, 'errors'), '')
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
          `| ${cell(d.deployment_name)} | ${cell(d.name)}${d.version ? ` ${cell(d.version)}` : ''} | ${cell(shortDigest(d.digest))} |`
      ),
    ...moreInOutput(result.decommissioned.length, 'decommissioned'),
    ''
  ]
}
