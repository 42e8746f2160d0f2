// `npm run openapi-excerpt`: writes __tests__/conformance/api.github.com.excerpt.json, the part of
// GitHub's published OpenAPI description (`@octokit/openapi`, the version pinned below) that the
// conformance tests check against: the path items of every endpoint the action calls, and every
// component they reference, byte for byte as published. The whole package is 385 MB of install
// for a few hundred KB that matter, so it is not a dependency; this script fetches the pinned
// tarball into .tmp/openapi (a 29 MB download, 40 MB on disk) when it is not there.
//   --check   writes nothing; exits 1 if the committed excerpt differs from the package's (CI runs it)
//   --from F  read the description from the file F instead
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

export const PACKAGE = '@octokit/openapi'
export const VERSION = '23.0.2'
const FILE = 'generated/api.github.com.json'

/** The endpoints the action calls (src/service/), with the deprecated alias of compare kept so matching ties resolve as in the whole description. */
export const TEMPLATES = [
  '/orgs/{org}/artifacts/metadata/deployment-record',
  '/orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}',
  '/orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}/jobs',
  '/orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}/jobs/{job_id}',
  '/orgs/{org}/artifacts/metadata/storage-record',
  '/orgs/{org}/artifacts/{subject_digest}/metadata/deployment-records',
  '/orgs/{org}/artifacts/{subject_digest}/metadata/storage-records',
  '/repos/{owner}/{repo}/labels',
  '/repos/{owner}/{repo}/labels/{name}',
  '/repos/{owner}/{repo}/issues/{issue_number}',
  '/repos/{owner}/{repo}/issues/{issue_number}/labels',
  '/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}',
  '/repos/{owner}/{repo}/pulls',
  '/repos/{owner}/{repo}/pulls/{pull_number}',
  '/repos/{owner}/{repo}/pulls/{pull_number}/commits',
  '/repos/{owner}/{repo}/commits/{commit_sha}/pulls',
  '/repos/{owner}/{repo}/compare/{basehead}',
  '/repos/{owner}/{repo}/compare/{base}...{head}',
  '/repos/{owner}/{repo}/tags',
  '/search/issues'
]

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const EXCERPT = join(root, '__tests__/conformance/api.github.com.excerpt.json')

/** The published description's file, if this checkout has the pinned package (node_modules or .tmp/). */
export function findDescription() {
  for (const dir of [join(root, 'node_modules', PACKAGE), join(root, '.tmp/openapi/package')]) {
    const pkg = join(dir, 'package.json')
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).version === VERSION)
      return join(dir, FILE)
  }
  return undefined
}

function fetchDescription() {
  const dir = join(root, '.tmp/openapi')
  mkdirSync(dir, { recursive: true })
  console.error(`fetching ${PACKAGE}@${VERSION} into .tmp/openapi ...`)
  const name = execFileSync(
    'npm',
    ['pack', '--silent', `${PACKAGE}@${VERSION}`, '--pack-destination', dir],
    { encoding: 'utf8' }
  )
    .trim()
    .split('\n')
    .pop()
  execFileSync('tar', [
    '-xzf',
    join(dir, name),
    '-C',
    dir,
    `package/${FILE}`,
    'package/package.json'
  ])
  return join(dir, 'package', FILE)
}

/** The excerpt of a whole description: the path items of TEMPLATES and what they reference. */
export function excerpt(doc) {
  const paths = {}
  for (const template of TEMPLATES) {
    if (!doc.paths[template]) throw new Error(`${template} is not in the description`)
    paths[template] = doc.paths[template]
  }
  const components = {}
  const seen = new Set()
  const visit = value => {
    if (Array.isArray(value)) return value.forEach(visit)
    if (typeof value !== 'object' || value === null) return
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string' && !seen.has(inner)) {
        seen.add(inner)
        const [, kind, name] = inner.split('/').slice(1)
        const target = doc.components[kind][name.replace(/~1/g, '/').replace(/~0/g, '~')]
        ;(components[kind] ??= {})[name] = target
        visit(target)
      } else visit(inner)
    }
  }
  visit(paths)
  for (const kind of Object.keys(components)) {
    components[kind] = Object.fromEntries(
      Object.entries(components[kind]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    )
  }
  return {
    'x-excerpt': {
      of: `${PACKAGE}@${VERSION} ${FILE}`,
      by: 'scripts/openapi-excerpt.mjs',
      templates: TEMPLATES.length
    },
    openapi: doc.openapi,
    info: doc.info,
    paths,
    components
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values: args } = parseArgs({
    options: { check: { type: 'boolean', default: false }, from: { type: 'string' } }
  })
  const source = args.from ?? findDescription() ?? fetchDescription()
  const text = JSON.stringify(excerpt(JSON.parse(readFileSync(source, 'utf8'))), null, 1) + '\n'
  if (args.check) {
    if (readFileSync(EXCERPT, 'utf8') !== text) {
      console.error(
        `${EXCERPT} differs from ${PACKAGE}@${VERSION}: run 'npm run openapi-excerpt' and commit it`
      )
      process.exit(1)
    }
    console.log(`the committed excerpt is ${PACKAGE}@${VERSION}'s (${TEMPLATES.length} endpoints)`)
  } else {
    writeFileSync(EXCERPT, text)
    console.log(`wrote ${EXCERPT} (${Math.round(text.length / 1024)} KiB) from ${source}`)
  }
}
