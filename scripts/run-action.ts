// Over 300 lines on purpose: the runner's whole contract for one step (inputs and defaults,
// contexts and expressions, variables, file commands, signals) in the one place that starts dist/.
/**
 * The one way tests, the demo and the benchmark start the bundled action: as the Actions runner
 * starts a `node24` action step. Every input action.yml declares arrives as `INPUT_<NAME>`
 * (hyphens kept), the workflow's value or else the declared default with its `${{ github.* }}` /
 * `${{ runner.* }}` expressions evaluated; the run's `GITHUB_*` and `RUNNER_*` variables are set,
 * with the event payload in a file; outputs and summary are read back from the file commands.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { data as expressionData, Evaluator, Lexer, Parser } from '@actions/expressions'
import { parse } from 'yaml'

/** The checkout's root: the nearest folder up from here that holds action.yml (also from build/). */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'action.yml'))) {
    const parent = dirname(dir)
    if (parent === dir)
      throw new Error('action.yml not found above ' + fileURLToPath(import.meta.url))
    dir = parent
  }
  return dir
}

export const DIST_ENTRY = join(projectRoot(), 'dist', 'index.js')

export interface DeclaredInput {
  description?: string
  default?: string
  required?: boolean
}

/** The inputs action.yml declares, in its order. */
export function declaredInputs(): Record<string, DeclaredInput> {
  const action = parse(readFileSync(join(projectRoot(), 'action.yml'), 'utf8')) as {
    inputs?: Record<string, DeclaredInput | null>
  }
  return Object.fromEntries(
    Object.entries(action.inputs ?? {}).map(([name, spec]) => [name, spec ?? {}])
  )
}

/** What the workflow run is about: the `github` context of the step, in the runner's words. */
export interface RunContext {
  /** `github.token`: the job's token */
  token: string
  apiUrl: string
  serverUrl: string
  /** `owner/name` */
  repository: string
  eventName: string
  /** the payload the runner writes to `GITHUB_EVENT_PATH` */
  event: Record<string, unknown>
  sha: string
  ref: string
  /** `GITHUB_WORKSPACE`, the step's working folder; a new empty one when not given */
  workspace?: string
  runId: string
  runNumber: string
  actor: string
}

/** The names an expression may use: `github`, `runner`, and whatever else the caller adds. */
export type ExpressionContext = Record<string, unknown>

export interface ActionRun {
  code: number | null
  /** the signal that ended the process, if one did */
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  outputs: Record<string, string>
  summary: string
  durationMs: number
  /** when the process was spawned, in the clock of `performance.timeOrigin + performance.now()` */
  spawnedAt: number
  /** the `INPUT_*` variables the action was started with, by input name */
  inputs: Record<string, string>
}

export interface LaunchOptions {
  /** the Node binary (CI runs the action under Node 24) */
  node?: string
  /** another entry than dist/index.js (the benchmark's comparison script, launcher tests) */
  entry?: string
  /** the run's context; unset fields come from `GITHUB_*` variables in `env`, then defaults */
  context?: Partial<RunContext>
  /**
   * Signals to send, in order, as the runner does on cancel (SIGINT, then SIGTERM a few seconds
   * later): each waits until its `when` holds (checked every 5 ms; the previous signal's sending
   * when absent), then `afterMs` more, then is sent. A process that already ended gets none.
   */
  signals?: ScheduledSignal[]
  /**
   * The workflow's other contexts (`steps`, `vars`, `secrets`, `env`, ...). When given, `inputs`
   * are the step's `with:` values as written, and are evaluated here with these and the run's own
   * `github` and `runner`, as the runner evaluates a step's `with:`.
   */
  expressions?: ExpressionContext
}

export interface ScheduledSignal {
  signal: NodeJS.Signals
  /** e.g. `() => emulator.requests.some(r => r.method === 'POST' && r.finishedAt > 0)` */
  when?: (progress: { stdout: string }) => boolean
  afterMs?: number
}

/** Sends the scheduled signals to a running child; returns a function that stops the schedule. */
function scheduleSignals(
  child: {
    kill(signal: NodeJS.Signals): boolean
    exitCode: number | null
    signalCode: string | null
  },
  signals: ScheduledSignal[],
  stdout: () => string
): () => void {
  let stopped = false
  const pause = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))
  void (async () => {
    for (const scheduled of signals) {
      while (!stopped && scheduled.when && !scheduled.when({ stdout: stdout() })) await pause(5)
      if (scheduled.afterMs) await pause(scheduled.afterMs)
      if (stopped || child.exitCode !== null || child.signalCode !== null) return
      child.kill(scheduled.signal)
    }
  })()
  return () => {
    stopped = true
  }
}

