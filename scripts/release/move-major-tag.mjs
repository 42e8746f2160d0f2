// `node scripts/release/move-major-tag.mjs vX.Y.Z [REMOTE]`: points the major tag `vX` at the
// release's commit and pushes it (forced: the tag moves), so that `uses: OWNER/record-deployment@vX`
// runs the newest release of that major. Only when vX.Y.Z is the highest `vX.*.*` tag: a fix of
// an older minor (v1.2.1 after v1.3.0) leaves `vX` where it is. Run in the clone that has the tags.
import { execFileSync } from 'node:child_process'
import { isMain } from '../is-main.mjs'

/** @param {string[]} args @param {string} cwd */
const git = (args, cwd) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()

/** @param {string} tag @returns {number[] | undefined} */
const parts = tag => {
  const match = /^v(\d+)\.(\d+)\.(\d+)$/.exec(tag)
  return match ? match.slice(1).map(Number) : undefined
}

/**
 * Moves the major tag of `tag` to its commit when `tag` is the highest of its major, and pushes it.
 * @param {string} tag `vX.Y.Z`
 * @param {{ cwd?: string, remote?: string }} [options]
 * @returns {{ major: string, moved: boolean, commit: string, reason: string }}
 */
export function moveMajorTag(tag, { cwd = process.cwd(), remote = 'origin' } = {}) {
  const version = parts(tag)
  if (!version) throw new Error(`\`${tag}\` is not a release tag vX.Y.Z`)
  const major = `v${version[0]}`
  const commit = git(['rev-parse', `refs/tags/${tag}^{commit}`], cwd)
  const newer = newerTags(tag, `${major}.*.*`, cwd)
  if (newer.length > 0)
    return { major, moved: false, commit, reason: `${newer.join(', ')} is newer` }
  git(['tag', '--force', major, commit], cwd)
  git(['push', '--force', remote, `refs/tags/${major}:refs/tags/${major}`], cwd)
  return { major, moved: true, commit, reason: `${tag} is the newest ${major}` }
}

/**
 * The release tags matching `pattern` (a `git tag --list` pattern) that are newer than `tag`.
 * @param {string} tag `vX.Y.Z` @param {string} pattern @param {string} cwd
 * @returns {string[]}
 */
export function newerTags(tag, pattern, cwd) {
  const version = parts(tag)
  if (!version) throw new Error(`\`${tag}\` is not a release tag vX.Y.Z`)
  return git(['tag', '--list', pattern], cwd)
    .split('\n')
    .filter(other => {
      const p = parts(other)
      if (!p) return false
      for (let i = 0; i < 3; i++) if (p[i] !== version[i]) return (p[i] ?? 0) > (version[i] ?? 0)
      return false
    })
}

/**
 * The npm dist-tag to publish `tag` under, by the major tag's rule: `latest` only for the newest
 * release of all, since npm resolves a range (`record-deployment@1`) to `latest` whenever `latest`
 * satisfies it, and `npm install record-deployment` installs `latest`. A fix of an older major or
 * minor gets `latest-X` (the newest of its major) or `latest-X.Y`, names npm takes as tags (not
 * ranges): `@1` still resolves to the newest 1.x, as `v1` does.
 * @param {string} tag `vX.Y.Z`
 * @param {{ cwd?: string }} [options]
 * @returns {string}
 */
export function distTag(tag, { cwd = process.cwd() } = {}) {
  const version = parts(tag)
  if (!version) throw new Error(`\`${tag}\` is not a release tag vX.Y.Z`)
  if (newerTags(tag, 'v*.*.*', cwd).length === 0) return 'latest'
  if (newerTags(tag, `v${version[0]}.*.*`, cwd).length === 0) return `latest-${version[0]}`
  return `latest-${version[0]}.${version[1]}`
}

// Run as a script (the workflow's step), not imported (the tests).
if (isMain(import.meta.url)) {
  const [tag = '', remote = 'origin'] = process.argv.slice(2)
  try {
    const result = moveMajorTag(tag, { remote })
    process.stdout.write(
      result.moved
        ? `${result.major} now points at ${tag} (${result.commit})\n`
        : `${result.major} left where it is: ${result.reason}\n`
    )
  } catch (error) {
    process.stderr.write(`move-major-tag: ${error instanceof Error ? error.message : error}\n`)
    process.exitCode = 1
  }
}
