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

/** Set once stderr failed: later log lines are dropped, the run goes on. */
let stderrLost = false

/**
 * The command line's stderr, each line neutralised. A stderr that cannot be written (its reader
 * gone, `2> >(grep -m1 ...)`; a full device, `2>/dev/full`) does not stop the run: the log is
 * lost, the records and stdout's JSON are not (see `watchStderr`).
 */
export function writeStderr(text: string): void {
  if (stderrLost) return
  try {
    process.stderr.write(logLines(text))
  } catch {
    stderrLost = true
  }
}

/**
 * Listens for stderr's `error` (EPIPE, ENOSPC), which with no listener ends the process mid-run:
 * from then on writeStderr writes nothing.
 */
export function watchStderr(stderr: {
  on(event: 'error', listener: (error: Error) => void): unknown
}): void {
  stderr.on('error', () => {
    stderrLost = true
  })
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
