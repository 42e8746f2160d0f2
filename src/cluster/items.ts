import * as z from 'zod/mini'
import { fieldName } from '../shared/text.js'
import { isRepositoryName, oneLine } from '../inputs/fields.js'
import type { InputProblem } from '../inputs/problems.js'
import { DEPLOYMENT_STATUSES, MAX_TAGS, RUNTIME_RISKS } from '../shared/limits.js'
import { andMore } from '../runner/markdown.js'

/** One deployment of a cluster, in the service's field names, as sent. */
export interface ClusterItem {
  name: string
  digest: string
  deployment_name: string
  version?: string
  status?: (typeof DEPLOYMENT_STATUSES)[number]
  github_repository?: string
  tags?: Record<string, string>
  runtime_risks?: string[]
}

/**
 * The Kubernetes object a deployment derived from `kubernetes-file` came from: while the file
 * still lists it, the deployment is not gone, even with no running pod (scaled to zero, pending).
 */
export interface Workload {
  namespace: string
  kind: string
  name: string
}

/** `namespaces` or `exclude-namespaces`: the namespaces a `kubernetes-file` run reads. */
export interface NamespaceFilter {
  input: 'namespaces' | 'exclude-namespaces'
  wanted(namespace: string): boolean
}

export const workloadKey = (w: Workload): string => `${w.kind}\u0000${w.namespace}\u0000${w.name}`

export const SYNC_LIMIT = 1000
export const JOB_LIMIT = 5000

const text = (min: number, max: number) =>
  z.string({ error: 'must be a string' }).check(
    z.minLength(min, {
      error: min === 1 ? 'must not be empty' : `must be at least ${min} characters`
    }),
    z.maxLength(max, { error: `must be at most ${max} characters` }),
    oneLine
  )

// Built at its first use, not when the module loads: a run without a cluster never builds it.
const itemSchema = z.lazy(() =>
  z.strictObject(
    {
      name: text(1, 256),
      digest: z.pipe(
        z
          .string({ error: 'must be a string' })
          .check(z.regex(/^sha256:[0-9a-fA-F]{64}$/, { error: 'must be sha256:<64 hex digits>' })),
        z.transform((d: string) => d.toLowerCase())
      ),
      deployment_name: text(1, 256),
      version: z.optional(text(1, 100)),
      status: z.optional(
        z.enum(DEPLOYMENT_STATUSES, { error: 'must be deployed or decommissioned' })
      ),
      github_repository: z.optional(
        z
          .string({ error: 'must be a string' })
          .check(
            z.refine(isRepositoryName, { error: 'must be a bare repository name, not owner/name' })
          )
      ),
      // Only the shape here: zod builds records by assignment, so a `__proto__` key would slip past
      // its value checks. The entries are checked as data in checkTags.
      tags: z.optional(
        z.record(z.string(), z.unknown(), { error: 'must be an object of strings' })
      ),
      runtime_risks: z.optional(
        z
          .array(
            z.enum(RUNTIME_RISKS, { error: `items must be one of ${RUNTIME_RISKS.join(', ')}` }),
            { error: 'must be an array' }
          )
          .check(
            z.refine(risks => new Set(risks).size === risks.length, {
              error: 'must not repeat a value'
            })
          )
      )
    },
    { error: 'must be an object' }
  )
)

/** How many problems are listed before the rest are only counted: a bad 5000-item file must stay readable. */
export const MAX_LISTED_PROBLEMS = 50

/**
 * Validates a whole cluster: each item like a single record, `deployment_name` unique.
 * Problems name the input, the item index and the field.
 */
export function validateClusterItems(
  value: unknown,
  input: string,
  defaults: { github_repository?: string } = {},
  /** An empty array is let through (the caller says whether anything is left to send). */
  { allowEmpty = false }: { allowEmpty?: boolean } = {}
): { items: ClusterItem[]; problems: InputProblem[] } {
  const problems: InputProblem[] = []
  if (!Array.isArray(value)) {
    return { items: [], problems: [{ input, message: 'must be a JSON array of deployments' }] }
  }
  if (value.length === 0) {
    if (allowEmpty) return { items: [], problems: [] }
    return {
      items: [],
      problems: [{ input, message: 'is an empty array: there is nothing to record' }]
    }
  }
  const items: ClusterItem[] = []
  const seen = new Map<string, number>()
  let unlisted = 0
  const add = (message: string) => {
    if (problems.length < MAX_LISTED_PROBLEMS) problems.push({ input, message })
    else unlisted++
  }
  value.forEach((raw, index) => {
    const tagEntries = checkTags(raw, message => add(`[${index}].tags${message}`))
    const result = itemSchema.safeParse(raw)
    if (!result.success) {
      for (const issue of result.error.issues) {
        const field = issue.path.length > 0 ? `.${issue.path.map(fieldName).join('.')}` : ''
        const message =
          issue.code === 'unrecognized_keys'
            ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map(k => `\`${fieldName(k)}\``).join(', ')}`
            : issue.code === 'invalid_type' && valueAt(raw, issue.path) === undefined
              ? 'is required'
              : issue.message
        add(`[${index}]${field}: ${message}`)
      }
      return
    }
    const item = result.data as ClusterItem
    if (tagEntries === null) return
    if (tagEntries) item.tags = Object.fromEntries(tagEntries) as Record<string, string>
    const first = seen.get(item.deployment_name)
    if (first !== undefined) {
      add(
        `[${index}].deployment_name: \`${item.deployment_name}\` is already used by item [${first}]`
      )
    } else {
      seen.set(item.deployment_name, index)
    }
    if (item.github_repository === undefined && defaults.github_repository !== undefined) {
      item.github_repository = defaults.github_repository
    }
    items.push(item)
  })
  if (unlisted > 0) problems.push({ input, message: andMore(unlisted, 'problems') })
  return { items, problems }
}

function valueAt(value: unknown, path: PropertyKey[]): unknown {
  let current = value
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined
    current = Object.prototype.hasOwnProperty.call(current, key)
      ? (current as Record<PropertyKey, unknown>)[key]
      : undefined
  }
  return current
}

/**
 * The item's tags as own entries (so `__proto__` is a plain key), each a string, at most MAX_TAGS.
 * Undefined when there are none; null when they are bad (each problem reported).
 */
function checkTags(
  raw: unknown,
  problem: (message: string) => void
): Array<[string, string]> | undefined | null {
  const tags =
    typeof raw === 'object' && raw !== null ? (raw as { tags?: unknown }).tags : undefined
  if (typeof tags !== 'object' || tags === null || Array.isArray(tags)) return undefined
  const entries = Object.entries(tags)
  let ok = true
  if (entries.length > MAX_TAGS) {
    problem(`: must have at most ${MAX_TAGS} keys`)
    ok = false
  }
  for (const [key, value] of entries) {
    if (typeof value !== 'string') {
      problem(`.${key}: values must be strings`)
      ok = false
    }
  }
  return ok ? (entries as Array<[string, string]>) : null
}
