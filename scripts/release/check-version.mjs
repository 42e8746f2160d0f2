// `node scripts/release/check-version.mjs vX.Y.Z` (or a prerelease, vX.Y.Z-rc.1): the tag is the version everything else names:
// package.json's `version`, and src/shared/version.ts (the user agent, `record-deployment --version`);
// and package.json's `repository` is the repository releasing (GITHUB_REPOSITORY, when set), as
// npm's provenance requires. Fails naming each that differs, before anything is published.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isMain } from '../is-main.mjs'
import { releaseTag } from './move-major-tag.mjs'

/**
 * Each place whose version is not the tag's.
 * @param {string} tag `vX.Y.Z` or `vX.Y.Z-rc.N`
 * @param {string} [root]
 * @param {string} [repository] `owner/name`
 * @returns {string[]}
 */
export function versionProblems(
  tag,
  root = process.cwd(),
  repository = process.env['GITHUB_REPOSITORY']
) {
  if (!releaseTag(tag)) return [`\`${tag}\` is not a release tag vX.Y.Z (or vX.Y.Z-rc.N)`]
  const version = tag.slice(1)
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const pkg = manifest.version
  const url = String(manifest.repository?.url ?? '')
  const source = /ACTION_VERSION = '([^']*)'/.exec(
    readFileSync(join(root, 'src/shared/version.ts'), 'utf8')
  )?.[1]
  return [
    ...(pkg === version ? [] : [`package.json says ${pkg}, the tag ${tag}`]),
    ...(source === version ? [] : [`src/shared/version.ts says ${source}, the tag ${tag}`]),
    ...(!repository || url.replace(/\.git$/, '').endsWith(`github.com/${repository}`)
      ? []
      : [`package.json's repository is \`${url}\`, not github.com/${repository}`])
  ]
}

// Run as a script (the workflow's step), not imported (the tests).
if (isMain(import.meta.url)) {
  const problems = versionProblems(process.argv[2] ?? '')
  for (const p of problems) process.stderr.write(`check-version: ${p}\n`)
  if (problems.length > 0) process.exitCode = 1
}
