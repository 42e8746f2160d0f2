import type { EmulatorState } from './state.js'
import type { FieldError } from './validate.js'

export const DOCS = 'https://docs.github.com/rest'

export interface TokenGrant {
  permissions: 'all' | string[]
  /**
   * Repositories the token reaches ('owner/name' or bare names of any owner); all when absent.
   * Others answer 404 like private repositories do, and count as `unauthorized` cluster items.
   */
  repositories?: string[]
}

export interface Reply {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

/**
 * `full`: every field the description names. `examples`: the variants the description's own
 * examples show: storage records without `id`, deployment records with `created` instead of
 * `created_at`, optional fields absent rather than empty.
 */
export type AnswerShape = 'full' | 'examples'

export interface RouteContext {
  method: string
  params: Record<string, string>
  query: URLSearchParams
  /** the parsed JSON object of a POST, PATCH or PUT; {} when the body was empty */
  body: Record<string, unknown>
  apiVersion: string
  token: TokenGrant
  state: EmulatorState
  /** the emulator's url plus the /api/v3 prefix when the request used it */
  baseUrl: string
  /** absolute url of this request without its query, for link headers */
  selfUrl: string
  /** canonical org name, for routes scoped to an organization */
  org: string
  /** canonical 'owner/name', for routes scoped to a repository */
  repo: string
  jobStepMs: number
  pollIntervalSeconds?: number
  /** which of the description's response shapes to answer in (see EmulatorOptions.answers) */
  answers: AnswerShape
  /** runs `fn` after `ms`; the server cancels pending timers on reset and close */
  later(ms: number, fn: () => void): void
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {}
  ) {
    super(message)
  }
}

export function notFound(message = 'Not Found'): ApiError {
  return new ApiError(404, message)
}

export function validationFailed(errors: FieldError[]): ApiError {
  return new ApiError(422, 'Validation Failed', { errors })
}

export function canReachRepo(token: TokenGrant, repo: string): boolean {
  if (!token.repositories) return true
  const lower = repo.toLowerCase()
  const bare = lower.split('/')[1]
  return token.repositories.some(r => {
    const wanted = r.toLowerCase()
    return wanted === lower || wanted === bare
  })
}

/** Alternative permission sets; every `name=level` of one set must be granted. */
export type Permission = string[][]

export function permissionHeader(permission: Permission): string {
  return permission.map(set => set.join(',')).join('; ')
}

function grantLevels(token: TokenGrant): Map<string, string> {
  const levels = new Map<string, string>()
  if (token.permissions === 'all') return levels
  for (const entry of token.permissions) {
    // Workflow files spell permissions 'artifact-metadata: write', the header 'artifact_metadata=write'.
    const [name, level] = entry.split(/[:=]/).map(part => part.trim().toLowerCase())
    if (!name || !level) continue
    const key = name.replace(/-/g, '_')
    if (levels.get(key) !== 'write') levels.set(key, level)
  }
  return levels
}

export function isGranted(token: TokenGrant, permission: Permission): boolean {
  if (token.permissions === 'all') return true
  const levels = grantLevels(token)
  return permission.some(set =>
    set.every(item => {
      const [name = '', level] = item.split('=')
      const granted = levels.get(name)
      return granted === 'write' || (granted === 'read' && level === 'read')
    })
  )
}

export interface Page<T> {
  items: T[]
  headers: Record<string, string>
}

function positiveInt(value: string | null, fallback: number): number {
  if (value === null || !/^\d+$/.test(value)) return fallback
  const n = Number(value)
  return n >= 1 ? n : fallback
}

export function paginate<T>(ctx: RouteContext, all: T[]): Page<T> {
  const perPage = Math.min(100, positiveInt(ctx.query.get('per_page'), 30))
  const page = positiveInt(ctx.query.get('page'), 1)
  const last = Math.max(1, Math.ceil(all.length / perPage))
  const items = all.slice((page - 1) * perPage, page * perPage)
  const link = (n: number, rel: string) => {
    const query = new URLSearchParams(ctx.query)
    query.set('page', String(n))
    return `<${ctx.selfUrl}?${query.toString()}>; rel="${rel}"`
  }
  const links: string[] = []
  if (page > 1) links.push(link(Math.min(page - 1, last), 'prev'))
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'))
  if (page > 1) links.push(link(1, 'first'))
  return { items, headers: links.length ? { link: links.join(', ') } : {} }
}
