// `node scripts/release/first-publish.mjs vX.Y.Z-rc.N`: a prerelease is never the package's first
// version on npm. npm gives a package's first version the `latest` dist-tag whatever `--tag`
// says (a package always has a `latest`), so a first publish of 1.0.0-rc.1 would be what
// `npm install record-deployment` installs, and `record-deployment@1` (which matches no
// prerelease) would fail until 1.0.0 ships. For a prerelease tag it asks npm which versions of
// the package exist (`npm view NAME versions --json`; E404: none) and fails, before anything is
// published, when there are none. A final version (vX.Y.Z) asks nothing.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isMain } from '../is-main.mjs'
import { releaseTag } from './move-major-tag.mjs'

/**
 * Why `tag` cannot be published, given the versions of `name` already on npm; undefined when it can.
 * @param {string} tag @param {string[]} published @param {string} name
 * @returns {string | undefined}
 */
export function firstPublishProblem(tag, published, name) {
  const release = releaseTag(tag)
  if (!release?.prerelease || published.length > 0) return undefined
  const final = `v${release.numbers.join('.')}`
  return (
    `${tag} is a prerelease and ${name} has no version on npm yet: npm gives a package's first ` +
    'version the `latest` dist-tag whatever `--tag` says, so `npm install` and ' +
    `\`${name}@${release.numbers[0]}\` would get the prerelease (or fail). Release a final ` +
    `version first (${final}, docs/releasing.md), then prereleases; delete this tag ` +
    `(\`git push origin :refs/tags/${tag}\`)`
  )
}

/**
 * The versions of `name` on npm, from `npm view NAME versions --json` (a list, or one version as a
 * string); none when npm answers E404 (no such package). Any other failure is thrown: the check
 * cannot tell, so it does not pass.
 * @param {string} name @param {(args: string[]) => string} [npm]
 * @returns {string[]}
 */
export function publishedVersions(name, npm = npmRun) {
  let out
  try {
    out = npm(['view', name, 'versions', '--json'])
  } catch (error) {
    const said = String(/** @type {{ stderr?: unknown }} */ (error).stderr ?? '')
    if (/\bE404\b/.test(said)) return []
    throw new Error(
      `could not ask npm which versions of ${name} exist: ${said.trim().split('\n')[0] || error}`
    )
  }
  if (!out.trim()) return []
  const parsed = JSON.parse(out)
  return (Array.isArray(parsed) ? parsed : [parsed]).map(String)
}

/** @param {string[]} args */
const npmRun = args =>
  execFileSync('npm', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

// Run as a script (the workflow's step), not imported (the tests).
if (isMain(import.meta.url)) {
  const tag = process.argv[2] ?? ''
  try {
    if (releaseTag(tag)?.prerelease) {
      const name = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')).name
      const problem = firstPublishProblem(tag, publishedVersions(name), name)
      if (problem) throw new Error(problem)
      process.stdout.write(`${name} is on npm: the prerelease ${tag} goes to \`next\`\n`)
    }
  } catch (error) {
    process.stderr.write(`first-publish: ${error instanceof Error ? error.message : error}\n`)
    process.exitCode = 1
  }
}
