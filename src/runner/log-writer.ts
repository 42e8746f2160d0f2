/**
 * The one place that writes the action's log, through `@actions/core` (the command line's is
 * stdio-writer.ts, which does not load core). Each line is neutralised here (untrusted.ts), so no
 * caller can print text from a service answer, a file or an input that the runner would run as a
 * workflow command. eslint forbids `core.info` / `debug` / `warning` / `notice` / `error` /
 * `setFailed` everywhere else, and `process.stdout` / `process.stderr` / `console` outside
 * stdio-writer.ts. Each is redacted first (redact.ts): no secret, in any form, reaches the log.
 */
import * as core from '@actions/core'
import type { Log } from '../client/log.js'
import { redact } from './redact.js'
import { logLine, logLines } from '../shared/untrusted.js'

/** The action's log: info lines on stdout as they are, debug and warning as `::debug::` / `::warning::`. */
export const actionLog: Log = {
  debug: message => core.debug(logLine(redact(message))),
  info: message => core.info(logLine(redact(message))),
  warning: message => core.warning(logLine(redact(message)))
}

/** Text of several lines for a debug run (a stack): one debug line each. */
export function debugLines(text: string): void {
  for (const line of text.split(/\r?\n/)) actionLog.debug(line)
}

/**
 * Fails the step with `message`, several lines kept: `core.setFailed` escapes the line breaks of
 * an `::error::` command itself; each line is neutralised all the same.
 */
export function failStep(message: string): void {
  core.setFailed(logLines(redact(message)))
}
