/**
 * The one place that writes the command line's stdout and stderr (the action's log is
 * log-writer.ts). Each line is neutralised (untrusted.ts): no caller can print text the runner
 * would run as a workflow command when the command line runs in a workflow's `run:` step.
 */
import type { Log } from '../client/log.js'
import { logLine, logLines } from '../shared/untrusted.js'

/** The command line's stdout: what it is given, each line neutralised (JSON stays the same JSON). */
export function writeStdout(text: string): void {
  process.stdout.write(logLines(text))
}

/** The command line's stderr, each line neutralised. */
export function writeStderr(text: string): void {
  process.stderr.write(logLines(text))
}

/**
 * The command line's log on `write` (its stderr): one line per message, `warning: ` and `debug: `
 * before those, debug lines only when `debug` is on.
 */
export function cliLog(write: (text: string) => void, debug: boolean): Log {
  return {
    debug: message => {
      if (debug) write(`debug: ${logLine(message)}\n`)
    },
    info: message => write(`${logLine(message)}\n`),
    warning: message => write(`warning: ${logLine(message)}\n`)
  }
}
