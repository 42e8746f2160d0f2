/**
 * The state file's format: what an entry holds, the versions read, and the limits shared by the
 * writer and the reader, so that the reader accepts every file the writer can write.
 */
import * as z from 'zod/mini'
import { fieldName, notJsonReason, withoutByteOrderMark } from '../shared/text.js'
import { isRepositoryName, oneLine } from '../inputs/fields.js'
import { JOB_LIMIT, type Workload } from './items.js'

export const STATE_FORMAT = 'record-deployment/cluster-state'
/**
 * Version 2 adds `workload` to an entry, version 3 `decommission_rejections`; a version-1 or -2
 * file is read as entries without them, and written back as version 3.
 */
export const STATE_VERSION = 3
const READ_VERSIONS: readonly number[] = [1, 2, 3]
/**
 * The most entries a state file lists. A run writes what the service holds as deployed: the
 * snapshot's deployments (at most JOB_LIMIT), the entries kept though the snapshot lacks them
 * (an idle workload, a namespace the filter leaves out) and, after a request the service may
 * have applied unconfirmed, the previous entries beside what was sent. Before any request the
 * step counts what it could write and refuses a run past this limit, so every file it writes is
 * one it reads back.
 */
export const MAX_STATE_ENTRIES = 2 * JOB_LIMIT
/**
 * One entry at the longest of every field, each character written as a six-byte JSON escape,
 * stays under this (a unit test builds that entry).
 */
export const MAX_ENTRY_BYTES = 8192
/** Every file the writer can write is under this; a larger file is not one this action wrote. */
export const MAX_STATE_FILE_BYTES = MAX_STATE_ENTRIES * MAX_ENTRY_BYTES
/**
 * A decommission the service rejects on this many runs in a row (each run that it answered) is
 * given up: dropped from the state with a warning naming it, so that no later run sends it.
 */
export const MAX_DECOMMISSION_REJECTIONS = 3

/** One deployment the service holds as deployed: its key in the cluster, and its artifact. */
export interface StateEntry {
  deployment_name: string
  name: string
  digest: string
  version?: string
  /** as sent, so that a decommission resolves the artifact the same way */
  github_repository?: string
  /** `kubernetes-file` (version 2): while the file lists this object, the entry is kept */
  workload?: Workload
  /**
   * (version 3) Runs in a row whose decommission of this entry the service rejected; at
   * MAX_DECOMMISSION_REJECTIONS the entry is dropped. Absent while none was rejected.
   */
  decommission_rejections?: number
}

/** The file's content (format version 3, or 1 or 2 as read). */
export interface ClusterState {
  format: typeof STATE_FORMAT
  version: 1 | 2 | 3
  cluster: string
  logical_environment: string
  physical_environment?: string
  deployments: StateEntry[]
}

const text = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .check(
      z.minLength(1, { error: 'must not be empty' }),
      z.maxLength(max, { error: `must be at most ${max} characters` }),
      oneLine
    )

const workloadSchema = () =>
  z.strictObject(
    {
      namespace: z.string({ error: 'must be a string' }).check(z.maxLength(253), oneLine),
      kind: z.enum(['Deployment', 'DaemonSet', 'StatefulSet', 'CronJob', 'Job', 'ReplicaSet'], {
        error: 'must be a workload kind'
      }),
      name: text(253)
    },
    { error: 'must be an object' }
  )

const entryFields = () => ({
  deployment_name: text(256),
  name: text(256),
  digest: z
    .string({ error: 'must be a string' })
    .check(z.regex(/^sha256:[0-9a-f]{64}$/, { error: 'must be sha256:<64 lower-case hex>' })),
  version: z.optional(text(100)),
  github_repository: z.optional(
    z
      .string({ error: 'must be a string' })
      .check(z.refine(isRepositoryName, { error: 'must be a bare repository name' }))
  )
})

const rejectionsSchema = () =>
  z.int({ error: 'must be a whole number' }).check(
    z.minimum(1, { error: `must be from 1 to ${MAX_DECOMMISSION_REJECTIONS - 1}` }),
    z.maximum(MAX_DECOMMISSION_REJECTIONS - 1, {
      error: `must be from 1 to ${MAX_DECOMMISSION_REJECTIONS - 1}`
    })
  )

const entrySchema = (version: 1 | 2 | 3) =>
  z.strictObject(
    version === 1
      ? entryFields()
      : version === 2
        ? { ...entryFields(), workload: z.optional(workloadSchema()) }
        : {
            ...entryFields(),
            workload: z.optional(workloadSchema()),
            decommission_rejections: z.optional(rejectionsSchema())
          },
    { error: 'must be an object' }
  )

const stateSchema = (version: 1 | 2 | 3) =>
  z.strictObject(
    {
      format: z.literal(STATE_FORMAT),
      version: z.literal(version),
      cluster: text(128),
      logical_environment: text(128),
      physical_environment: z.optional(text(128)),
      deployments: z.array(entrySchema(version), { error: 'must be an array' }).check(
        z.maxLength(MAX_STATE_ENTRIES, {
          error: `must have at most ${MAX_STATE_ENTRIES} entries`
        })
      )
    },
    { error: 'must be a JSON object' }
  )

/** Reads the file's content: the state, or what is wrong with it in the user's words. */
export function parseState(textContent: string): { state?: ClusterState; problems: string[] } {
  let value: unknown
  try {
    value = JSON.parse(withoutByteOrderMark(textContent))
  } catch (error) {
    return { problems: [notJsonReason(textContent, error).replace(/^is /, '')] }
  }
  const head = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
  if (head['format'] !== STATE_FORMAT) return { problems: [`no \`format: ${STATE_FORMAT}\` field`] }
  const version = head['version']
  if (typeof version !== 'number' || !READ_VERSIONS.includes(version))
    return {
      problems: [
        `format version ${typeof version === 'number' ? version : `of type ${version === null ? 'null' : typeof version}`}, and this version of the action reads versions ${READ_VERSIONS.slice(0, -1).join(', ')} and ${READ_VERSIONS.at(-1)}`
      ]
    }
  const result = stateSchema(version as 1 | 2 | 3).safeParse(value)
  if (!result.success) {
    const problems = result.error.issues.map(issue => {
      const where = issue.path
        .map((key, i) =>
          typeof key === 'number' ? `[${key}]` : `${i > 0 ? '.' : ''}${fieldName(key)}`
        )
        .join('')
      const message =
        issue.code === 'unrecognized_keys'
          ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map(k => `\`${fieldName(k)}\``).join(', ')}`
          : issue.code === 'invalid_type' && issue.input === undefined
            ? 'is required'
            : issue.message
      return where ? `${where}: ${message}` : message
    })
    return { problems }
  }
  const state = result.data as ClusterState
  const seen = new Set<string>()
  const problems: string[] = []
  state.deployments.forEach((entry, index) => {
    if (seen.has(entry.deployment_name))
      problems.push(
        `deployments[${index}].deployment_name: \`${entry.deployment_name}\` is listed twice`
      )
    seen.add(entry.deployment_name)
  })
  return problems.length > 0 ? { problems } : { state, problems }
}

/** The file's text as the writer writes it. */
export function stateText(state: ClusterState): string {
  return JSON.stringify(state, null, 2) + '\n'
}
