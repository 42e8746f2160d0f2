// `node scripts/release/release-flags.mjs vX.Y.Z DIST_TAG`: the flags of `gh release create` for
// the release, one a line: `--latest=false` unless its npm dist-tag is `latest` (a fix of an older
// line is never the repository's "Latest" release, as it is not npm's `latest`), and
// `--prerelease` for a prerelease tag (vX.Y.Z-rc.1), which is never "Latest" either.
import { isMain } from '../is-main.mjs'
import { releaseTag } from './move-major-tag.mjs'

/**
 * @param {string} tag @param {string} distTag
 * @returns {string[]}
 */
export function releaseFlags(tag, distTag) {
  const release = releaseTag(tag)
  if (!release) throw new Error(`\`${tag}\` is not a release tag vX.Y.Z (or vX.Y.Z-rc.N)`)
  if (!distTag) throw new Error('no npm dist-tag given (DIST_TAG, from the dist-tag step)')
  return [
    ...(release.prerelease ? ['--prerelease'] : []),
    ...(distTag === 'latest' && !release.prerelease ? ['--latest'] : ['--latest=false'])
  ]
}

// Run as a script (the workflow's step), not imported (the tests).
if (isMain(import.meta.url)) {
  try {
    const [tag = '', distTag = ''] = process.argv.slice(2)
    process.stdout.write(
      releaseFlags(tag, distTag)
        .map(f => `${f}\n`)
        .join('')
    )
  } catch (error) {
    process.stderr.write(`release-flags: ${error instanceof Error ? error.message : error}\n`)
    process.exitCode = 1
  }
}
