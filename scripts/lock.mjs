// `npm run lock`: writes package-lock.json from nothing, then checks it (scripts/check-lock.mjs;
// arguments go to it, e.g. `npm run lock -- --lock-only`).
// Updating a lock in place keeps what the old one got wrong: one written on a single platform has
// the other platforms' optional packages nested without a version, and npm updating it keeps them
// so (npm then stops at `npm ci` with "Invalid Version"). Without a lock, npm starts from what
// node_modules holds, this platform's packages only. So npm writes the lock in a scratch folder
// that holds only package.json (and .npmrc, if the project has one): no old lock, no node_modules,
// no install script. One pinned npm writes it, so the lock does not change with the npm of
// whoever runs this.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isMain } from './is-main.mjs'

/** The npm that writes the lock. */
export const NPM = '11.13.0'

/**
 * What `npm install` is given to write the lock. Besides the npm, the writer's npm configuration
 * would shape the lock: the lock's format (`lockfile-version`) and each entry's `resolved`, the
 * URL of the registry it was fetched from (a mirror's, behind a corporate proxy, that no one else
 * can reach; npm's public registry elsewhere). So the format is fixed and `resolved` left out
 * (`integrity` stays): npm ci fetches each package from the registry its user configured.
 */
export const LOCK_FLAGS = [
  '--package-lock-only',
  '--ignore-scripts',
  '--no-audit',
  '--no-fund',
  '--lockfile-version=3',
  '--omit-lockfile-registry-resolved'
]

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

function run(command, args, cwd, shell = false) {
  console.log(`$ ${[command, ...args].join(' ')}`)
  const { status, error } = spawnSync(command, args, { cwd, stdio: 'inherit', shell })
  if (error) throw error
  return status ?? 1
}

function main() {
  const scratch = mkdtempSync(join(tmpdir(), 'record-deployment-lock-'))
  try {
    for (const file of ['package.json', '.npmrc'])
      if (existsSync(join(root, file))) copyFileSync(join(root, file), join(scratch, file))
    // npx is npx.cmd on Windows, which only a shell starts
    const status = run('npx', ['--yes', `npm@${NPM}`, 'install', ...LOCK_FLAGS], scratch, true)
    if (status !== 0) return status
    copyFileSync(join(scratch, 'package-lock.json'), join(root, 'package-lock.json'))
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
  return run(process.execPath, [
    join(root, 'scripts/check-lock.mjs'),
    root,
    ...process.argv.slice(2)
  ])
}

// Run as a script (`npm run lock`), not imported (the tests).
if (isMain(import.meta.url)) process.exitCode = main()
