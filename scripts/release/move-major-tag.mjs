// `node scripts/release/move-major-tag.mjs vX.Y.Z [REMOTE]`: points the major tag `vX` at the
// release's commit and pushes it (forced: the tag moves), so that `uses: OWNER/record-deployment@vX`
// runs the newest release of that major. Only when vX.Y.Z is the highest `vX.*.*` tag: a fix of
// an older minor (v1.2.1 after v1.3.0) leaves `vX` where it is, and a prerelease (v1.3.0-rc.1)
// never moves it. Run in the clone that has the tags.
//
// The push carries MAJOR_TAG_TOKEN (the secret of that name: a GitHub App installation token or a
// fine-grained personal access token that may write workflows, docs/releasing.md), for that one
// push only: GitHub refuses a ref update that changes `.github/workflows/` from the workflow's own
// token, and moving `vX` from the last release to this one changes them whenever a workflow
// changed in between. The token goes to git as an `http.extraheader` in git's environment
// (GIT_CONFIG_COUNT), never in its arguments (a process list shows those).
//
// `--check` moves nothing: it says whether the tag would move and fails, naming the secret, when
// it would and MAJOR_TAG_TOKEN is empty or refused (a `git push --dry-run` of the move with it:
// the remote authenticates it and checks its write access, nothing is sent), so that an expired
// or revoked token stops the job before anything is published, not after.
import { Buffer } from 'node:buffer'
import { execFileSync } from 'node:child_process'
import { isMain } from '../is-main.mjs'

/** The secret (and environment variable) holding the token the major tag is pushed with. */
export const TOKEN_SECRET = 'MAJOR_TAG_TOKEN'

/** @param {string[]} args @param {string} cwd @param {NodeJS.ProcessEnv} [env] */
const git = (args, cwd, env = process.env) =>
  execFileSync('git', args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe']
  }).trim()

/**
 * A release tag's parts: `vX.Y.Z` or a prerelease `vX.Y.Z-rc.1` (semver's prerelease part).
 * @param {string} tag
 * @returns {{ numbers: number[], prerelease: string | undefined } | undefined}
 */
