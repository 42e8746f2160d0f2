import type { Clock } from './clock.js'

/** The service asks for at least one second between writes to stay clear of secondary limits. */
export const WRITE_GAP_MS = 1000

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE'])

export function isWrite(method: string): boolean {
  return WRITE_METHODS.has(method.toUpperCase())
}

/**
 * Spaces writes: each write attempt starts at least `gapMs` after the previous write attempt
 * finished. It waits only the time that is left, so a write after a slow read goes at once.
 */
export class WritePacer {
  private lastWriteFinishedAt: number | undefined

  constructor(
    private readonly clock: Clock,
    private readonly gapMs: number = WRITE_GAP_MS
  ) {}

  /** How long a write starting now would have to wait. */
  waitNeeded(): number {
    if (this.lastWriteFinishedAt === undefined) return 0
    return Math.max(0, this.lastWriteFinishedAt + this.gapMs - this.clock.now())
  }

  async beforeWrite(): Promise<void> {
    // Timers can fire a fraction of a millisecond early: look again rather than trust one sleep.
    for (let wait = this.waitNeeded(); wait > 0; wait = this.waitNeeded()) {
      await this.clock.sleep(Math.ceil(wait))
    }
  }

  writeFinished(): void {
    this.lastWriteFinishedAt = this.clock.now()
  }
}
