/**
 * README's examples for pipelines outside GitHub Actions (GitLab CI, Jenkins, an Argo CD PostSync
 * hook), read as each system reads them: the shell script it runs and the variables it sets for
 * it. `runPipeline` runs that script in bash as the pipeline would, with the `record-deployment`
 * command line installed from this checkout's `npm pack` instead of the tag it names. Used by the
 * example table through scripts/documented-jobs.ts.
 */
import { spawn } from 'node:child_process'
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { homedir } from 'node:os'
import { parse } from 'yaml'
import { npmChildEnv } from './npm-env.js'

/** What the README's install line names; the staged run installs the packed checkout instead. */
export const PACKAGE_SPEC = 'record-deployment@1'

export interface Pipeline {
  kind: 'GitLab CI' | 'Jenkins' | 'Argo CD hook'
  /** the shell script the pipeline runs, as written */
  script: string
  /** the variables the example sets, by value */
  variables: Record<string, string>
  /** the variables the example fills from the system's secret store (the token) */
  secrets: string[]
  /** the environment the job deploys to, when the system names one (GitLab's `environment:`) */
  environment?: string
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A README block that runs the command line: a GitLab job, a Jenkinsfile or an Argo CD hook Job. */
export function pipelineOf(source: string, fence: string, body: string): Pipeline {
  if (fence === 'groovy') return jenkinsfile(source, body)
  if (!/^ya?ml$/.test(fence))
    throw new Error(`${source}: a block that runs record-deployment is fenced \`${fence}\``)
  const document: unknown = parse(body)
  if (isObject(document) && document['kind'] === 'Job') return argoHook(source, document)
  if (isObject(document)) {
    const jobs = Object.values(document).filter(
      (job): job is Record<string, unknown> => isObject(job) && Array.isArray(job['script'])
    )
    const job = jobs.find(j =>
      (j['script'] as unknown[]).some(l => /record-deployment/.test(String(l)))
    )
    if (job) {
      const environment = job['environment']
      return {
        kind: 'GitLab CI',
        script: [...((job['before_script'] as unknown[]) ?? []), ...(job['script'] as unknown[])]
          .map(String)
          .join('\n'),
        variables: stringsOf({
          ...(document['variables'] as object),
          ...(job['variables'] as object)
        }),
        // CI/CD variables of the project's settings, named in the block's comments (`# NAME: ...`):
        // those that hold a token are secrets
        secrets: [...body.matchAll(/^#\s*([A-Z][A-Z0-9_]*):/gm)]
          .map(m => m[1] as string)
          .filter(name => /TOKEN/.test(name)),
        ...(environment
          ? { environment: String(isObject(environment) ? environment['name'] : environment) }
          : {})
      }
    }
  }
  throw new Error(
    `${source}: runs record-deployment but is neither a GitLab CI job (script:), a Jenkinsfile ` +
      '(groovy) nor an Argo CD hook Job'
  )
}

function stringsOf(values: object | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(values ?? {}).map(([k, v]) => [k, String(v)]))
}

/** A declarative Jenkinsfile: `environment { NAME = 'value' | credentials('id') }` and `sh` steps. */
function jenkinsfile(source: string, body: string): Pipeline {
  const variables: Record<string, string> = {}
  const secrets: string[] = []
  const environment = /environment\s*\{([^}]*)\}/.exec(body)?.[1] ?? ''
  for (const [, name, value] of environment.matchAll(/^\s*(\w+)\s*=\s*(.+?)\s*$/gm)) {
    if (/^credentials\(/.test(value ?? '')) secrets.push(name as string)
    else variables[name as string] = (value ?? '').replace(/^(['"])(.*)\1$/, '$2')
  }
  const scripts = [...body.matchAll(/\bsh\s*\(?\s*('''|"""|'|")([\s\S]*?)\1/g)].map(m => m[2] ?? '')
  if (scripts.length === 0) throw new Error(`${source}: a Jenkinsfile without an sh step`)
  // Groovy drops a backslash that ends a line of a ''' string, joining the lines.
  return { kind: 'Jenkins', script: scripts.join('\n').replace(/\\\n/g, ''), variables, secrets }
}

/** An Argo CD hook: a Job annotated `argocd.argoproj.io/hook`, its container's command and env. */
function argoHook(source: string, job: Record<string, unknown>): Pipeline {
  const annotations = ((job['metadata'] as Record<string, unknown>)?.['annotations'] ??
    {}) as Record<string, string>
  if (!annotations['argocd.argoproj.io/hook'])
    throw new Error(`${source}: a Job without the argocd.argoproj.io/hook annotation`)
  const spec = (job['spec'] as { template?: { spec?: { containers?: unknown[] } } })?.template?.spec
  const container = (spec?.containers?.[0] ?? {}) as {
    command?: string[]
    args?: string[]
    env?: Array<{ name: string; value?: string; valueFrom?: unknown }>
  }
  const argv = [...(container.command ?? []), ...(container.args ?? [])]
  if (!/^(\/bin\/)?(ba)?sh$/.test(argv[0] ?? '') || argv[1] !== '-c' || argv.length !== 3)
    throw new Error(`${source}: the hook's container must run [bash, -c, <script>]`)
  const variables: Record<string, string> = {}
  const secrets: string[] = []
  for (const entry of container.env ?? []) {
    if (entry.valueFrom) secrets.push(entry.name)
    else variables[entry.name] = String(entry.value ?? '')
  }
  return { kind: 'Argo CD hook', script: argv[2] as string, variables, secrets }
}

const BOOLEAN_FLAGS = new Set([
  'allow-empty-cluster',
  'partial-success',
  'label-linked-issues',
  'dry-run',
  'debug'
])

/**
 * The flags of the `record-deployment` command line(s) of a script or of the argv it got: each
 * `--name value` or `--name=value`; a boolean flag alone is `true`.
 */
export function flagsOf(argv: string[]): Record<string, string> {
  const flags: Record<string, string> = {}
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([\w-]+)(?:=(.*))?$/s.exec(argv[i] ?? '')
    if (!match) continue
    const [, name, inline] = match as unknown as [string, string, string | undefined]
    if (inline !== undefined) flags[name] = inline
    else if (BOOLEAN_FLAGS.has(name)) flags[name] = 'true'
    else flags[name] = argv[++i] ?? ''
  }
  return flags
}

/** The words after `record-deployment` in a script, unexpanded (for the flags' names). */
export function commandWords(script: string): string[] {
  const line = /(?:^|\n|;|&&)\s*record-deployment\s+((?:[^\n\\]|\\\n)*)/.exec(script)?.[1] ?? ''
  return line.replace(/\\\n/g, ' ').split(/\s+/).filter(Boolean)
}

export interface PipelineRun {
  code: number | null
  stdout: string
  stderr: string
  /** the arguments `record-deployment` got, after the shell expanded them */
  argv: string[]
  /** what `record-deployment` printed on stdout */
  cliStdout: string
}

/** Where a run in `stage` installs the command line, and its shim. */
function stagePaths(stage: string) {
  return { prefix: join(stage, 'npm-global'), shims: join(stage, 'shims') }
}

/**
 * What a pipeline's script gets besides the example's variables: PATH (the shim, the global
 * prefix's bin, the Node that runs the tests as the launcher uses it, then the system's), HOME
 * and npm's global prefix in `stage`, npm's cache where `npm ci` filled it (prefer-offline), and
 * the user's npm configuration, which the moved HOME and prefix would hide (scripts/npm-env.ts):
 * the CA, registry and token in the global or user npmrc still apply.
 */
export function pipelineEnv(stage: string, parent = process.env): Record<string, string> {
  const { prefix, shims } = stagePaths(stage)
  const npm = npmChildEnv(parent)
  return {
    PATH: [shims, join(prefix, 'bin'), dirname(process.execPath), parent['PATH'] ?? ''].join(':'),
    HOME: stage,
    ...npm,
    npm_config_prefix: prefix,
    npm_config_cache: npm['npm_config_cache'] || join(homedir(), '.npm'),
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false'
  }
}

/**
 * Runs the pipeline's script in bash (`-eu -o pipefail`: an unset variable fails the run) in
 * `workspace`, with only the variables the pipeline would set: the example's own, `given` (the
 * system's and the secrets), and {@link pipelineEnv}. `npm install --global` goes to a prefix of
 * the run's own, from `tarball`; a shim before it on PATH notes the arguments and stdout of
 * `record-deployment` and runs the installed one.
 */
export async function runPipeline(
  pipeline: Pipeline,
  run: { workspace: string; stage: string; tarball: string; given: Record<string, string> }
): Promise<PipelineRun> {
  if (!pipeline.script.includes(`npm install --global ${PACKAGE_SPEC}`))
    throw new Error(
      `the script does not install the command line with \`npm install --global ${PACKAGE_SPEC}\``
    )
  const { prefix, shims } = stagePaths(run.stage)
  await mkdir(shims, { recursive: true })
  await mkdir(run.workspace, { recursive: true })
  const shim = join(shims, 'record-deployment')
  await writeFile(
    shim,
    [
      '#!/usr/bin/env bash',
      `printf '%s\\0' "$@" > '${join(run.stage, 'argv')}'`,
      `'${join(prefix, 'bin', 'record-deployment')}' "$@" > '${join(run.stage, 'stdout')}' && code=0 || code=$?`,
      `cat '${join(run.stage, 'stdout')}'`,
      'exit $code',
      ''
    ].join('\n')
  )
  await chmod(shim, 0o755)
  const script = pipeline.script.replaceAll(PACKAGE_SPEC, run.tarball)
  const env = { ...pipelineEnv(run.stage), ...pipeline.variables, ...run.given }
  const { code, stdout, stderr } = await new Promise<{
    code: number | null
    stdout: string
    stderr: string
  }>((resolve, reject) => {
    const child = spawn('bash', ['-eu', '-o', 'pipefail', '-c', script], {
      cwd: run.workspace,
      env,
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', chunk => (stdout += String(chunk)))
    child.stderr.on('data', chunk => (stderr += String(chunk)))
    child.on('error', reject)
    child.on('close', code => resolve({ code, stdout, stderr }))
  })
  const read = (name: string) => readFile(join(run.stage, name), 'utf8').catch(() => '')
  const argv = (await read('argv')).split('\0').slice(0, -1)
  return { code, stdout, stderr, argv, cliStdout: await read('stdout') }
}
