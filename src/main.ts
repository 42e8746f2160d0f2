import * as core from '@actions/core'
import { context } from '@actions/github'
import { InputError, parseInputs, readRawInputs } from './inputs.js'
import { failureReport, renderSummary, toOutputs } from './report.js'
import { run, type RunOptions } from './run.js'

const coreLog = {
  debug: (message: string) => core.debug(message),
  info: (message: string) => core.info(message),
  warning: (message: string) => core.warning(message)
}

/** The action as the runner starts it: inputs from INPUT_* variables, outputs to GITHUB_OUTPUT. */
export async function main(options: RunOptions = {}): Promise<void> {
  // Masked before anything could print it, bad input included.
  for (const secret of [core.getInput('token'), process.env['GITHUB_TOKEN']]) {
    if (secret) core.setSecret(secret.trim())
  }

  let inputs
  try {
    inputs = parseInputs(
      readRawInputs(name => core.getInput(name)),
      process.env
    )
  } catch (error) {
    if (error instanceof InputError) {
      core.setFailed(error.message)
      return
    }
    throw error
  }

  const event = {
    eventName: context.eventName ?? '',
    payload: context.payload,
    sha: context.sha ?? '',
    ref: context.ref ?? '',
    workspace: process.env['GITHUB_WORKSPACE']
  }
  const result = await run(inputs, { log: coreLog, event, ...options })
  for (const [name, value] of Object.entries(toOutputs(result))) core.setOutput(name, value)
  if (process.env['GITHUB_STEP_SUMMARY']) {
    await core.summary.addRaw(renderSummary(result, inputs.connection.org)).write()
  }
  if (result.failures.length > 0) core.setFailed(failureReport(result))
}
