/**
 * The labels job stopped part way with its rest known (the time budget ran out, the run was
 * cancelled): the words for the targets not sent, and the \`pull-requests\` value that finishes them.
 */
import { CancelledError } from '../client/cancel.js'
import type { Log } from '../client/log.js'
import { OutOfTime } from '../client/waits.js'
import { failureOf, type StepFailure } from '../shared/result.js'

export interface Stop {
  /** said for each target left unsent */
  message: string
  /** why the labels stopped, in the re-run line */
  why: string
}

/** The stop an error is, or undefined for another fatal failure (bad credentials, ...). */
export function stopOf(error: unknown): Stop | undefined {
  if (error instanceof OutOfTime)
    return {
      message:
        "not sent: the step's time budget ran out before its turn (see above, and the re-run below)",
      why: "the step's time budget ran out"
    }
  if (error instanceof CancelledError)
    return {
      message: `not sent: the run was cancelled (${error.reason}) before its turn (see the re-run below)`,
      why: `the run was cancelled (${error.reason})`
    }
  return undefined
}

/**
 * What finishes the rest in a re-run: the targets left, the one that stopped and those that failed
 * before it included (labeling again what is labeled already sends nothing).
 */
export function rerun(left: Array<{ number: number }>, stop: Stop, log: Log): StepFailure {
  const numbers = [...new Set(left.map(t => t.number))]
  const value = numbers.join(',')
  const message =
    `${numbers.length} not labeled: ${stop.why}. To finish them, run the step ` +
    `again with \`pull-requests: ${value}\` (after the reset named above, when one is).`
  log.info(`Labels: ${message}`)
  return { what: 'the labels left', message, rerun: `pull-requests: ${value}` }
}

/**
 * The failure of a call, told apart when it was never sent: held back because waiting would pass
 * the time budget (the report counts it with what was not sent, not with what was refused).
 */
export function failedCall(what: string, error: unknown): StepFailure {
  const held = error instanceof OutOfTime && !error.refused
  return { ...failureOf(what, error), ...(held ? { notSent: true } : {}) }
}
