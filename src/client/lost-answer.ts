import { ServiceError } from './errors.js'
import { isWrite } from './pacer.js'
import { unreachableCause } from './wire.js'

/**
 * For a write the service may apply twice (it creates a record per write): when its answer is
 * lost after it was sent, the client does not send it again. It waits as it would before a
 * resend, then ends the call with an `AnswerLostError`; the caller looks whether the write took
 * effect and, if not, calls again with `retriesMade` from the error, so the retry budget goes on.
 */
export interface LostAnswerOptions {
  /** the retries an earlier call of the same write spent (`AnswerLostError.retriesMade`) */
  retriesMade?: number
}

/**
 * Whether a failed attempt may have reached the service and been applied: it was sent, and then
 * no answer came in time or the connection broke. A connection that was never made (refused, no
 * such host, TLS refused) sent nothing.
 */
export function answerLost(kind: 'network' | 'timeout', error: Error): boolean {
  return kind === 'timeout' || unreachableCause(error) === undefined
}

/** Throws the `AnswerLostError` when the failed attempt was a write sent and not answered. */
export function stopIfAnswerLost(
  failed: { kind: string; error?: Error },
  sentMethod: string,
  path: string,
  decision: { reason: string },
  retriesMade: number
): void {
  if (failed.kind !== 'network' && failed.kind !== 'timeout') return
  // After a 303 the write was answered: what follows is a read, safe to ask again.
  if (!isWrite(sentMethod) || !answerLost(failed.kind, failed.error ?? new Error())) return
  throw new AnswerLostError(sentMethod, path, decision.reason, retriesMade)
}

/** A write sent with `lostAnswer` whose answer was lost: see `LostAnswerOptions`. */
export class AnswerLostError extends ServiceError {
  readonly retriesMade: number
  constructor(method: string, path: string, reason: string, retriesMade: number) {
    super({
      method,
      path,
      status: 0,
      serviceMessage: `${reason}: the answer was lost after the request was sent, so it may have been applied`,
      attempts: retriesMade
    })
    this.name = 'AnswerLostError'
    this.retriesMade = retriesMade
  }
}
