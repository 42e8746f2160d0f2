export type Fault =
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: unknown }
  /** destroys the socket without a response */
  | { kind: 'reset' }
  /** never answers; the socket stays open until the client gives up or the emulator closes */
  | { kind: 'hang' }
  /** 200 headers promising more bytes than the partial JSON body that follows, then a reset */
  | { kind: 'truncate' }
  /** `location` absent: a redirect that names nowhere to go */
  | { kind: 'redirect'; status: 301 | 302 | 303 | 307 | 308; location?: string }
  /**
   * The request is handled as usual (a write is committed, a job created), then the socket is
   * destroyed before the answer leaves: the client sees a reset and cannot know it took effect.
   */
  | { kind: 'lose-answer' }
  /** a whole 200 whose body is an HTML page, as a proxy's or a captive portal's */
  | { kind: 'html' }
  /**
   * The request is handled as usual (a write is committed), then its status goes out with a body
   * of `bytes` (chunked, no length announced; `announce` sends `content-length`) that never ends
   * when `bytes` is absent: an answer too large to read.
   */
  | { kind: 'huge'; bytes?: number; announce?: boolean }
  /**
   * The request is handled as usual, then answered with its own body plus an unknown field nested
   * `depth` levels deep: in the first item of the body's array `into` when given, else at the top.
   */
  | { kind: 'deep'; depth: number; into?: string }

export interface FaultRule {
  /** any method when absent */
  method?: string
  /** a string equals the raw or the percent-decoded path; a RegExp is tested on the raw path */
  path?: string | RegExp
  /** how many requests the rule answers before it is dropped; default 1 */
  times?: number
  fault: Fault
}

interface ActiveRule {
  rule: FaultRule
  left: number
}

function decoded(path: string): string | undefined {
  try {
    return decodeURIComponent(path)
  } catch {
    return undefined
  }
}

function matches(rule: FaultRule, method: string, path: string): boolean {
  if (rule.method !== undefined && rule.method.toUpperCase() !== method) return false
  if (rule.path === undefined) return true
  if (typeof rule.path === 'string') return rule.path === path || rule.path === decoded(path)
  // A /g or /y RegExp keeps state between test() calls; start from the beginning every time.
  rule.path.lastIndex = 0
  return rule.path.test(path)
}

export class FaultQueue {
  private rules: ActiveRule[] = []

  add(rule: FaultRule): void {
    this.rules.push({ rule, left: rule.times ?? 1 })
  }

  clear(): void {
    this.rules = []
  }

  /** The fault of the first matching rule, which uses up one of its `times`. */
  take(method: string, path: string): Fault | undefined {
    const active = this.rules.find(r => matches(r.rule, method, path))
    if (!active) return undefined
    active.left -= 1
    if (active.left <= 0) this.rules.splice(this.rules.indexOf(active), 1)
    return active.rule.fault
  }
}

const KINDS = [
  'status',
  'reset',
  'hang',
  'truncate',
  'redirect',
  'lose-answer',
  'html',
  'huge',
  'deep'
]

/** Faults answered after the request went through the routes (its write committed). */
export const AFTER_HANDLING: ReadonlySet<Fault['kind']> = new Set(['lose-answer', 'huge', 'deep'])

/** Checks a rule that arrived as JSON on the control endpoint; `pathPattern` becomes a RegExp. */
export function faultRuleFromJson(value: unknown): FaultRule {
  if (typeof value !== 'object' || value === null) throw new Error('a fault rule must be an object')
  const { method, path, pathPattern, times, fault } = value as Record<string, unknown>
  const kind = (fault as { kind?: unknown } | null)?.kind
  if (typeof kind !== 'string' || !KINDS.includes(kind))
    throw new Error(`fault.kind must be one of ${KINDS.join(', ')}`)
  if (kind === 'status' && typeof (fault as { status?: unknown }).status !== 'number')
    throw new Error('a status fault needs a numeric status')
  const location = (fault as { location?: unknown }).location
  if (kind === 'redirect' && location !== undefined && typeof location !== 'string')
    throw new Error('a redirect fault needs a string location, or none')
  const rule: FaultRule = { fault: fault as Fault }
  if (typeof method === 'string') rule.method = method
  if (typeof path === 'string') rule.path = path
  if (typeof pathPattern === 'string') rule.path = new RegExp(pathPattern)
  if (typeof times === 'number') rule.times = times
  return rule
}
