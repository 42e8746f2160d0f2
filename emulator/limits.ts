import { ApiError } from './http.js'

/**
 * GitHub's documented REST limits, enforced when `startEmulator({ limits })` asks: the secondary
 * limits on content-creating requests (writes: 80 a minute, 500 an hour, as sliding windows) and
 * the primary limit (requests an hour from the first, a fixed window: 5,000 for a user's token,
 * 1,000 for a workflow's `GITHUB_TOKEN` per repository). On a clock `clockScale` times faster
 * than real, so a test or the benchmark meets an hour's limit in seconds: the action under test
 * runs with emulator/scaled-clock.mjs on the same scale and origin (`scaledClockEnv`).
 */
export interface LimitOptions {
  /** time runs this many times faster than real (120: an hour passes in 30 s); 1 unless told */
  clockScale?: number
  /** the real instant (ms since the epoch) from which time is scaled; the emulator's start unless told */
  clockOrigin?: number
  writesPerMinute?: number
  writesPerHour?: number
  requestsPerHour?: number
  /**
   * How a secondary refusal says when to come back: `retry-after` (seconds until a write may go,
   * as GitHub mostly does) or `none` (no header: the client must wait at least a minute, doubling)
   */
  secondarySignal?: 'retry-after' | 'none'
}

export const DOCUMENTED_LIMITS = {
  writesPerMinute: 80,
  writesPerHour: 500,
  requestsPerHour: 5000
} as const

const SECONDARY =
  'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.'
const SECONDARY_DOCS =
  'https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits'
const PRIMARY =
  'API rate limit exceeded for installation. If you reach out to GitHub Support for help, please include the request ID.'
const PRIMARY_DOCS =
  'https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-primary-rate-limits'

/**
 * The environment that puts a Node process (the bundled action, a script) on the emulator's
 * clock: `preload` is emulator/scaled-clock.mjs; `nodeOptions`, any NODE_OPTIONS to keep.
 */
export function scaledClockEnv(
  preload: string,
  limits: Pick<Limits, 'scale' | 'origin'>,
  nodeOptions = ''
): Record<string, string> {
  return {
    SCALED_CLOCK: `${limits.scale}@${limits.origin}`,
    NODE_OPTIONS: `${nodeOptions} --import=${preload}`.trim()
  }
}

export class Limits {
  readonly scale: number
  readonly origin: number
  private readonly perMinute: number
  private readonly perHour: number
  private readonly requestsPerHour: number
  private writes: number[] = []
  private window = { start: 0, used: 0 }
  /** refusals given: secondary (writes over a window) and primary (quota used up) */
  readonly refused = { secondary: 0, primary: 0 }

  constructor(private readonly options: LimitOptions) {
    this.scale = options.clockScale ?? 1
    this.origin = options.clockOrigin ?? Date.now()
    this.perMinute = options.writesPerMinute ?? DOCUMENTED_LIMITS.writesPerMinute
    this.perHour = options.writesPerHour ?? DOCUMENTED_LIMITS.writesPerHour
    this.requestsPerHour = options.requestsPerHour ?? DOCUMENTED_LIMITS.requestsPerHour
  }

  /** The emulator's time: milliseconds since the epoch on the scaled clock. */
  now(): number {
    return this.origin + (Date.now() - this.origin) * this.scale
  }

  reset(): void {
    this.writes = []
    this.window = { start: 0, used: 0 }
    this.refused.secondary = 0
    this.refused.primary = 0
  }

  /** Counts a request that reached the checks; throws the refusal when it passes a limit. */
  check(isWrite: boolean): void {
    const now = this.now()
    if (this.window.start === 0 || now >= this.window.start + 3_600_000)
      this.window = { start: now, used: 0 }
    if (this.window.used >= this.requestsPerHour) {
      this.refused.primary++
      throw new ApiError(
        403,
        PRIMARY,
        { documentation_url: PRIMARY_DOCS },
        { ...this.rateHeaders(), 'x-ratelimit-remaining': '0' }
      )
    }
    if (isWrite) {
      while (this.writes.length > 0 && (this.writes[0] as number) <= now - 3_600_000)
        this.writes.shift()
      const inMinute = this.writes.filter(t => t > now - 60_000)
      const waitMs = Math.max(
        inMinute.length >= this.perMinute
          ? (inMinute[inMinute.length - this.perMinute] as number) + 60_000 - now
          : 0,
        this.writes.length >= this.perHour
          ? (this.writes[this.writes.length - this.perHour] as number) + 3_600_000 - now
          : 0
      )
      if (waitMs > 0) {
        this.refused.secondary++
        const retryAfter = String(Math.ceil(waitMs / 1000))
        const headers: Record<string, string> =
          this.options.secondarySignal === 'none' ? {} : { 'retry-after': retryAfter }
        throw new ApiError(403, SECONDARY, { documentation_url: SECONDARY_DOCS }, headers)
      }
      this.writes.push(now)
    }
    this.window.used++
  }

  /** A 304 costs nothing, as on the service. */
  uncount(): void {
    if (this.window.used > 0) this.window.used--
  }

  rateHeaders(): Record<string, string> {
    const reset = Math.ceil((this.window.start + 3_600_000) / 1000)
    return {
      'x-ratelimit-limit': String(this.requestsPerHour),
      'x-ratelimit-remaining': String(Math.max(0, this.requestsPerHour - this.window.used)),
      'x-ratelimit-reset': String(reset),
      'x-ratelimit-used': String(this.window.used),
      'x-ratelimit-resource': 'core'
    }
  }
}
