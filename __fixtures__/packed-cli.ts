/**
 * The package as a user gets it: `npm pack` of this checkout, the tarball installed into an empty
 * folder (its dependencies from npm's cache, where `npm ci` left them), and its bin run by name.
 * npm is spawned with the user's npm configuration (scripts/npm-env.ts), so a registry, a CA or
 * a cache configured there still applies.
 */
import { execFile } from 'node:child_process'
import { mkdir } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { npmChildEnv } from '../scripts/npm-env.js'
import { projectRoot } from '../scripts/run-action.js'

const exec = promisify(execFile)

/** What a command line run to its end left: its exit code and what it printed. */
export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

/** `file ...args` run to its end in `options.cwd` with only `options.env`; a failure is a CliRun too. */
export async function runToEnd(
  file: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> }
): Promise<CliRun> {
  try {
    const { stdout, stderr } = await exec(file, args, options)
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as CliRun
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

/**
 * PATH (with the Node that runs the tests), HOME and npm's cache, and the user's npm configuration
 * (scripts/npm-env.ts: the global and user npmrc by path, the settings given to `npm test`).
 */
export function npmEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: [dirname(process.execPath), process.env['PATH'] ?? ''].join(':'),
    HOME: process.env['HOME'] ?? homedir(),
    npm_config_cache: process.env['npm_config_cache'] || join(homedir(), '.npm'),
    npm_config_update_notifier: 'false',
    ...npmChildEnv(),
    ...extra
  }
}

/** `npm pack` of the checkout into `dir`: the tarball's path. */
export async function pack(dir: string): Promise<string> {
  const { stdout } = await exec('npm', ['pack', '--silent', '--pack-destination', dir], {
    cwd: projectRoot(),
    env: npmEnv()
  })
  return join(dir, stdout.trim().split('\n').pop() ?? '')
}

/** The tarball installed into the empty folder `dir/app`; returns the folder of its bin links. */
export async function installPacked(dir: string): Promise<{ app: string; bin: string }> {
  const tarball = await pack(dir)
  const app = join(dir, 'app')
  await mkdir(app)
  await exec(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', tarball],
    { cwd: app, env: npmEnv() }
  )
  return { app, bin: join(app, 'node_modules', '.bin') }
}
