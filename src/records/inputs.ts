import * as z from 'zod/mini'
import {
  boundedText,
  clusterSchema,
  nameText,
  digestSchema,
  httpsUrl,
  oneOf,
  runtimeRisksSchema,
  tagsSchema
} from '../inputs/fields.js'
import type { RawInputs } from '../inputs/names.js'
import { Collector, type Parsed } from '../inputs/problems.js'
import { DEPLOYMENT_STATUSES, STORAGE_STATUSES, type RuntimeRisk } from '../shared/limits.js'

export interface Artifact {
  name: string
  /** `sha256:` and 64 lower-case hex digits. */
  digest: string
  version?: string
}

export interface DeploymentRecordInput {
  status: (typeof DEPLOYMENT_STATUSES)[number]
  logicalEnvironment: string
  physicalEnvironment?: string
  cluster?: string
  deploymentName: string
  tags?: Record<string, string>
  runtimeRisks?: RuntimeRisk[]
}

export interface StorageRecordInput {
  registryUrl: string
  artifactUrl?: string
  repository?: string
  path?: string
  status: (typeof STORAGE_STATUSES)[number]
}

/** One artifact's records: a storage record, a deployment record, or both. */
export interface RecordInputs {
  artifact: Artifact
  deployment?: DeploymentRecordInput
  storage?: StorageRecordInput
}

/** Inputs of a single deployment record that a whole cluster's items carry for themselves. */
const SINGLE_RECORD_ONLY = [
  'name',
  'version',
  'status',
  'deployment-name',
  'tags',
  'runtime-risks'
] as const

/**
 * The single deployment record (written when `environment` is set) and the storage record
 * (written when `registry-url` is set) of one artifact. With a whole cluster (`deployments`),
 * `environment`, `physical-environment` and `cluster` are the cluster's, and the inputs of a
 * single record are refused. `wanted` says whether the inputs ask for a record at all.
 */
export function parseRecordInputs(
  raw: RawInputs,
  { wholeCluster }: { wholeCluster: boolean }
): Parsed<RecordInputs> & { wanted: boolean } {
  const c = new Collector(raw)
  if (wholeCluster) {
    if (c.given('digest')) {
      c.problem(
        'digest',
        'give either `digest` (one deployment) or `deployments` / `deployments-file` (a whole cluster)'
      )
    }
    c.refuseGiven(
      SINGLE_RECORD_ONLY,
      'belongs to a single deployment record; in a whole cluster each item carries its own'
    )
  }

  const parsedDigest = wholeCluster ? undefined : c.take('digest', digestSchema)
  const name = wholeCluster ? undefined : (c.take('name', nameText(1, 256)) ?? parsedDigest?.name)
  const version = wholeCluster ? undefined : readVersion(c, parsedDigest?.tag)

  const deployment = wholeCluster ? undefined : readDeployment(c, name)
  const storage = readStorage(c)

  const wantsDeployment = deployment !== undefined
  const wantsStorage = storage !== undefined
  if (wantsDeployment || wantsStorage) {
    const forWhat = wantsDeployment
      ? 'a deployment record (`environment` is set)'
      : 'a storage record'
    if (parsedDigest === undefined && !c.failed('digest'))
      c.problem('digest', `is required for ${forWhat}`)
    if (name === undefined && !c.failed('name')) {
      c.problem(
        'name',
        `is required for ${forWhat}; give it, or a digest of the form <image>@sha256:<hex>`
      )
    }
  }
  if (deployment?.deploymentName === '' && name !== undefined && !c.failed('deployment-name')) {
    c.problem('deployment-name', `cannot be taken from name \`${name}\`; set it`)
  }

  const wanted =
    wantsDeployment || wantsStorage || c.failed('environment') || c.failed('registry-url')
  if (c.problems.length > 0 || !parsedDigest || !name || (!deployment && !storage))
    return { problems: c.problems, wanted }
  return {
    value: {
      artifact: { name, digest: parsedDigest.digest, ...(version ? { version } : {}) },
      deployment: deployment
        ? { ...deployment, deploymentName: deployment.deploymentName }
        : undefined,
      storage
    },
    problems: c.problems,
    wanted
  }
}

/** `version`, else the tag of `digest`'s image (`ghcr.io/acme/web:1.4.2@sha256:...` is 1.4.2). */
function readVersion(c: Collector, tag: string | undefined): string | undefined {
  const version = c.take('version', nameText(1, 100))
  if (version !== undefined || c.given('version') || tag === undefined) return version
  const fromTag = nameText(1, 100).safeParse(tag)
  if (fromTag.success) return fromTag.data
  c.problem(
    'version',
    `is taken from the tag of \`digest\`, \`${tag}\`, which is not a version (1-100 characters); set it`
  )
  return undefined
}

/** The deployment record's own inputs; undefined without `environment`, when they are refused. */
function readDeployment(c: Collector, name: string | undefined): DeploymentRecordInput | undefined {
  const status = c.take(
    'status',
    z.enum(DEPLOYMENT_STATUSES, { error: oneOf(DEPLOYMENT_STATUSES) })
  )
  const environment = c.take('environment', nameText(1, 128))
  const physicalEnvironment = c.take('physical-environment', nameText(1, 128))
  const cluster = c.take('cluster', clusterSchema)
  const deploymentName = c.take('deployment-name', nameText(1, 256))
  const tags = c.take('tags', tagsSchema)
  const runtimeRisks = c.take('runtime-risks', runtimeRisksSchema)
  if (!c.given('environment')) {
    c.refuseGiven(
      ['physical-environment', 'cluster', 'deployment-name', 'tags', 'runtime-risks', 'status'],
      'belongs to a deployment record, which needs `environment`'
    )
    return undefined
  }
  if (environment === undefined) return undefined
  return {
    status: status ?? 'deployed',
    logicalEnvironment: environment,
    physicalEnvironment,
    cluster,
    // Empty when `name` gives none: the caller says so.
    deploymentName:
      deploymentName ?? (name !== undefined ? (defaultDeploymentName(name) ?? '') : ''),
    tags,
    runtimeRisks
  }
}

/** The storage record's inputs; undefined without `registry-url`, when they are refused. */
function readStorage(c: Collector): StorageRecordInput | undefined {
  const registryUrl = c.take('registry-url', httpsUrl(256))
  const artifactUrl = c.take('artifact-url', httpsUrl(152))
  const repository = c.take('registry-repository', boundedText(1, 128))
  const path = c.take('storage-path', boundedText(1, 512))
  const status = c.take(
    'storage-status',
    z.enum(STORAGE_STATUSES, { error: oneOf(STORAGE_STATUSES) })
  )
  if (!c.given('registry-url')) {
    c.refuseGiven(
      ['artifact-url', 'registry-repository', 'storage-path', 'storage-status'],
      'belongs to a storage record, which needs `registry-url`'
    )
    return undefined
  }
  if (registryUrl === undefined) return undefined
  return { registryUrl, artifactUrl, repository, path, status: status ?? 'active' }
}

/** `ghcr.io/acme/web:1.2` -> `web`: the last path segment, without tag. */
export function defaultDeploymentName(name: string): string | undefined {
  const withoutDigest = name.split('@')[0] ?? ''
  const last = withoutDigest.split('/').filter(Boolean).pop() ?? ''
  const withoutTag = last.split(':')[0] ?? ''
  return withoutTag === '' ? undefined : withoutTag.slice(0, 256)
}
