import type { Cancellation } from '../client/cancel.js'

/**
 * How long a request in flight may go on after the first cancel: long enough for a write to get
 * its answer (so the report knows it was applied), short enough to be done before the runner's
 * SIGTERM, which comes a few seconds after its SIGINT and cuts the request at once.
 */
export const IN_FLIGHT_GRACE_MS = 3000

/**
 * The runner cancels with SIGINT, then SIGTERM, then kills (a pipeline's runner or Ctrl-C at a
 * terminal much the same). Without handlers Node dies on the first signal with no outputs and no
 * summary; with them the run stops at the next safe point and reports what it did. Returns the
 * function that removes the handlers. The action (`main.ts`) and the command line share it.
 */
export function listenForCancel(
  cancellation: Cancellation,
  info: (message: string) => void
): () => void {
  let grace: NodeJS.Timeout | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    if (!cancellation.requested) {
      info(
        `Cancel requested (${signal}): stopping at the next safe point; a request in flight gets ` +
          `${IN_FLIGHT_GRACE_MS / 1000} s to finish`
      )
      cancellation.cancel(signal)
      grace = setTimeout(() => cancellation.abortInFlight(signal), IN_FLIGHT_GRACE_MS)
      grace.unref()
    } else {
      info(`${signal}: cutting the request in flight`)
      cancellation.abortInFlight(signal)
    }
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return () => {
    clearTimeout(grace)
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}
