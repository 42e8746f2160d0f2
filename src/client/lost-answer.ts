import { ServiceError } from './errors.js'
import { unreachableCause } from './wire.js'

/**
 * Whether a failed attempt may have reached the service and been applied: it was sent, and then
 * no answer came in time or the connection broke. A connection that was never made (refused, no
 * such host, TLS refused) sent nothing.
 */
export function answerLost(kind: 'network' | 'timeout', error: Error): boolean {
  return kind === 'timeout' || unreachableCause(error) === undefined
}

/**
 * A write sent with `askBeforeResend` whose answer was lost: the client did not send it again. The
 * wait a resend has was already waited and counted in `retriesMade`; the caller looks whether the
 * write took effect, then sends it again with `retriesMade` (or not at all).
 */
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
