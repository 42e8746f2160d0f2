/**
 * GitHub's documented rate limits as the client paces against them, and the schedule they impose:
 * when the next write may go, how long a plan of writes and reads takes. Pure: times are given.
 */

/** A limit on content-creating requests (writes) over a sliding window. */
export interface WriteLimit {
  count: number
  windowMs: number
  /** in words: "500 content-creating requests an hour" */
  name: string
}

/**
 * The REST docs' secondary limits on content-creating requests: at most 80 a minute and 500 an
 * hour. Kept as sliding windows, the strictest reading: inside them, any fixed window is inside too.
 */
export const CONTENT_LIMITS: readonly WriteLimit[] = [
  { count: 80, windowMs: 60_000, name: '80 content-creating requests a minute' },
  { count: 500, windowMs: 3_600_000, name: '500 content-creating requests an hour' }
]

/** Added past a window's end: the service counts a write when it arrives, a little after we send it. */
export const WINDOW_MARGIN_MS = 1000

/** The primary limit as the last answer's `x-ratelimit-*` headers told it. */
export interface Quota {
  limit: number
  remaining: number
  /** milliseconds since the epoch */
  resetAt: number
}

/** The quota an answer's headers tell, or undefined when they tell none. */
export function quotaOf(headers: Record<string, string>): Quota | undefined {
  const limit = Number(headers['x-ratelimit-limit'])
  const remaining = Number(headers['x-ratelimit-remaining'])
  const reset = Number(headers['x-ratelimit-reset'])
  if (headers['x-ratelimit-remaining'] === undefined || headers['x-ratelimit-reset'] === undefined)
    return undefined
  if (![limit, remaining, reset].every(Number.isFinite) || reset <= 0) return undefined
  return { limit: limit > 0 ? limit : remaining, remaining, resetAt: reset * 1000 }
}

/** The start times of recent writes, and when the next may start inside every limit. */
export class WriteWindows {
  private readonly sent: number[] = []
  private readonly keep: number

  constructor(readonly limits: readonly WriteLimit[] = CONTENT_LIMITS) {
    this.keep = Math.max(0, ...limits.map(l => l.count))
  }

  /** The earliest a write may start at or after `now`, and the limit that holds it back, if any. */
  nextSlot(now: number): { at: number; limit?: WriteLimit } {
    return slot(this.sent, now, this.limits)
  }

  /** The last write recorded created nothing (a rate limit refused it): it leaves the windows. */
  forgetLast(): void {
    this.sent.pop()
  }

  record(at: number): void {
    this.sent.push(at)
    if (this.sent.length > this.keep) this.sent.splice(0, this.sent.length - this.keep)
  }

  /**
   * When the last of `writes` more writes would start, each at least `gapMs` after the one
   * before, and the limit that held any of them back (the last one that did).
   */
  lastOf(writes: number, now: number, gapMs: number): { at: number; limit?: WriteLimit } {
    const sent = [...this.sent]
    let at = now
    let held: WriteLimit | undefined
    for (let i = 0; i < writes; i++) {
      const next = slot(sent, at, this.limits)
      at = next.at
      held = next.limit ?? held
      sent.push(at)
      if (sent.length > this.keep) sent.shift()
      if (i < writes - 1) at += gapMs
    }
    return held ? { at, limit: held } : { at }
  }
}

function slot(
  sent: readonly number[],
  now: number,
  limits: readonly WriteLimit[]
): { at: number; limit?: WriteLimit } {
  let at = now
  let binding: WriteLimit | undefined
  for (const limit of limits) {
    if (sent.length < limit.count) continue
    // The write `count` back must have left the window before this one goes.
    const oldest = sent[sent.length - limit.count] as number
    const free = oldest + limit.windowMs + WINDOW_MARGIN_MS
    if (free > at) {
      at = free
      binding = limit
    }
  }
  return binding ? { at, limit: binding } : { at }
}

