/** Time source and sleep, injected so that unit tests control time instead of waiting for it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
  sleep(ms: number): Promise<void>
}

// Fractional milliseconds: with whole ones a 1 s gap could come out up to 1 ms short.
const now = () => performance.timeOrigin + performance.now()

/** How late a timer may fire; the last stretch of a sleep is waited out on the event loop instead. */
const TIMER_SLACK_MS = 2

export const systemClock: Clock = {
  now,
  // A timer fires a millisecond or two late (a write spaced 1 s apart would lose that seven times
  // in a release): sleep to just short of the moment, then yield to the event loop until it came.
  sleep: async ms => {
    const until = now() + Math.max(0, ms)
    if (ms > TIMER_SLACK_MS) await new Promise(resolve => setTimeout(resolve, ms - TIMER_SLACK_MS))
    while (now() < until) await new Promise(resolve => setImmediate(resolve))
  }
}
