import type { Clock } from './clock.js'
import { ServiceError } from './errors.js'

/**
 * The runner cancels a step with SIGINT, then SIGTERM a few seconds later, then kills it. The
 * first asks the run to stop at the next safe point: nothing new is sent, waits end at once, a
 * request in flight may finish. The second (`abortInFlight`) cuts the request in flight too.
 */
export class Cancellation {
  private readonly stop = new AbortController()
  private readonly cut = new AbortController()
  /** the signal that asked, e.g. SIGINT */
  reason?: string

  /** aborted once a cancel was asked: nothing new starts */
  get signal(): AbortSignal {
    return this.stop.signal
  }

  /** aborted when the request in flight must be cut too */
  get inFlight(): AbortSignal {
    return this.cut.signal
  }

  get requested(): boolean {
    return this.stop.signal.aborted
  }

  cancel(reason: string): void {
    if (this.requested) return
    this.reason = reason
    this.stop.abort(reason)
  }

  abortInFlight(reason: string): void {
    this.cancel(reason)
    this.cut.abort(reason)
  }
}

/**
 * Lets the event loop take the signals that came during synchronous work (undici's module
 * evaluated, a large file parsed): they wait in the loop until it next polls, and a chain of
 * promises never lets it. The client awaits this before each request, so a cancel asked before
 * the request is seen before it goes. Two turns: the work may itself run in the loop's poll (an
 * I/O callback), and an immediate set there runs before the loop polls again.
 */
export async function signalsSeen(): Promise<void> {
  for (let turn = 0; turn < 2; turn++) await new Promise(resolve => setImmediate(resolve))
}

/**
 * The error of a request that a cancel stopped. Fatal: nothing after it is attempted. `inFlight`
 * says whether it had been sent, so the report can say the service may have applied it.
 */
export class CancelledError extends ServiceError {
  readonly inFlight: boolean
  readonly reason: string
  constructor(method: string, path: string, reason: string, inFlight: boolean) {
    const write = method !== 'GET' && method !== 'HEAD'
    super({
      method,
      path,
      status: 0,
      serviceMessage: !inFlight
        ? `not sent: the run was cancelled (${reason})`
        : write
          ? `cut while in flight because the run was cancelled (${reason}): the service may or may not have applied it (deployment records are upserted and labels added by name, so running the step again is safe for them; a storage record may then be written twice)`
          : `cut while in flight because the run was cancelled (${reason})`,
      fatal: true
    })
    this.name = 'CancelledError'
    this.inFlight = inFlight
    this.reason = reason
    // A wait outside a request (a job's next poll, a busy cluster) names no request.
    if (path === '') this.message = `stopped while waiting: the run was cancelled (${reason})`
  }
}

/** Error of a wait cut short by a cancel, before anything was sent. */
export function cancelledWait(cancellation: Cancellation): CancelledError {
  return new CancelledError('', '', cancellation.reason ?? 'cancelled', false)
}

/** A clock whose sleeps end at once, with a CancelledError, when the run is cancelled. */
export function cancellableClock(clock: Clock, cancellation: Cancellation): Clock {
  return {
    now: () => clock.now(),
    sleep: async ms => {
      if (cancellation.requested) throw cancelledWait(cancellation)
      // The clock's own sleep ends on the signal (its timer cleared); the race covers test clocks.
      let onCancel: (() => void) | undefined
      const cancelled = new Promise<never>((_, reject) => {
        onCancel = () => reject(cancelledWait(cancellation))
        cancellation.signal.addEventListener('abort', onCancel, { once: true })
      })
      try {
        await Promise.race([clock.sleep(ms, cancellation.signal), cancelled])
      } catch (error) {
        if (cancellation.requested) throw cancelledWait(cancellation)
        throw error
      } finally {
        if (onCancel) cancellation.signal.removeEventListener('abort', onCancel)
        cancelled.catch(() => undefined)
      }
    }
  }
}
