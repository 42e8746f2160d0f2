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

/**
 * GitHub shows at most 10 warning annotations of a step, and the step's failure is an error
 * annotation: the first WARNING_ANNOTATIONS warnings are `::warning::` lines, one more says that
 * the rest are plain log lines starting `Warning:`, and so they are (all of them stay in the log).
 * The jobs group what repeats (40 rejected deployments are one warning per cause).
 */
export const WARNING_ANNOTATIONS = 8
let warnings = 0

/** The action's log: info lines on stdout as they are, debug and warning as `::debug::` / `::warning::`. */
export const actionLog: Log = {
  debug: message => core.debug(logLine(redact(message))),
  info: message => core.info(logLine(redact(message))),
  warning: message => {
    warnings++
    if (warnings === WARNING_ANNOTATIONS + 1)
      core.warning(
        `More than ${WARNING_ANNOTATIONS} warnings: the rest are in the log as lines starting "Warning:" ` +
          '(GitHub shows 10 annotations a step).'
      )
    if (warnings > WARNING_ANNOTATIONS) core.info(logLine(`Warning: ${redact(message)}`))
    else core.warning(logLine(redact(message)))
  }
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
