import * as core from '@actions/core'
import { appendFileSync } from 'node:fs'
import { EOL } from 'node:os'
import { InputError, parseInputs, readRawInputs } from './step/parse-inputs.js'
import { isUnevaluated } from './inputs/names.js'
import {
  aboutRun,
  describeCuts,
  failureReport,
  fittedOutputs,
  renderSummary
} from './step/report.js'
import { discovers, readRunEventFor } from './step/run-event.js'
import { Cancellation } from './client/cancel.js'
import {
  emptyResult,
  firstLineOf,
  messageOf,
  resultAfterBug,
  RunStopped,
  withBug,
  type RunResult
} from './shared/result.js'
import type { RunOptions } from './step/run.js'
import { listenForCancel } from './runner/signals.js'
import { actionLog, debugLines, failStep } from './runner/log-writer.js'
import { addProxySecrets, addSecret, redact, redactDeep, redactJson } from './runner/redact.js'

/**
 * The action as the runner starts it: inputs from INPUT_* variables, outputs to GITHUB_OUTPUT.
 * `src/index.ts` only calls it; `@github/local-action` imports it and calls it the same way.
 */
export async function run(options: RunOptions = {}): Promise<void> {
  const outputs = { written: false }
  try {
    await runAction(options, outputs)
  } catch (error) {
    // A bug of ours, not the user's: the message for the log, the stack for a debug run.
    const { result: found, bug } = resultAfterBug(error)
    const result = redactDeep(found)
    if (bug instanceof Error && bug.stack) debugLines(bug.stack)
    // Every output, holding what was done before it, `failed` naming it: later steps' `fromJSON`
    // still works.
    const unwritten = outputs.written ? undefined : writeLineOutputs(result)
    failStep(
      `record-deployment stopped on an unexpected error: ${messageOf(bug)}. ` +
        'Re-run with debug logging for the details, and report it with that log.' +
        (result.done.length > 0 ? `\n${result.done.map(d => `Done: ${d}`).join('\n')}` : '') +
        (unwritten ? `\n\n${unwritten}` : '')
    )
  }
}

async function runAction(options: RunOptions, outputs: { written: boolean }): Promise<void> {
  // Masked before anything could print it, bad input included: by the runner (exact text), and
  // in every form by the step's own redaction (redact.ts). Proxy passwords only by the latter:
  // an `::add-mask::` line would print them in the step's own output.
  for (const secret of [core.getInput('token'), process.env['GITHUB_TOKEN']]) {
    if (secret && !isUnevaluated(secret)) {
      core.setSecret(secret.trim())
      addSecret(secret)
    }
  }
  addProxySecrets(process.env)

  let inputs
  try {
    inputs = parseInputs(
      readRawInputs(
        name => core.getInput(name),
        message => actionLog.debug(message)
      ),
      process.env
    )
  } catch (error) {
    if (error instanceof InputError) {
      outputs.written = true
      const unwritten = writeLineOutputs(emptyResult(false))
      failStep([error.message, ...(unwritten ? [unwritten] : [])].join('\n\n'))
      return
    }
    throw error
  }

  // Loaded only once the inputs are sound: bad input fails without loading the HTTP client.
  const loading = import('./step/run.js')
  // `pull-requests: auto` finds its pull requests in the payload; for anything else an odd file is
  // a debug line (and a run that uses no payload does not open it: run-event.ts).
  const { event, problem } = await readRunEventFor(inputs.labels)
  if (problem) {
    const message = `${problem}; the event is read as empty`
    if (discovers(inputs.labels))
      actionLog.warning(`${message}, so \`pull-requests: auto\` may find nothing`)
    else actionLog.debug(message)
  }
  const cancellation = options.cancellation ?? new Cancellation()
  // Until the outputs and the summary are written: a signal then must not kill the process.
  const stopListening = listenForCancel(cancellation, message => actionLog.info(message))
  try {
    const { run: runJobs } = await loading
    let result: RunResult
    try {
      result = redactDeep(
        await runJobs(inputs, { log: actionLog, event, ...options, cancellation })
      )
    } catch (error) {
      // A bug of ours part way: the summary still shows what was written before it; run() sets
      // the outputs and fails the step naming it.
      if (error instanceof RunStopped && inputs.jobSummary)
        await writeSummary(
          renderSummary(redactDeep(withBug(error.result, error.error)), aboutRun(inputs))
        )
      throw error
    }

    const fitted = fittedOutputs(result)
    outputs.written = true
    const unwritten = writeOutputs(fitted.outputs)
    for (const cut of describeCuts(fitted)) actionLog.warning(cut)
    // `job-summary: false`: none (the log and the outputs say the same).
    if (inputs.jobSummary) await writeSummary(renderSummary(result, aboutRun(inputs), fitted))
    const failures = [
      ...(result.failures.length > 0 || result.cancelled ? [failureReport(result)] : []),
      ...(unwritten ? [unwritten] : [])
    ]
    if (failures.length > 0) failStep(failures.join('\n\n'))
  } finally {
    stopListening()
  }
}

export { IN_FLIGHT_GRACE_MS } from './runner/signals.js'

/** Later steps read the outputs: a file the runner gave that cannot take them fails the step. */
function writeOutputs(outputs: Record<string, string>): string | undefined {
  try {
    for (const [name, value] of Object.entries(outputs)) core.setOutput(name, redactJson(value))
    return undefined
  } catch (error) {
    return outputsUnwritten(error)
  }
}

function outputsUnwritten(error: unknown): string {
  return (
    `The step's outputs could not be written to GITHUB_OUTPUT (${process.env['GITHUB_OUTPUT'] ?? 'unset'}): ` +
    `${firstLineOf(error)}. What the log above says was recorded was recorded; later steps ` +
    'cannot read it from the outputs.'
  )
}

/**
 * Every output after bad input (empty: `[]`, `{}` or nothing) or an unexpected error. A value of
 * one line goes as a `name=value` line, the form GitHub documents, without loading node:crypto
 * for core's random delimiter: bad input stays fast. A value with a line break (a cluster job's
 * status is the service's text) would end its line and start another output: then every value
 * goes through core's delimiter.
 */
function writeLineOutputs(result: RunResult): string | undefined {
  const fitted = fittedOutputs(result)
  for (const cut of describeCuts(fitted)) actionLog.warning(cut)
  const file = process.env['GITHUB_OUTPUT']
  if (!file || Object.values(fitted.outputs).some(value => /[\r\n]/.test(value)))
    return writeOutputs(fitted.outputs)
  try {
    appendFileSync(
      file,
      Object.entries(fitted.outputs)
        .map(([name, value]) => `${name}=${redactJson(value)}${EOL}`)
        .join(''),
      'utf8'
    )
    return undefined
  } catch (error) {
    return outputsUnwritten(error)
  }
}

/** The summary is a courtesy: one that cannot be written is a warning, not a failed deployment. */
async function writeSummary(markdown: string): Promise<void> {
  if (!process.env['GITHUB_STEP_SUMMARY']) return
  try {
    // The result was redacted before any Markdown escaping; this catches what escaping made.
    await core.summary.addRaw(redact(markdown)).write()
  } catch (error) {
    actionLog.warning(
      `The job summary could not be written to GITHUB_STEP_SUMMARY (${process.env['GITHUB_STEP_SUMMARY']}): ` +
        `${firstLineOf(error)}. The log above says what was recorded.`
    )
  }
}
