/**
 * Every wait of the client, within the step's time budget: the gap between writes, GitHub's
 * content-creation limits (paced before they are met), the primary quota when an answer says it
 * is used up, and the rate-limit and retry waits. A wait that would end past the budget ends the
 * call at once (`OutOfTime`), saying why, when the limit resets if that is known, and what next.
 * Also the estimate logged up front for a plan past an hour's limits, and progress while it runs.
 */
import type { Clock } from './clock.js'
import { quoted, ServiceError } from './errors.js'
import {
  clockTime,
  duration,
  estimate,
  notBefore,
  toTheSecond,
  quotaOf,
  WriteWindows,
  type Estimate,
  type Plan,
  type Quota
} from './limits.js'
import type { Log } from './log.js'
import { WritePacer, WRITE_GAP_MS } from './pacer.js'
import { classify, RESET_MARGIN_MS, type Outcome } from './retry-policy.js'

/** The `time-budget` input's default, in minutes: a job may run 360, and the rest of it needs some. */
export const DEFAULT_TIME_BUDGET_MINUTES = 330
/** A wait longer than this logs when it resumes. */
export const LONG_WAIT_MS = 60_000
/** How often a long plan logs its progress. */
export const PROGRESS_EVERY_MS = 5 * 60_000

/** What stopped a call that ran out of the step's time budget. */
export interface OutOfTimeDetails {
  method: string
  path: string
  /** the refusal's status; 0 when the request was held back before it was sent */
  status: number
  serviceMessage?: string
  requestId?: string
  /** the limit, in words, and when it resets if that is known */
  cause: string
  /** when the service (or the documented limit) lets the call through; unknown for an untimed limit */
  resetAt?: number
  /** the wait that did not fit */
  waitMs: number
  attempts: number
}

/**
 * A call stopped because waiting for a rate limit would pass the step's time budget: fatal (every
 * later call would meet the same limit), never retried. `refused` when the request itself was
 * sent and refused; otherwise it was held back and never sent.
 */
export class OutOfTime extends ServiceError {
  readonly resetAt?: number
  readonly refused: boolean

  constructor(details: OutOfTimeDetails, budget: { minutes: number; endsAt: number }) {
    const now = budget.endsAt // only for the date of the times below
    const next =
      details.resetAt !== undefined
        ? `Run the step again after ${notBefore(details.resetAt, now)}.`
        : 'Run the step again later: after a few minutes at least, as GitHub asks.'
    super({
      method: details.method,
      path: details.path,
      status: details.status,
      serviceMessage: details.serviceMessage,
      requestId: details.requestId,
      attempts: details.attempts,
      fatal: true,
      // What to do, for the summary (without it, a call never sent read as a service that failed)
      hint:
        'wait for the limit as said above and run the step again, or give `time-budget` ' +
        'the minutes to wait it out (a job runs at most 360)'
    })
    // The cause, the reset when known and what to do, on the first line: a summary quotes only it.
    const what = details.status === 0 ? 'not sent' : `refused (${details.status})`
    const lines = [
      `${details.method} ${details.path} ${what}: ${details.cause}; waiting ` +
        `${duration(details.waitMs)} more would pass the step's time budget (\`time-budget\`: ` +
        `${budget.minutes} minute${budget.minutes === 1 ? '' : 's'}, ending at ` +
        `${clockTime(budget.endsAt, now)}). ${next}`
    ]
    if (details.serviceMessage) lines.push(`  the service said: ${quoted(details.serviceMessage)}`)
    if (details.requestId) lines.push(`  request id: ${details.requestId}`)
    this.message = lines.join('\n')
    this.name = 'OutOfTime'
    this.resetAt = details.resetAt
    this.refused = details.status !== 0
  }
}

/** Requests counted by kind: those the service accepted, for progress. */
interface Counts {
  reads: number
  writes: number
}

export class Waits {
  readonly budgetEndsAt: number
  private readonly pacer: WritePacer
  private readonly windows = new WriteWindows()
  private quota: Quota | undefined
  private plan: (Plan & { from: Counts; estimate: Estimate; lastProgress: number }) | undefined
  /** requests the service accepted (a 2xx or 3xx): a refused or failed one is still to do */
  private readonly done: Counts = { reads: 0, writes: 0 }

  constructor(
    private readonly clock: Clock,
    private readonly log: Log,
    private readonly budgetMinutes: number
  ) {
    this.budgetEndsAt = clock.now() + budgetMinutes * 60_000
    this.pacer = new WritePacer(clock)
  }

