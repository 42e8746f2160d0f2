import type { Log } from '../src/client/log.js'

export class MemoryLog implements Log {
  readonly lines: Array<{ level: 'debug' | 'info' | 'warning'; message: string }> = []
  debug(message: string): void {
    this.lines.push({ level: 'debug', message })
  }
  info(message: string): void {
    this.lines.push({ level: 'info', message })
  }
  warning(message: string): void {
    this.lines.push({ level: 'warning', message })
  }
  text(): string {
    return this.lines.map(l => `${l.level}: ${l.message}`).join('\n')
  }
}