export function releaseTag(tag) {
  const match = /^v(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/.exec(tag)
  return match ? { numbers: match.slice(1, 4).map(Number), prerelease: match[4] } : undefined
}

/** @param {string} tag */
const parsed = tag => {
  const release = releaseTag(tag)
  if (!release) throw new Error(`\`${tag}\` is not a release tag vX.Y.Z (or vX.Y.Z-rc.N)`)
  return release
}

/**
 * Whether the major tag of `tag` moves to it: not for a prerelease, nor when a newer `vX.*.*`
 * release exists.
 * @param {string} tag @param {{ cwd?: string }} [options]
 * @returns {{ major: string, move: boolean, reason: string }}
 */
export function majorTagPlan(tag, { cwd = process.cwd() } = {}) {
  const { numbers, prerelease } = parsed(tag)
  const major = `v${numbers[0]}`
  if (prerelease) return { major, move: false, reason: `${tag} is a prerelease` }
  const newer = newerTags(tag, `${major}.*.*`, cwd)
  if (newer.length > 0) return { major, move: false, reason: `${newer.join(', ')} is newer` }
  return { major, move: true, reason: `${tag} is the newest ${major}` }
}

/** What the workflow says when the major tag would move and there is no token to move it with. */
export function missingToken(major) {
  return (
    `the secret ${TOKEN_SECRET} is empty, and ${major} moves with it: GitHub refuses a tag ` +
    "update that changes .github/workflows/ from the workflow's own token. Add a GitHub App " +
    'installation token or a fine-grained personal access token with Contents and Workflows ' +
    `write on this repository as the secret ${TOKEN_SECRET} (docs/releasing.md), then re-run`
  )
}

/**
 * What the workflow says when the remote refused MAJOR_TAG_TOKEN on the check's dry-run push.
 * @param {string} major @param {string} remote @param {string} said git's first line
 */
export function refusedToken(major, remote, said) {
  return (
    `the secret ${TOKEN_SECRET} was refused by ${remote} (${said}), and ${major} moves with it: ` +
    'it has expired, was revoked, or may not write this repository. Renew it (Contents and ' +
    `Workflows write on this repository, docs/releasing.md), store it as ${TOKEN_SECRET}, then re-run`
  )
}

/**
 * Fails with refusedToken unless `remote` accepts `token` for the major tag's move: a
 * `git push --dry-run` of it, which authenticates (and, on GitHub, checks write access) and
 * sends nothing. Nothing is checked when the tag does not move.
 * @param {string} tag @param {{ cwd?: string, remote?: string, token?: string }} [options]
 * @returns {{ major: string, move: boolean, reason: string }}
 */
export function checkMajorTag(
  tag,
  { cwd = process.cwd(), remote = 'origin', token = process.env[TOKEN_SECRET] ?? '' } = {}
) {
  const plan = majorTagPlan(tag, { cwd })
  if (!plan.move) return plan
  if (!token) throw new Error(missingToken(plan.major))
  const commit = git(['rev-parse', `refs/tags/${tag}^{commit}`], cwd)
  const ref = `refs/tags/${plan.major}`
  try {
    git(['push', '--dry-run', '--force', remote, `${commit}:${ref}`], cwd, pushEnv(token))
  } catch (error) {
    const said = String(/** @type {{ stderr?: unknown }} */ (error).stderr ?? '')
      .split(token)
      .join('***')
      .trim()
      .split('\n')
      .filter(Boolean)
    throw new Error(refusedToken(plan.major, remote, said.at(-1) ?? 'no answer'))
  }
  return plan
}

/**
 * Git's environment for one push with `token`: an `Authorization` header for every HTTP remote,
 * added to whatever configuration the environment already gives git.
 * @param {string} token @param {NodeJS.ProcessEnv} env @returns {NodeJS.ProcessEnv}
 */
export function pushEnv(token, env = process.env) {
  const count = Number(env['GIT_CONFIG_COUNT'] ?? 0) || 0
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64')
  return {
    ...env,
    // a refused token fails the push, never waits for a prompt
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_COUNT: String(count + 1),
    [`GIT_CONFIG_KEY_${count}`]: 'http.extraheader',
    [`GIT_CONFIG_VALUE_${count}`]: `AUTHORIZATION: basic ${basic}`
  }
}

/**
 * Moves the major tag of `tag` to its commit when majorTagPlan says so, and pushes it with `token`.
 * @param {string} tag `vX.Y.Z`
 * @param {{ cwd?: string, remote?: string, token?: string }} [options]
 * @returns {{ major: string, moved: boolean, commit: string, reason: string }}
 */
export function moveMajorTag(
  tag,
  { cwd = process.cwd(), remote = 'origin', token = process.env[TOKEN_SECRET] ?? '' } = {}
) {
  const plan = majorTagPlan(tag, { cwd })
  const commit = git(['rev-parse', `refs/tags/${tag}^{commit}`], cwd)
  if (!plan.move) return { major: plan.major, moved: false, commit, reason: plan.reason }
  if (!token) throw new Error(missingToken(plan.major))
  git(['tag', '--force', plan.major, commit], cwd)
  const ref = `refs/tags/${plan.major}`
  git(['push', '--force', remote, `${ref}:${ref}`], cwd, pushEnv(token))
  return { major: plan.major, moved: true, commit, reason: plan.reason }
}

/**
 * The release tags (not prereleases) matching `pattern` (a `git tag --list` pattern) that are
 * newer than `tag`.
 * @param {string} tag `vX.Y.Z` @param {string} pattern @param {string} cwd
 * @returns {string[]}
 */
export function newerTags(tag, pattern, cwd) {
  const version = parsed(tag).numbers
  return git(['tag', '--list', pattern], cwd)
    .split('\n')
    .filter(other => {
      const release = releaseTag(other)
      if (!release || release.prerelease) return false
      const p = release.numbers
      for (let i = 0; i < 3; i++) if (p[i] !== version[i]) return (p[i] ?? 0) > (version[i] ?? 0)
      return false
    })
}

/**
 * The npm dist-tag to publish `tag` under, by the major tag's rule: `latest` only for the newest
 * release of all, since npm resolves a range (`record-deployment@1`) to `latest` whenever `latest`
 * satisfies it, and `npm install record-deployment` installs `latest`. A fix of an older major or
 * minor gets `latest-X` (the newest of its major) or `latest-X.Y`, names npm takes as tags (not
 * ranges): `@1` still resolves to the newest 1.x, as `v1` does. A prerelease gets `next`: it is
 * installed only by asking for it (`record-deployment@next`, or its version).
 * @param {string} tag `vX.Y.Z` or `vX.Y.Z-rc.N`
 * @param {{ cwd?: string }} [options]
 * @returns {string}
 */
export function distTag(tag, { cwd = process.cwd() } = {}) {
  const { numbers, prerelease } = parsed(tag)
  if (prerelease) return 'next'
  if (newerTags(tag, 'v*.*.*', cwd).length === 0) return 'latest'
  if (newerTags(tag, `v${numbers[0]}.*.*`, cwd).length === 0) return `latest-${numbers[0]}`
  return `latest-${numbers[0]}.${numbers[1]}`
}

// Run as a script (the workflow's step), not imported (the tests).
if (isMain(import.meta.url)) {
  const args = process.argv.slice(2)
  const check = args.includes('--check')
  const [tag = '', remote = 'origin'] = args.filter(a => a !== '--check')
  try {
    if (check) {
      const plan = checkMajorTag(tag, { remote })
      process.stdout.write(
        plan.move
          ? `${plan.major} will move to ${tag}, pushed with ${TOKEN_SECRET} (${remote} accepts it)\n`
          : `${plan.major} stays where it is: ${plan.reason}\n`
      )
    } else {
      const result = moveMajorTag(tag, { remote })
      process.stdout.write(
        result.moved
          ? `${result.major} now points at ${tag} (${result.commit})\n`
          : `${result.major} left where it is: ${result.reason}\n`
      )
    }
  } catch (error) {
    process.stderr.write(`move-major-tag: ${error instanceof Error ? error.message : error}\n`)
    process.exitCode = 1
  }
}
