// `node scripts/release/dist-current.mjs`: rebuilds dist/ (`npm run bundle`) in this checkout and
// fails when that changed anything git tracks there or left a file it does not: the committed
// dist/ is what `uses:` and the package run, so it must be what the sources build.
import { execFileSync } from 'node:child_process'
import { isMain } from '../is-main.mjs'

/**
 * The `git status --porcelain` lines of dist/ after a rebuild in `cwd`; none when it is current.
 * @param {string} cwd
 * @returns {string[]}
 */
export function staleDist(cwd = process.cwd()) {
  execFileSync(process.execPath, ['scripts/bundle.mjs'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  return execFileSync('git', ['status', '--porcelain', '--', 'dist'], { cwd, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
}

// Run as a script (the workflow's step), not imported (the tests).
if (isMain(import.meta.url)) {
  const stale = staleDist()
  if (stale.length > 0) {
    process.stderr.write(
      `dist-current: dist/ is not what the sources build: run \`npm run bundle\` and commit dist/\n` +
        stale.map(line => `  ${line}\n`).join('')
    )
    process.exitCode = 1
  } else process.stdout.write('dist/ is current\n')
}