export interface Plan {
  writes: number
  reads: number
}

export interface Estimate {
  /** when the last request is expected to go */
  endsAt: number
  /** the limit that sets the end, in words */
  binds: string
  /** the plan takes longer than the limits allow in an hour */
  pastAnHour: boolean
}

/**
 * How long `plan` takes from `now`: the writes' schedule under the content limits and the gap
 * between writes, and the primary quota's windows for every request; the later of the two ends.
 */
export function estimate(
  plan: Plan,
  now: number,
  windows: WriteWindows,
  gapMs: number,
  quota: Quota | undefined
): Estimate {
  const writes = windows.lastOf(plan.writes, now, gapMs)
  const writesEnd = plan.writes > 0 ? writes.at : now
  const writesBind = writes.limit ? `GitHub's ${writes.limit.name}` : 'one write a second'
  const requests = plan.writes + plan.reads
  let quotaEnd = now
  if (quota && requests > quota.remaining && quota.limit > 0) {
    // The rest goes in the windows after the reset, `limit` requests each.
    const windowsNeeded = Math.ceil((requests - quota.remaining) / quota.limit)
    quotaEnd = Math.max(now, quota.resetAt) + (windowsNeeded - 1) * 3_600_000
  }
  const pastAnHour =
    writes.limit !== undefined ||
    (quota !== undefined && requests > quota.remaining) ||
    writesEnd - now > 3_600_000
  if (quotaEnd > writesEnd)
    return {
      endsAt: quotaEnd,
      binds: `the token's ${quota?.limit} requests an hour`,
      pastAnHour
    }
  return { endsAt: writesEnd, binds: writesBind, pastAnHour }
}

/**
 * `3 h 8 min`, `42 min`; under 10 minutes with its seconds (`1 min 30 s`, `45 s`: a 90 s wait
 * said as `2 min` is a guess at the reader's expense); past a year, words (a service may ask for
 * anything).
 */
export function duration(ms: number): string {
  if (!(ms <= 365 * 24 * 3_600_000)) return 'more than a year'
  if (ms < 10 * 60_000) {
    const seconds = Math.max(0, Math.ceil(ms / 1000))
    const [m, s] = [Math.floor(seconds / 60), seconds % 60]
    return m === 0 ? `${s} s` : `${m} min${s > 0 ? ` ${s} s` : ''}`
  }
  const minutes = Math.round(ms / 60_000)
  const h = Math.floor(minutes / 60)
  const m = minutes % 60
  return h > 0 ? `${h} h${m > 0 ? ` ${m} min` : ''}` : `${m} min`
}

/**
 * The first whole minute at or after `ms`, as `clockTime` says it: for a time not to act before
 * ("the next may go at", "run the step again after"), which a minute cut short would put early.
 */
export function notBefore(ms: number, now: number): string {
  return clockTime(Math.ceil(ms / 60_000) * 60_000, now)
}

/**
 * `13:00:01 UTC`: when a wait ends, beside a time not to act before (`13:01`), which a minute cut
 * short (`13:00`) would seem to contradict.
 */
export function toTheSecond(ms: number, now: number): string {
  const minute = clockTime(ms, now)
  if (!/\d\d:\d\d UTC$/.test(minute)) return minute
  const seconds = new Date(Math.ceil(ms / 1000) * 1000).toISOString().slice(16, 19)
  return minute.replace(/ UTC$/, `${seconds} UTC`)
}

/** `14:05 UTC`, with the date when it is not `now`'s day. */
export function clockTime(ms: number, now: number): string {
  if (!(Math.abs(ms) <= 8.64e15)) return 'a time too far off to name'
  const iso = new Date(ms).toISOString()
  const sameDay = iso.slice(0, 10) === new Date(now).toISOString().slice(0, 10)
  return `${sameDay ? '' : `${iso.slice(0, 10)} `}${iso.slice(11, 16)} UTC`
}
