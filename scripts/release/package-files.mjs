// `node scripts/release/package-files.mjs`: the files `npm publish` would ship from the checkout
// (`npm pack --dry-run`), checked: only dist/, action.yml, README.md, LICENSE, CHANGELOG.md (and
// the package.json npm always adds), each of the entry points among them. Prints the list; fails
// naming any file that should not ship or is missing.
import { execFileSync } from 'node:child_process'
import { isMain } from '../is-main.mjs'

export const SHIPPED = ['action.yml', 'README.md', 'LICENSE', 'CHANGELOG.md', 'package.json']
export const REQUIRED = [...SHIPPED, 'dist/index.js', 'dist/undici.js', 'dist/cli.js']

/**
 * What is wrong with a list of packed files: those outside the allowed set, and those missing.
 * @param {string[]} files
 * @returns {string[]}
 */
export function packageProblems(files) {
  const extra = files.filter(f => !f.startsWith('dist/') && !SHIPPED.includes(f))
  const missing = REQUIRED.filter(f => !files.includes(f))
  return [
    ...extra.map(f => `${f} would ship, and only dist/, ${SHIPPED.join(', ')} should`),
    ...missing.map(f => `${f} would not ship`)
  ]
}

/**
 * The files `npm publish` would ship from `cwd`: `npm pack --dry-run`'s list, the same packing
 * rules. Not `npm publish --dry-run`: npm 11 asks the registry there and refuses a version it
 * already has, so a re-run of a release that got onto npm would stop here, short of the GitHub
 * release and the major tag.
 * @param {string} cwd
 * @param {Record<string, string | undefined>} [env]
 * @returns {string[]}
 */
export function publishDryRunFiles(cwd, env = process.env) {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe']
  })
  /** @type {Array<{ files?: Array<{ path: string }> }>} */
  const json = JSON.parse(out)
  return (json[0]?.files ?? []).map(f => f.path).sort()
}

// Run as a script (the workflow's step), not imported (the tests).
if (isMain(import.meta.url)) {
  const files = publishDryRunFiles(process.cwd())
  const problems = packageProblems(files)
  process.stdout.write(files.map(f => `${f}\n`).join(''))
  if (problems.length > 0) {
    process.stderr.write(problems.map(p => `package-files: ${p}\n`).join(''))
    process.exitCode = 1
  }
}
