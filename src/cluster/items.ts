import { z } from 'zod'
import { DEPLOYMENT_STATUSES, MAX_TAGS, RUNTIME_RISKS, type InputProblem } from '../limits.js'

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

export const SYNC_LIMIT = 1000
export const JOB_LIMIT = 5000

const text = (min: number, max: number) =>
  z
    .string({ error: 'must be a string' })
    .min(min, { error: min === 1 ? 'must not be empty' : `must be at least ${min} characters` })
    .max(max, { error: `must be at most ${max} characters` })

const itemSchema = z.strictObject(
  {
    name: text(1, 256),
    digest: z
      .string({ error: 'must be a string' })
      .regex(/^sha256:[0-9a-fA-F]{64}$/, { error: 'must be sha256:<64 hex digits>' })
      .transform(d => d.toLowerCase()),
    deployment_name: text(1, 256),
    version: text(1, 100).optional(),
    status: z.enum(DEPLOYMENT_STATUSES, { error: 'must be deployed or decommissioned' }).optional(),
    github_repository: z
      .string({ error: 'must be a string' })
      .regex(/^[A-Za-z0-9.\-_]{1,100}$/, {
        error: 'must be a bare repository name, not owner/name'
      })
      .optional(),
    tags: z
      .record(z.string(), z.string({ error: 'values must be strings' }), {
        error: 'must be an object of strings'
      })
      .refine(tags => Object.keys(tags).length <= MAX_TAGS, {
        error: `must have at most ${MAX_TAGS} keys`
      })
      .optional(),
    runtime_risks: z
      .array(z.enum(RUNTIME_RISKS, { error: `items must be one of ${RUNTIME_RISKS.join(', ')}` }), {
        error: 'must be an array'
      })
      .refine(risks => new Set(risks).size === risks.length, { error: 'must not repeat a value' })
      .optional()
  },
  { error: 'must be an object' }
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
  defaults: { github_repository?: string } = {}
): { items: ClusterItem[]; problems: InputProblem[] } {
  const problems: InputProblem[] = []
  if (!Array.isArray(value)) {
    return { items: [], problems: [{ input, message: 'must be a JSON array of deployments' }] }
  }
  if (value.length === 0) {
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
    const result = itemSchema.safeParse(raw)
    if (!result.success) {
      for (const issue of result.error.issues) {
        const field = issue.path.length > 0 ? `.${issue.path.join('.')}` : ''
        const message =
          issue.code === 'unrecognized_keys'
            ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map(k => `\`${k}\``).join(', ')}`
            : issue.code === 'invalid_type' && valueAt(raw, issue.path) === undefined
              ? 'is required'
              : issue.message
        add(`[${index}]${field}: ${message}`)
      }
      return
    }
    const item = result.data as ClusterItem
    // zod builds records by assignment, which turns a `__proto__` key into a prototype: copy as data.
    const rawTags = (raw as { tags?: object }).tags
    if (item.tags && rawTags)
      item.tags = Object.fromEntries(Object.entries(rawTags)) as Record<string, string>
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
  if (unlisted > 0) problems.push({ input, message: `... and ${unlisted} more problems` })
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
