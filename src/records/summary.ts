import { MAX_SUMMARY_ROWS, cell, code, codeCell, moreInOutput } from '../runner/markdown.js'
import { shortDigest } from '../shared/text.js'
import type { RunResult } from '../shared/result.js'

/** What a run was about, as its inputs say: the summary's "what" and "where" (report.ts builds it). */
export interface SummaryAbout {
  org: string
  /** the artifact of the record(s), its name as given (`ghcr.io/acme/web`) */
  artifact?: { name: string; version?: string; digest: string }
  deployment?: {
    environment: string
    physicalEnvironment?: string
    cluster?: string
    name: string
  }
  storage?: { registryUrl: string }
  cluster?: {
    name: string
    environment: string
    physicalEnvironment?: string
    items: ReadonlyArray<{
      name: string
      deployment_name: string
      digest: string
      version?: string
    }>
  }
  /** the repository whose issues and pull requests get labels */
  repository?: { owner: string; name: string }
  labels?: { add: string[]; remove: string[] }
}

/** How many artifacts a cluster's "what" line names before "... and N more". */
const NAMED_ARTIFACTS = 5

/**
 * The summary's first lines, true at a glance: what (the artifact as given, its version, a short
 * digest; a cluster's count of deployments and artifacts; labels) and where (environment,
 * cluster, organization; the repository labeled).
 */
export function whatAndWhere(result: RunResult, about: SummaryAbout): string[] {
  const lines: string[] = []
  const { artifact, deployment, storage, cluster } = about
  if (artifact) {
    const version = artifact.version ? ` version ${code(artifact.version)}` : ''
    lines.push(
      `- What: ${code(artifact.name)}${version}, digest ${code(shortDigest(artifact.digest))}`
    )
  }
  if (cluster) {
    const artifacts = [...new Set(cluster.items.map(i => i.name))]
    const named = artifacts
      .slice(0, NAMED_ARTIFACTS)
      .map(n => code(n))
      .join(', ')
    const more =
      artifacts.length > NAMED_ARTIFACTS
        ? `, ... and ${artifacts.length - NAMED_ARTIFACTS} more (as the deployments given list them)`
        : ''
    lines.push(
      `- What: ${cluster.items.length} deployments of ${artifacts.length} ${artifacts.length === 1 ? 'artifact' : 'artifacts'}${artifacts.length > 0 ? `: ${named}${more}` : ''}`
    )
  }
  if (about.labels && (about.labels.add.length > 0 || about.labels.remove.length > 0)) {
    const words = [
      ...(about.labels.add.length > 0
        ? [`add ${about.labels.add.map(n => code(n)).join(', ')}`]
        : []),
      ...(about.labels.remove.length > 0
        ? [`remove ${about.labels.remove.map(n => code(n)).join(', ')}`]
        : [])
    ]
    lines.push(`- Labels: ${words.join('; ')}`)
  }
  const where: string[] = []
  const environment = deployment ?? cluster
  if (environment)
    where.push(
      `environment ${code(environment.environment)}` +
        (environment.physicalEnvironment ? ` / ${code(environment.physicalEnvironment)}` : '')
    )
  const clusterName = cluster?.name ?? deployment?.cluster
  if (clusterName) where.push(`cluster ${code(clusterName)}`)
  if (deployment) where.push(`deployment ${code(deployment.name)}`)
  if (storage) where.push(`registry ${code(storage.registryUrl)}`)
  if (artifact || cluster) where.push(`organization ${code(about.org)}`)
  if (about.repository && (result.labelsOnly || about.labels))
    where.push(`repository ${code(`${about.repository.owner}/${about.repository.name}`)}`)
  if (where.length > 0) lines.push(`- Where: ${where.join(', ')}`)
  return lines.length > 0 ? [...lines, ''] : []
}

/**
 * The job summary's records: the table of what was written (the artifact as given, its version,
 * where, the digest or status, the id), and writes answered without one.
 */
export function recordsSection(result: RunResult, about: SummaryAbout): string[] {
  const out: string[] = []
  const rows: string[] = []
  const artifact = about.artifact
  const version = artifact?.version ? codeCell(artifact.version) : '-'
  for (const r of result.storageRecords) {
    const where = [r.registry_url, r.repository].filter(Boolean).map(w => codeCell(String(w)))
    rows.push(
      `| Storage record | ${codeCell(String(r.name ?? artifact?.name ?? ''))} | ${version} | ${where.join(' / ')} | ${cell(String(r.status ?? ''))} | ${cell(String(r.id ?? ''))} |`
    )
  }
  // A cluster's records are its items': the artifact of each from the deployment it was sent as.
  const items = new Map((about.cluster?.items ?? []).map(i => [i.deployment_name, i]))
  for (const r of result.deploymentRecords) {
    const item = items.get(r.deployment_name ?? '')
    const name = item?.name ?? artifact?.name ?? ''
    const itemVersion = item ? (item.version ? codeCell(item.version) : '-') : version
    const where = [r.logical_environment, r.physical_environment, r.cluster]
      .filter(Boolean)
      .map(w => codeCell(String(w)))
      .join(' / ')
    rows.push(
      `| Deployment record | ${codeCell(name)} | ${itemVersion} | ${where} as ${codeCell(String(r.deployment_name ?? ''))} | ${codeCell(shortDigest(r.digest ?? undefined))} | ${cell(String(r.id ?? ''))} |`
    )
  }
  if (rows.length > 0) {
    out.push(
      '| Record | Artifact | Version | Where | Digest / status | Id |',
      '|---|---|---|---|---|---|',
      ...rows.slice(0, MAX_SUMMARY_ROWS)
    )
    // Only a cluster has more rows than the table shows: deployment records alone.
    const output = result.deploymentRecords.length > 0 ? 'deployment-records' : 'storage-records'
    out.push(...moreInOutput(rows.length, output), '')
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
