/**
 * scripts/check-lock.mjs, run as .ci/run runs it (a process), on copies of the project's lock in a
 * scratch folder: the lock itself passes; a copy with an entry without a version, or lacking a
 * platform's optional package, fails naming the entry. `--lock-only`: the `npm ci --dry-run` part
 * needs the registry and is left to .ci/run.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { projectRoot } from '../../scripts/run-action.js'

const exec = promisify(execFile)
const root = projectRoot()
const script = join(root, 'scripts/check-lock.mjs')

interface Entry {
  version?: string
  link?: boolean
  resolved?: string
  optionalDependencies?: Record<string, string>
  [field: string]: unknown
}
interface Lock {
  packages: Record<string, Entry>
}

const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8')) as Lock
const BINDING = 'node_modules/@unrs/resolver-binding-darwin-arm64'
const NESTED = 'node_modules/unrs-resolver/node_modules/@unrs/resolver-binding-darwin-arm64'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-deployment-lock-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

/** The check on `packages` written as a lock of its own; its exit code and what it printed. */
async function check(packages: Record<string, Entry>) {
  await writeFile(join(dir, 'package-lock.json'), JSON.stringify({ ...lock, packages }, null, 2))
  try {
    const { stdout, stderr } = await exec(process.execPath, [script, dir, '--lock-only'])
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

/** The lock's packages without `path`. */
function without(path: string): Record<string, Entry> {
  const { [path]: _gone, ...rest } = lock.packages
  return rest
}

test('the committed lock is whole: every entry has a version, every optional package is placed', async () => {
  expect(lock.packages['node_modules/unrs-resolver']?.optionalDependencies).toHaveProperty(
    '@unrs/resolver-binding-darwin-arm64'
  )
  expect(lock.packages[BINDING]?.version).toMatch(/^\d+\.\d+\.\d+/)
  const run = await check(lock.packages)
  expect(run.stderr).not.toMatch(/not whole/)
  expect(run.stdout).toMatch(/entries, each with a version; every optional dependency placed/)
  expect(run.code).toBe(0)
})

test('an entry without a version (what npm stops at with "Invalid Version") fails, named', async () => {
  const versionless = { dev: true, optional: true }
  const run = await check({ ...without(BINDING), [NESTED]: versionless })
  expect(run.code).toBe(1)
  expect(run.stderr).toContain(`not whole (1 problem)`)
  expect(run.stderr).toContain(`- ${NESTED}: no "version"`)
  expect(run.stderr).toContain('npm run lock')
})

test('an optional platform package that the lock cannot place fails, named with who needs it', async () => {
  const run = await check(without(BINDING))
  expect(run.code).toBe(1)
  expect(run.stderr).toContain(
    '- @unrs/resolver-binding-darwin-arm64: in the optionalDependencies of node_modules/unrs-resolver'
  )
  expect(run.stderr).toContain(`(${NESTED}, ${BINDING})`)
})

test('a package placed where resolution finds it (nested under its dependent) passes', async () => {
  const binding = lock.packages[BINDING] as Entry
  const run = await check({ ...without(BINDING), [NESTED]: binding })
  expect(run.stderr).toBe('')
  expect(run.code).toBe(0)
})

test('a package nested under another one is not where its dependent finds it', async () => {
  const binding = lock.packages[BINDING] as Entry
  const elsewhere = `node_modules/esbuild/node_modules/@unrs/resolver-binding-darwin-arm64`
  const run = await check({ ...without(BINDING), [elsewhere]: binding })
  expect(run.code).toBe(1)
  expect(run.stderr).toContain('@unrs/resolver-binding-darwin-arm64: in the optionalDependencies')
})

test('a link (a workspace) needs no version of its own', async () => {
  const run = await check({
    ...lock.packages,
    'node_modules/tool': { resolved: 'packages/tool', link: true },
    'packages/tool': { version: '0.0.0', optionalDependencies: { 'left-pad': '^1.3.0' } },
    'node_modules/left-pad': { version: '1.3.0' }
  })
  expect(run.stderr).toBe('')
  expect(run.code).toBe(0)
})

test("an entry resolved from a registry other than npm's (a mirror only its writer reaches) fails, named", async () => {
  const mirror = 'https://npm.corp.example/artifactory/api/npm/npm-remote/'
  const binding = lock.packages[BINDING] as Entry
  const tarball = (registry: string) =>
    `${registry}@unrs/resolver-binding-darwin-arm64/-/resolver-binding-darwin-arm64-${binding.version}.tgz`
  const run = await check({
    ...lock.packages,
    [BINDING]: { ...binding, resolved: tarball(mirror) }
  })
  expect(run.code).toBe(1)
  expect(run.stderr).toContain(`- ${BINDING}: "resolved" names the registry ${mirror}`)
  // npm's own registry, and a tarball from elsewhere that is not a registry's, pass
  const own = tarball('https://registry.npmjs.org/')
  const github = 'https://codeload.github.com/acme/tool/tar.gz/0123456789abcdef'
  const fine = await check({
    ...lock.packages,
    [BINDING]: { ...binding, resolved: own },
    'node_modules/tool': { version: '1.0.0', resolved: github }
  })
  expect(fine.stderr).toBe('')
  expect(fine.code).toBe(0)
})

test('started through a symlink by its absolute path, the check still checks: a bad lock exits 1, not a silent 0', async () => {
  await writeFile(
    join(dir, 'package-lock.json'),
    JSON.stringify({ ...lock, packages: { ...lock.packages, [NESTED]: { optional: true } } })
  )
  const linked = join(dir, 'scripts-link')
  await symlink(join(root, 'scripts'), linked, 'dir')
  // the release scripts alike: the version check names a wrong tag
  const runs = await Promise.all(
    [
      [join(linked, 'check-lock.mjs'), dir, '--lock-only'],
      [join(linked, 'release/check-version.mjs'), 'v0.0.wrong']
    ].map(args =>
      exec(process.execPath, args, { cwd: root }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr })
      )
    )
  )
  expect(runs.map(r => r.code)).toEqual([1, 1])
  expect(runs[0]?.stderr).toContain(`- ${NESTED}: no "version"`)
  expect(runs[1]?.stderr).toContain('is not a release tag')
})
