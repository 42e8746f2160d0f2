/** Time source and sleep, injected so that unit tests control time instead of waiting for it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
  /** Ends early, rejecting, when `signal` aborts (a cancelled run must not sit out a long wait). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

export const systemClock: Clock = {
  // Fractional milliseconds: with whole ones a 1 s gap could come out up to 1 ms short.
  now: () => performance.timeOrigin + performance.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new Error('wait cancelled'))
      const onAbort = () => {
        clearTimeout(timer)
        reject(new Error('wait cancelled'))
      }
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort)
          resolve()
        },
        Math.max(0, ms)
      )
      signal?.addEventListener('abort', onAbort, { once: true })
    })
}
