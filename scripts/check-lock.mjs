// `node scripts/check-lock.mjs [DIR] [--lock-only]`: is DIR's package-lock.json (the project's
// when DIR is not given) one that every contributor's npm can install from, on every platform?
// It runs before `npm ci` (in .ci/run and at the end of `npm run lock`), so it uses nothing but
// Node. First, reading the lock alone (milliseconds):
//   - every entry has a `version` (links excepted): npm stops at an entry without one with
//     "Invalid Version" before it installs anything;
//   - every package an entry names in `optionalDependencies` (the platform packages: esbuild's,
//     unrs-resolver's, @parcel/watcher's) has an entry where Node's resolution from that entry
//     finds it: a lock written on one platform and updated in place can lack the others';
//   - no entry is `resolved` from another registry than npm's public one (a mirror that only its
//     writer reaches, written by an `npm install` behind it).
// Then, unless --lock-only, `npm ci --dry-run` with each npm we support, fetched with `npx`: the
// npm of Node 22 (10.9), the npm of Node 24 (11.6) and the newest.
// Exits 1 naming each problem, or the npm that failed and what it said.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { isMain } from './is-main.mjs'

/** The npm versions `npm ci --dry-run` must pass with (CONTRIBUTING: The loop). */
export const NPMS = ['10.9.4', '11.6.2', 'latest']

/** Where Node's resolution looks for `name` from the package installed at `path`, nearest first. */
export function placesFor(path, name) {
  const places = []
  let base = path
  for (;;) {
    places.push(base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`)
    if (base === '') return places
    // up one package: `a/node_modules/@s/b` -> `a`; a workspace folder goes to the root
    const up = base.replace(/(^|\/)node_modules\/(@[^/]+\/)?[^/]+$/, '')
    base = up === base ? '' : up
  }
}

/** npm's public registry, the one a `resolved` may name (npm ci of any user maps it to theirs). */
const PUBLIC_REGISTRY = 'https://registry.npmjs.org/'

/** The registry a registry tarball's URL (`<registry><name>/-/<file>.tgz`) is on, else undefined. */
function registryOf(resolved) {
  const match = /^(https?:\/\/.+?\/)(?:@[^/]+\/)?[^/@]+\/-\/[^/]+\.tgz$/.exec(
    String(resolved ?? '')
  )
  return match?.[1]
}

/** What is wrong with a parsed package-lock.json, one line per problem. */
export function problemsOf(lock) {
  const packages = lock?.packages
  if (!packages || typeof packages !== 'object')
    return [`no "packages" (lockfileVersion ${lock?.lockfileVersion}; npm 7 and later write it)`]
  const problems = []
  for (const [path, entry] of Object.entries(packages)) {
    if (path === '' || entry.link) continue
    if (!entry.version)
      problems.push(`${path}: no "version" (npm stops here with "Invalid Version")`)
    const registry = registryOf(entry.resolved)
    if (registry && registry !== PUBLIC_REGISTRY)
      problems.push(
        `${path}: "resolved" names the registry ${registry} (a mirror of its writer's), which ` +
          "other contributors' npm ci would fetch from; `npm run lock` leaves it out"
      )
  }
  for (const [path, entry] of Object.entries(packages)) {
    if (entry.link) continue
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      const places = placesFor(path, name)
      if (places.some(place => packages[place])) continue
      problems.push(
        `${name}: in the optionalDependencies of ${path || 'the project'}, but the lock has no ` +
          `entry where it resolves from there (${places.join(', ')}); npm cannot install it on ` +
          'the platforms that need it'
      )
    }
  }
  return problems
}

/** Runs `command args` in `cwd`; resolves with its exit code, stdout, all output and time. */
function run(command, args, cwd) {
  const started = Date.now()
  return new Promise(done => {
    // npx is npx.cmd on Windows, which only a shell starts
    const shell = process.platform === 'win32'
    const child = spawn(command, args, { cwd, shell, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let output = ''
    child.stdout.on('data', chunk => ((stdout += chunk), (output += chunk)))
    child.stderr.on('data', chunk => (output += chunk))
    child.on('error', error =>
      done({ code: -1, stdout, output: String(error), ms: Date.now() - started })
    )
    child.on('close', code => done({ code, stdout, output, ms: Date.now() - started }))
  })
}

/** npm's `npm error` lines (without the usage text it adds), else the end of the output. */
function errorsIn(output) {
  const lines = output.trim().split('\n')
  const errors = lines.filter(line => line.startsWith('npm error'))
  const usage = errors.findIndex(line => /^npm error (Usage:|Clean install)/.test(line))
  const shown = usage >= 0 ? errors.slice(0, usage) : errors
  return shown.length > 0 ? shown.slice(0, 20) : lines.slice(-15)
}

/** `npm ci --dry-run` in `dir` with each of `npms`, one after another; the ones that failed. */
async function dryRuns(dir, npms) {
  const failed = []
  for (const npm of npms) {
    const npx = ['--yes', `npm@${npm}`]
    const version = await run('npx', [...npx, '--version'], dir)
    const ci = version.code === 0 ? await run('npx', [...npx, 'ci', '--dry-run'], dir) : version
    const which = version.stdout.trim().split('\n').pop() || '?'
    const named = npm === which ? `npm@${npm}` : `npm@${npm} (${which})`
    const took = `${((version.ms + ci.ms) / 1000).toFixed(1)} s`
    if (ci.code === 0) {
      console.log(`npm ci --dry-run passes with ${named} (${took})`)
      continue
    }
    failed.push(named)
    const said = errorsIn(ci.output).join('\n    ')
    console.error(`npm ci --dry-run FAILS with ${named}: \`npx ${npx.join(' ')} ci --dry-run\``)
    console.error(`  exit ${ci.code} after ${took}; it said:\n    ${said}`)
  }
  return failed
}

async function main() {
  const { values, positionals } = parseArgs({
    options: { 'lock-only': { type: 'boolean', default: false } },
    allowPositionals: true
  })
  const dir = resolve(positionals[0] ?? '.')
  const file = join(dir, 'package-lock.json')
  const started = Date.now()
  let lock
  try {
    lock = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    console.error(`${file}: cannot read it as JSON: ${error.message}`)
    return 1
  }
  const problems = problemsOf(lock)
  if (problems.length > 0) {
    console.error(
      `${file} is not whole (${problems.length} problem${problems.length === 1 ? '' : 's'}); ` +
        'regenerate it from nothing with `npm run lock`:\n' +
        problems.map(p => `  - ${p}\n`).join('')
    )
    return 1
  }
  const entries = Object.keys(lock.packages).length - 1
  console.log(
    `${file}: ${entries} entries, each with a version; every optional dependency placed ` +
      `(${Date.now() - started} ms)`
  )
  if (values['lock-only']) return 0
  const failed = await dryRuns(dir, NPMS)
  if (failed.length === 0) return 0
  console.error(`npm ci --dry-run failed with ${failed.join(', ')}`)
  return 1
}

if (isMain(import.meta.url)) process.exitCode = await main()
