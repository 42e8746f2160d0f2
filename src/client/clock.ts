/** Time source and sleep, injected so that unit tests control time instead of waiting for it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
  sleep(ms: number): Promise<void>
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: ms => new Promise(resolve => setTimeout(resolve, Math.max(0, ms)))
}