/**
 * Starts the bundled action as the runner does. `inputs` are the step's `with:` values as the
 * workflow gives them (already evaluated, unless `options.expressions` is given); every other declared input gets its default. `env`
 * adds or overrides variables of the step (`GITHUB_*` ones there also shape the run's context).
 */
export async function runAction(
  inputs: Record<string, string>,
  env: Record<string, string> = {},
  options: LaunchOptions = {}
): Promise<ActionRun> {
  const temp = await mkdtemp(join(tmpdir(), 'record-deployment-runner-'))
  try {
    const context = runContext(env, options.context ?? {})
    const workspace = context.workspace ?? join(temp, 'workspace')
    await mkdir(workspace, { recursive: true })
    const files = {
      GITHUB_OUTPUT: join(temp, 'output'),
      GITHUB_STEP_SUMMARY: join(temp, 'summary'),
      GITHUB_STATE: join(temp, 'state'),
      GITHUB_ENV: join(temp, 'env'),
      GITHUB_PATH: join(temp, 'path'),
      GITHUB_EVENT_PATH: join(temp, 'event.json')
    }
    for (const path of Object.values(files)) await writeFile(path, '')
    await writeFile(files.GITHUB_EVENT_PATH, JSON.stringify(context.event))

    const [owner] = context.repository.split('/')
    const refName = context.ref.replace(/^refs\/(heads|tags)\//, '')
    const runnerTemp = join(temp, 'runner-temp')
    await mkdir(runnerTemp)
    const expressions: ExpressionContext = {
      ...options.expressions,
      github: {
        token: context.token,
        api_url: context.apiUrl,
        server_url: context.serverUrl,
        graphql_url: `${context.apiUrl}/graphql`,
        repository: context.repository,
        repository_owner: owner,
        event_name: context.eventName,
        event: context.event,
        sha: context.sha,
        ref: context.ref,
        ref_name: refName,
        ref_type: context.ref.startsWith('refs/tags/') ? 'tag' : 'branch',
        workspace,
        run_id: context.runId,
        run_number: context.runNumber,
        run_attempt: '1',
        actor: context.actor,
        triggering_actor: context.actor,
        workflow: 'deploy',
        job: 'deploy',
        action: 'record-deployment'
      },
      runner: {
        temp: runnerTemp,
        tool_cache: join(temp, 'tool-cache'),
        os: 'Linux',
        arch: 'X64',
        name: 'GitHub Actions 1',
        environment: 'github-hosted',
        debug: env['RUNNER_DEBUG'] ?? ''
      }
    }

    const started: Record<string, string> = {}
    for (const [name, spec] of Object.entries(declaredInputs())) {
      const given = inputs[name]
      started[name] =
        given === undefined
          ? evaluate(spec.default ?? '', expressions)
          : options.expressions
            ? evaluate(given, expressions)
            : given
    }
    for (const name of Object.keys(inputs)) {
      if (!(name in started))
        throw new Error(`the step gives \`${name}\`, which action.yml does not declare`)
    }

    const childEnv: Record<string, string> = {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? temp,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_REPOSITORY: context.repository,
      GITHUB_REPOSITORY_OWNER: owner ?? '',
      GITHUB_EVENT_NAME: context.eventName,
      GITHUB_SHA: context.sha,
      GITHUB_REF: context.ref,
      GITHUB_REF_NAME: refName,
      GITHUB_REF_TYPE: context.ref.startsWith('refs/tags/') ? 'tag' : 'branch',
      GITHUB_API_URL: context.apiUrl,
      GITHUB_SERVER_URL: context.serverUrl,
      GITHUB_GRAPHQL_URL: `${context.apiUrl}/graphql`,
      GITHUB_WORKSPACE: workspace,
      GITHUB_RUN_ID: context.runId,
      GITHUB_RUN_NUMBER: context.runNumber,
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_ACTOR: context.actor,
      GITHUB_WORKFLOW: 'deploy',
      GITHUB_JOB: 'deploy',
      GITHUB_ACTION: 'record-deployment',
      RUNNER_TEMP: runnerTemp,
      RUNNER_TOOL_CACHE: join(temp, 'tool-cache'),
      RUNNER_OS: 'Linux',
      RUNNER_ARCH: 'X64',
      RUNNER_NAME: 'GitHub Actions 1',
      RUNNER_ENVIRONMENT: 'github-hosted',
      ...files,
      ...env
    }
    // The runner's rule: upper case, spaces to `_`, hyphens kept.
    for (const [name, value] of Object.entries(started))
      childEnv[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value

    const clock = performance.now()
    const spawnedAt = performance.timeOrigin + clock
    const { code, signal, stdout, stderr } = await new Promise<{
      code: number | null
      signal: NodeJS.Signals | null
      stdout: string
      stderr: string
    }>((resolve, reject) => {
      const child = spawn(options.node ?? process.execPath, [options.entry ?? DIST_ENTRY], {
        cwd: workspace,
        env: childEnv,
        stdio: ['ignore', 'pipe', 'pipe']
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', chunk => (stdout += String(chunk)))
      child.stderr.on('data', chunk => (stderr += String(chunk)))
      const stopSignals = scheduleSignals(child, options.signals ?? [], () => stdout)
      child.on('error', reject)
      child.on('close', (code, signal) => {
        stopSignals()
        resolve({ code, signal, stdout, stderr })
      })
    })
    const durationMs = performance.now() - clock
    return {
      code,
      signal,
      stdout,
      stderr,
      outputs: parseOutputFile(await readIfThere(childEnv['GITHUB_OUTPUT'])),
      summary: await readIfThere(childEnv['GITHUB_STEP_SUMMARY']),
      durationMs,
      spawnedAt,
      inputs: started
    }
  } finally {
    await rm(temp, { recursive: true, force: true })
  }
}

/** The context from what the caller gives, then the `GITHUB_*` variables it sets, then defaults. */
function runContext(env: Record<string, string>, given: Partial<RunContext>): RunContext {
  const repository = given.repository ?? env['GITHUB_REPOSITORY'] ?? 'acme/web'
  const eventFile = env['GITHUB_EVENT_PATH']
  return {
    token: given.token ?? env['GITHUB_TOKEN'] ?? '',
    apiUrl: given.apiUrl ?? env['GITHUB_API_URL'] ?? 'https://api.github.com',
    serverUrl: given.serverUrl ?? env['GITHUB_SERVER_URL'] ?? 'https://github.com',
    repository,
    eventName: given.eventName ?? env['GITHUB_EVENT_NAME'] ?? 'workflow_dispatch',
    event:
      given.event ??
      (eventFile && existsSync(eventFile) ? parseObject(readFileSync(eventFile, 'utf8')) : {}),
    sha: given.sha ?? env['GITHUB_SHA'] ?? 'a'.repeat(40),
    ref: given.ref ?? env['GITHUB_REF'] ?? 'refs/heads/main',
    workspace: given.workspace ?? env['GITHUB_WORKSPACE'],
    runId: given.runId ?? '4242',
    runNumber: given.runNumber ?? '7',
    actor: given.actor ?? 'octocat'
  }
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

async function readIfThere(path: string | undefined): Promise<string> {
  if (!path) return ''
  try {
    return await readFile(path, 'utf8')
  } catch {
    return ''
  }
}

/**
 * Evaluates the `${{ ... }}` expressions of a workflow value as the runner does, with GitHub's own
 * expression engine (`@actions/expressions`: the lexer, parser and evaluator of the Actions
 * language, its functions `format`, `fromJSON`, `contains`, ... and its case-insensitive context
 * names). `context` holds the named values (`github`, `runner`, `steps`, `vars`, ...); a name it
 * lacks is an error, as in a workflow, so a test cannot pass on an expression nobody evaluated. A
 * path that leads nowhere is an empty string; an object or array becomes its JSON, as on the runner.
 */
export function evaluate(template: string, context: ExpressionContext): string {
  const names = Object.keys(context)
  const values = JSON.parse(
    JSON.stringify(context),
    expressionData.reviver
  ) as expressionData.Dictionary
  return template.replace(/\$\{\{(.*?)\}\}/gs, (_, source: string) => {
    const lexed = new Lexer(source).lex()
    const value = new Evaluator(new Parser(lexed.tokens, names, []).parse(), values).evaluate()
    return value.primitive ? value.coerceString() : JSON.stringify(value, expressionData.replacer)
  })
}

/** Reads the file commands: `name=value` lines and `name<<DELIMITER ... DELIMITER` blocks. */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {}
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line)
    if (heredoc) {
      const [, name, delimiter] = heredoc
      const value: string[] = []
      for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i] ?? '')
      if (i >= lines.length) throw new Error(`output ${name}: no closing ${delimiter}`)
      outputs[name as string] = value.join('\n')
      continue
    }
    const eq = line.indexOf('=')
    if (eq > 0) outputs[line.slice(0, eq)] = line.slice(eq + 1)
  }
  return outputs
}
