/** Time source and sleep, injected so that unit tests control time instead of waiting for it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
  /** Ends early, rejecting, when `signal` aborts (a cancelled run must not sit out a long wait). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

// Fractional milliseconds: with whole ones a 1 s gap could come out up to 1 ms short. Monotonic
// (process.hrtime) from the epoch read once; `performance` would load perf_hooks (nine modules)
// before the first request.
const sinceStart = () => Number(process.hrtime.bigint()) / 1e6
const origin = Date.now() - sinceStart()
const now = () => origin + sinceStart()

/** How late a timer may fire; the last stretch of a sleep is waited out on the event loop instead. */
const TIMER_SLACK_MS = 2

export const systemClock: Clock = {
  now,
  // A timer fires a millisecond or two late (a write spaced 1 s apart would lose that seven times
  // in a release): sleep to just short of the moment, then yield to the event loop until it came.
  sleep: async (ms, signal) => {
    const until = now() + Math.max(0, ms)
    const cancelled = () => new Error('wait cancelled')
    if (signal?.aborted) throw cancelled()
    if (ms > TIMER_SLACK_MS) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          clearTimeout(timer)
          reject(cancelled())
        }
        const timer = setTimeout(() => {
          signal?.removeEventListener('abort', onAbort)
          resolve()
        }, ms - TIMER_SLACK_MS)
        signal?.addEventListener('abort', onAbort, { once: true })
      })
    }
    while (now() < until) {
      if (signal?.aborted) throw cancelled()
      await new Promise(resolve => setImmediate(resolve))
    }
  }
}
