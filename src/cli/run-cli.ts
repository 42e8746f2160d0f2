import { Cancellation } from '../client/cancel.js'
import type { Log } from '../client/log.js'
import { InputError, parseInputs, type Inputs } from '../inputs/index.js'
import { failureReport, toOutputs } from '../report.js'
import { firstLineOf } from '../result.js'
import { readRunEvent } from '../run-event.js'
import { listenForCancel } from '../signals.js'
import { ACTION_VERSION } from '../version.js'
import type { ActionYml } from './action-yml.js'
import { parseCliArgs } from './args.js'
import { helpText, JSON_OUTPUTS } from './help.js'

export interface CliIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
}

type Env = Record<string, string | undefined>

/**
 * `record-deployment` for pipelines outside Actions, the same core as the action (`parseInputs`,
 * `run`, `toOutputs`): flags in, one JSON object of the outputs on stdout, the log on stderr.
 * Returns the exit status: 0 all recorded, 1 something failed, 2 bad flags or inputs (nothing sent).
 */
export async function runCli(
  argv: readonly string[],
  env: Env,
  action: ActionYml,
  io: CliIo
): Promise<number> {
  const args = parseCliArgs(argv, action.inputs)
  if (args.help) {
    io.stdout(helpText(action, ACTION_VERSION))
    return 0
  }
  const problems = [...args.problems]
  let inputs: Inputs | undefined
  try {
    inputs = parseInputs(args.raw, env)
  } catch (error) {
    if (!(error instanceof InputError)) throw error
    problems.push(...error.problems.map(p => `--${p.input}: ${p.message}`))
  }
  if (problems.length > 0 || !inputs) {
    io.stderr(
      `record-deployment: ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}; nothing was sent:\n` +
        problems.map(p => `  - ${p}\n`).join('') +
        'See record-deployment --help.\n'
    )
    return 2
  }

  const debug = args.debug || env['RUNNER_DEBUG'] === '1'
  const log: Log = {
    debug: message => {
      if (debug) io.stderr(`debug: ${message}\n`)
    },
    info: message => io.stderr(`${message}\n`),
    warning: message => io.stderr(`warning: ${message}\n`)
  }
  const { event, problem } = await readRunEvent()
  if (problem) log.debug(`${problem}; the event is read as empty`)
  const cancellation = new Cancellation()
  const stopListening = listenForCancel(cancellation, log.info)
  try {
    // Loaded once the inputs are sound, as in the action.
    const { run } = await import('../run.js')
    const result = await run(inputs, { log, event, cancellation, env })
    const outputs: Record<string, unknown> = {}
    for (const [name, value] of Object.entries(toOutputs(result)))
      outputs[name] = JSON_OUTPUTS.has(name) ? JSON.parse(value) : value
    io.stdout(JSON.stringify(outputs) + '\n')
    if (result.failures.length > 0 || result.cancelled) {
      io.stderr(`error: ${failureReport(result)}\n`)
      return 1
    }
    return 0
  } catch (error) {
    io.stderr(
      `error: record-deployment stopped on an unexpected error: ${firstLineOf(error)}. ` +
        'Run again with --debug for the details, and report it with that log.\n'
    )
    if (error instanceof Error && error.stack) log.debug(error.stack)
    return 1
  } finally {
    stopListening()
  }
}
