/** Time source and sleep, injected so that unit tests control time instead of waiting for it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
  sleep(ms: number): Promise<void>
}

export const systemClock: Clock = {
  // Fractional milliseconds: with whole ones a 1 s gap could come out up to 1 ms short.
  now: () => performance.timeOrigin + performance.now(),
  sleep: ms => new Promise(resolve => setTimeout(resolve, Math.max(0, ms)))
}
