// `node scripts/release/changelog-section.mjs X.Y.Z [CHANGELOG.md]`: prints that version's section
// of the changelog (the lines under its `## X.Y.Z` heading, or `## [X.Y.Z](link)`, up to the next
// `## `), the text of the GitHub release. Fails, saying why, when the section is missing or empty, or still headed
// "unreleased": a release's notes are written and dated before its tag.
import { readFileSync } from 'node:fs'
import { isMain } from '../is-main.mjs'

/**
 * The body of `version`'s section, or an error saying what is wrong.
 * @param {string} changelog the changelog's text
 * @param {string} version `X.Y.Z` (or `X.Y.Z-rc.N`), without `v`
 * @returns {{ notes: string } | { error: string }}
 */
export function changelogSection(changelog, version) {
  const lines = changelog.split(/\r?\n/)
  const escaped = version.replace(/\./g, '\\.')
  // `## 1.2.0 (date)`, `## v1.2.0`, `## [1.2.0] - date`, `## [1.2.0](compare link) (date)`
  const heading = new RegExp(`^## (?:v?${escaped}|\\[v?${escaped}\\](?:\\(\\S*\\))?)(?=\\s|$)`)
  const start = lines.findIndex(line => heading.test(line))
  if (start < 0) return { error: `CHANGELOG has no section \`## ${version}\`` }
  if (/unreleased/i.test(lines[start] ?? ''))
    return {
      error: `CHANGELOG's section for ${version} is headed "${lines[start]}": date it (\`## ${version} (YYYY-MM-DD)\`) before the tag`
    }
  const end = lines.findIndex((line, i) => i > start && /^## /.test(line))
  const notes = lines
    .slice(start + 1, end < 0 ? undefined : end)
    .join('\n')
    .trim()
  if (!notes) return { error: `CHANGELOG's section for ${version} is empty` }
  return { notes: notes + '\n' }
}

// Run as a script (the workflow's step), not imported (the tests).
if (isMain(import.meta.url)) {
  const [version = '', file = 'CHANGELOG.md'] = process.argv.slice(2)
  const found = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)
    ? changelogSection(readFileSync(file, 'utf8'), version)
    : { error: `usage: changelog-section.mjs X.Y.Z [CHANGELOG.md] (got \`${version}\`)` }
  if ('error' in found) {
    process.stderr.write(`changelog-section: ${found.error}\n`)
    process.exitCode = 1
  } else process.stdout.write(found.notes)
}
