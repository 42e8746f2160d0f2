import { execFileSync } from 'node:child_process'
import { Cancellation } from '../client/cancel.js'
import type { Log } from '../client/log.js'
import { cliLog } from '../runner/stdio-writer.js'
import { NO_TOKEN } from '../inputs/connection.js'
import { FIX_HISTORY, FIX_SHALLOW } from '../labels/read-range.js'
import { PREVIOUS_DEPLOYMENT } from '../labels/inputs.js'
import { InputError, NOTHING_TO_DO, parseInputs, type Inputs } from '../step/parse-inputs.js'
import { failureReport, toOutputs } from '../step/report.js'
import { firstLineOf, resultAfterBug, type RunResult } from '../shared/result.js'
import { addProxySecrets, addSecret, redact, redactDeep, redactJson } from '../runner/redact.js'
import { readRunEventFor } from '../step/run-event.js'
import { listenForCancel } from '../runner/signals.js'
import { showControls } from '../shared/untrusted.js'
import { ACTION_VERSION } from '../shared/version.js'
import type { ActionYml } from './action-yml.js'
import { parseCliArgs } from './args.js'
import { helpText, jsonOutputs } from './help.js'

export interface CliIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
}

type Env = Record<string, string | undefined>

/** Where the command line's token comes from, as a refused token's hint names it. */
const TOKEN_SOURCE = '`GITHUB_TOKEN` (or `--token`)'
const API_URL_SOURCE = '`--api-url` (or `GITHUB_API_URL`)'
/** No token: the input's problem as the command line says it (there is no workflow to run in). */
const NO_TOKEN_CLI = 'is empty: set GITHUB_TOKEN (or pass `--token`)'

/**
 * `record-deployment` for pipelines outside Actions, the same core as the action (`parseInputs`,
 * `run`, `toOutputs`): flags in, one JSON object of the outputs on stdout, the log on stderr.
 * Returns the exit status: 0 all recorded, 1 something failed, 2 bad flags or inputs (nothing sent).
 */
export async function runCli(
  argv: readonly string[],
  env: Env,
  action: ActionYml,
  given: CliIo
): Promise<number> {
  // Every stream redacted (redact.ts): the token and proxy passwords, in any form, never printed.
  const io: CliIo = {
    // stdout is the outputs' JSON: its strings redacted, so it stays JSON (redactJson)
    stdout: text =>
      given.stdout(text.endsWith('\n') ? `${redactJson(text.slice(0, -1))}\n` : redactJson(text)),
    stderr: text => given.stderr(redact(text))
  }
  const args = parseCliArgs(argv, action.inputs)
  addSecret(args.raw.token)
  addSecret(env['GITHUB_TOKEN'])
  addProxySecrets(env)
  if (args.help) {
    io.stdout(helpText(action, ACTION_VERSION))
    return 0
  }
  if (args.version) {
    io.stdout(`record-deployment ${ACTION_VERSION}\n`)
    return 0
  }
  const problems = [...args.problems]
  let inputs: Inputs | undefined
  try {
    inputs = parseInputs(args.raw, env)
  } catch (error) {
    if (!(error instanceof InputError)) throw error
    // A flag already named as a problem is not named again as its input missing, and "nothing to
    // do" is not said when a bad flag may be the job that was meant.
    const known = error.problems.filter(
      p => !args.unread.has(p.input) && !(args.problems.length > 0 && p.message === NOTHING_TO_DO)
    )
    problems.push(
      ...known.map(p => `--${p.input}: ${p.message === NO_TOKEN ? NO_TOKEN_CLI : p.message}`)
    )
  }
  const { event, problem } = await readRunEventFor(inputs?.labels)
  if (inputs?.labels?.pullRequests === 'auto' && event.eventName === '') {
    // Outside Actions there is no event: the checkout is this directory, the commit shipped is
    // its HEAD, and `--since` gives the range whose pull requests get the labels.
    // (the log names the range by the flag: `Labels: --since v1.0.0: #12 from commit subjects`)
    const since =
      inputs.labels.since ?? (inputs.labels.previousDeployment ? PREVIOUS_DEPLOYMENT : undefined)
    event.eventName = `--since ${since ?? ''}`
    event.workspace ??= process.cwd()
    if (!event.sha) event.sha = headOf(event.workspace) ?? ''
    problems.push(...labelProblems(since, event.sha, event.workspace))
  }
  if (problems.length > 0 || !inputs) {
    io.stderr(
      `record-deployment: ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}; nothing was sent:\n` +
        // a line break in a quoted bad value is shown as `\n`: one problem, one line
        problems.map(p => `  - ${showControls(p)}\n`).join('') +
        'See record-deployment --help.\n'
    )
    return 2
  }

  const debug = args.debug || env['RUNNER_DEBUG'] === '1'
  const log: Log = pipelineAdvice(cliLog(io.stderr, debug))
  if (problem) log.debug(`${problem}; the event is read as empty`)
  const cancellation = new Cancellation()
  let stopListening = () => {}
  try {
    stopListening = listenForCancel(cancellation, log.info)
    // Loaded once the inputs are sound, as in the action.
    const { run } = await import('../step/run.js')
    const ran = await run(inputs, {
      log,
      event,
      cancellation,
      env,
      tokenSource: TOKEN_SOURCE,
      apiUrlSource: API_URL_SOURCE
    })
    const result = redactDeep(ran)
    io.stdout(outputsJson(result, action))
    if (result.failures.length > 0 || result.cancelled) {
      io.stderr(`error: ${failureReport(result)}\n`)
      return 1
    }
    return 0
  } catch (error) {
    // A bug of ours: stdout still holds every output (what was done before it, `failed` naming it).
    const { result: found, bug } = resultAfterBug(error)
    const result = redactDeep(found)
    io.stdout(outputsJson(result, action))
    io.stderr(
      `error: record-deployment stopped on an unexpected error: ${firstLineOf(bug)}. ` +
        'Run again with --debug for the details, and report it with that log.\n' +
        result.done.map(d => `Done: ${d}\n`).join('')
    )
    if (bug instanceof Error && bug.stack) log.debug(bug.stack)
    return 1
  } finally {
    stopListening()
  }
}

