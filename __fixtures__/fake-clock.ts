import type { Clock } from '../src/client/clock.js'

/** A clock that only moves when told to; sleeping moves it at once and is recorded. */
export class FakeClock implements Clock {
  readonly sleeps: number[] = []

  constructor(public time = Date.UTC(2026, 10, 22, 12, 0, 0)) {}

  now(): number {
    return this.time
  }

  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms)
    this.time += ms
  }

  advance(ms: number): void {
    this.time += ms
  }
}