  /**
   * The writes and reads about to be sent (labels: one per target needing a change): when the
   * limits stretch them past an hour, one line estimates how long, which limit binds, when it ends.
   */
  announce(plan: Plan, what: string): Estimate {
    const now = this.clock.now()
    const e = estimate(plan, now, this.windows, WRITE_GAP_MS, this.quota)
    this.plan = { ...plan, from: { ...this.done }, estimate: e, lastProgress: now }
    if (e.pastAnHour) {
      const fits = e.endsAt <= this.budgetEndsAt ? 'within' : 'past'
      this.log.info(
        `${what}: ${plan.writes} writes and ${plan.reads} reads to send; ${e.binds} sets the pace: ` +
          `about ${duration(e.endsAt - now)}, expected to end about ${clockTime(e.endsAt, now)} ` +
          `(${fits} the step's time budget of ${this.budgetMinutes} minutes)`
      )
    }
    return e
  }

  /** Before an attempt goes out: the primary quota, the content limits, the gap between writes. */
  async beforeAttempt(method: string, path: string, write: boolean): Promise<void> {
    const quota = this.quota
    if (quota && quota.remaining <= 0 && quota.resetAt > this.clock.now()) {
      const waitMs = quota.resetAt - this.clock.now() + RESET_MARGIN_MS
      const cause =
        `the token's ${quota.limit} requests an hour are used up; ` +
        `the quota resets at ${notBefore(quota.resetAt, this.clock.now())} (x-ratelimit-reset)`
      await this.wait(
        { method, path, status: 0, cause, resetAt: quota.resetAt, waitMs, attempts: 0 },
        'held back'
      )
      this.quota = undefined
    }
    if (!write) return
    const now = this.clock.now()
    const slot = this.windows.nextSlot(now)
    if (slot.limit && slot.at > now) {
      const cause =
        `GitHub's ${slot.limit.name} are reached by this run's writes; the next may go at ` +
        `${notBefore(slot.at, now)}`
      const details = { method, path, status: 0, cause, resetAt: slot.at, attempts: 0 }
      await this.wait({ ...details, waitMs: slot.at - now }, 'held back')
    }
    await this.pacer.beforeWrite()
    this.windows.record(this.clock.now())
  }

  /**
   * After an attempt: the write gap starts, the quota is what the answer says, progress is told. A
   * write refused by a rate limit created nothing: it leaves the windows (kept, it would take the
   * place of a write that does, and the hour's last writes would wait for the next hour).
   */
  afterAttempt(write: boolean, answer: Outcome | undefined): void {
    if (write) this.pacer.writeFinished()
    const status = answer?.kind === 'response' ? answer.status : 0
    if (status >= 200 && status < 400) this.done[write ? 'writes' : 'reads']++
    if (write && answer && classify(answer) === 'rate-limit') this.windows.forgetLast()
    const headers = answer?.kind === 'response' ? answer.headers : undefined
    const resource = headers?.['x-ratelimit-resource']
    const quota = headers && (resource === undefined || resource === 'core') && quotaOf(headers)
    if (quota) this.quota = quota
    this.progress()
  }

  /**
   * Sleeps `details.waitMs`, or throws `OutOfTime` when that would pass the budget. A wait over a
   * minute says when it resumes. `which`: what resumes ("sent", "rate-limit wait 2").
   */
  async wait(details: OutOfTimeDetails, which: string): Promise<void> {
    const now = this.clock.now()
    if (now + details.waitMs > this.budgetEndsAt)
      throw new OutOfTime(details, { minutes: this.budgetMinutes, endsAt: this.budgetEndsAt })
    const resumes =
      details.waitMs > LONG_WAIT_MS ? `, resuming at ${toTheSecond(now + details.waitMs, now)}` : ''
    const waited = `${(details.waitMs / 1000).toFixed(details.waitMs >= 10_000 ? 0 : 1)} s`
    this.log.info(
      `${details.method} ${details.path}: ${details.cause}; ${which} in ${waited}${resumes}`
    )
    await this.clock.sleep(details.waitMs)
  }

  private progress(): void {
    const plan = this.plan
    if (!plan || !plan.estimate.pastAnHour) return
    const now = this.clock.now()
    if (now - plan.lastProgress < PROGRESS_EVERY_MS) return
    plan.lastProgress = now
    // What the service accepted: a write refused (a limit) or failed is still left, not done.
    const written = Math.min(plan.writes, this.done.writes - plan.from.writes)
    const read = Math.min(plan.reads, this.done.reads - plan.from.reads)
    const left = { writes: plan.writes - written, reads: plan.reads - read }
    const e = estimate(left, now, this.windows, WRITE_GAP_MS, this.quota)
    this.log.info(
      `Progress: ${written} of ${plan.writes} writes done, ${left.writes} left; ` +
        `expected to end about ${clockTime(e.endsAt, now)}`
    )
  }
}
