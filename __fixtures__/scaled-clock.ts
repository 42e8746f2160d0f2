import type { Clock } from '../src/client/clock.js'

/**
 * Real time, sped up: a sleep of N ms takes N / scale real ms while the clock moves the full N.
 * For integration tests whose server moves in real time (jobs) but whose waits are long.
 */
export class ScaledClock implements Clock {
  readonly sleeps: number[] = []
  private offset = 0

  constructor(private readonly scale = 100) {}

  now(): number {
    return performance.timeOrigin + performance.now() + this.offset
  }

  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms)
    const real = ms / this.scale
    this.offset += ms - real
    await new Promise(resolve => setTimeout(resolve, real))
  }
}