/**
 * The history advice of the labels' range reader is written for Actions (`fetch-depth: 0` on
 * actions/checkout); outside Actions the pipeline fetches the history itself. The command line's
 * log says that instead, and names the flag `--since`, not the input.
 */
const PIPELINE_ADVICE: ReadonlyArray<readonly [string, string]> = [
  [
    FIX_HISTORY,
    'fetch the history into the checkout (`git fetch --unshallow --tags`), or set `--since` to ' +
      'the previous release'
  ],
  [FIX_SHALLOW, 'Fetch the history into the checkout (`git fetch --unshallow --tags`)'],
  ['`since` must name', '`--since` must name']
]

/** `log` with each warning's and line's Actions advice put as a pipeline's (PIPELINE_ADVICE). */
export function pipelineAdvice(log: Log): Log {
  const say = (message: string) =>
    PIPELINE_ADVICE.reduce(
      (text, [actions, pipeline]) => text.split(actions).join(pipeline),
      message
    )
  return {
    debug: log.debug,
    info: message => log.info(say(message)),
    warning: message => log.warning(say(message))
  }
}

/**
 * Stdout: one JSON object of the outputs, the JSON ones embedded as JSON. Never cut: GitHub's
 * 1 MB limit is on a job's outputs, and stdout is a file or a pipe (`truncated` is `{}`).
 */
export function outputsJson(result: RunResult, action: ActionYml): string {
  const outputs: Record<string, unknown> = {}
  const json = jsonOutputs(action)
  for (const [name, value] of Object.entries(toOutputs(result, Infinity)))
    outputs[name] = json.has(name) ? JSON.parse(value) : value
  return JSON.stringify(outputs) + '\n'
}

/**
 * Labels found outside Actions (`--pull-requests auto`, the default) need a range: `--since` and
 * the commit shipped, HEAD of the checkout or GITHUB_SHA. Without them nothing could be found, so
 * the run stops before any request instead of labeling nothing with a warning.
 */
function labelProblems(since: string | undefined, sha: string, workspace: string): string[] {
  const numbers = 'or give the numbers (`--pull-requests 12,14`)'
  if (since === undefined)
    return [
      '--pull-requests: outside GitHub Actions there is no event to find pull requests in: ' +
        `run in the checkout with \`--since\` (the previous release's tag or sha), ${numbers}`
    ]
  if (!sha)
    return [
      `--since: the pull requests merged since it are read up to HEAD of a git checkout, and ${workspace} ` +
        `is not one: run in the checkout (or set GITHUB_WORKSPACE to it, or GITHUB_SHA), ${numbers}`
    ]
  return []
}

/** The commit checked out in `dir`, if it is a git checkout. */
function headOf(dir: string): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore']
    }).trim()
  } catch {
    return undefined
  }
}
