// `node scripts/release/dist-tag.mjs vX.Y.Z`: prints the npm dist-tag to publish the release under
// (move-major-tag.mjs's distTag): `latest` for the newest release, `latest-X` or `latest-X.Y` for a
// fix of an older major or minor, so that such a fix does not become what `record-deployment@1`
// and `npm install record-deployment` resolve to; `next` for a prerelease (vX.Y.Z-rc.N). Run in
// the clone that has the tags.
import { distTag } from './move-major-tag.mjs'

try {
  process.stdout.write(`${distTag(process.argv[2] ?? '')}\n`)
} catch (error) {
  process.stderr.write(`dist-tag: ${error instanceof Error ? error.message : error}\n`)
  process.exitCode = 1
}
