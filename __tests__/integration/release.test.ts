/**
 * The release workflow (.github/workflows/release.yml) read by GitHub's own parser, and its local
 * steps run here as the workflow runs them: each step's `run:` in bash, in a clone of this
 * checkout's HEAD tagged as a release would be (its CHANGELOG section dated), with the major tag
 * pushed to a local bare repository standing for `origin`. Publishing to npm and the GitHub release
 * need the service; `npm pack --dry-run` stands for the first, checked for what it would ship.
 */
import {
  convertWorkflowTemplate,
  NoOperationTraceWriter,
  parseWorkflow
} from '@actions/workflow-parser'
import { execFile, execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { copyFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { parse } from 'yaml'
import { npmEnv } from '../../__fixtures__/packed-cli.js'
import { projectRoot } from '../../scripts/run-action.js'
import { changelogSection } from '../../scripts/release/changelog-section.mjs'
import { packageProblems } from '../../scripts/release/package-files.mjs'

const exec = promisify(execFile)
const root = projectRoot()
const WORKFLOW = '.github/workflows/release.yml'
const text = await readFile(join(root, WORKFLOW), 'utf8')

interface Step {
  name?: string
  run?: string
  uses?: string
  with?: Record<string, unknown>
  env?: Record<string, string>
}
interface Job {
  needs?: string | string[]
  environment?: string
  permissions?: Record<string, string>
  steps: Step[]
}
const workflow = parse(text) as {
  on: { push: { tags: string[] } }
  permissions: Record<string, string>
  jobs: Record<string, Job>
}
/** The step named `name`, in whichever job holds it (each name is one step of the workflow). */
const step = (name: string): Step => {
  const found = Object.values(workflow.jobs).flatMap(job => job.steps.filter(s => s.name === name))
  if (found.length !== 1) throw new Error(`${found.length} steps "${name}" in the release jobs`)
  return found[0] as Step
}
const needsOf = (job: Job | undefined) => [job?.needs ?? []].flat()

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()

/** The step's `run:` in bash (`-e`, as the runner runs it) in `cwd`, with TAG and RUNNER_TEMP. */
async function runStep(name: string, cwd: string, env: Record<string, string> = {}) {
  const script = step(name).run ?? ''
  try {
    const { stdout, stderr } = await exec('bash', ['-e', '-c', script], {
      cwd,
      env: npmEnv({ TAG: tag, RUNNER_TEMP: temp, ...env })
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

const version = (
  JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string }
).version
const tag = `v${version}`
const major = tag.split('.')[0] ?? ''

let temp: string
let clone: string
let origin: string
beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'release-'))
  clone = join(temp, 'clone')
  origin = join(temp, 'origin.git')
  // The working tree as it is (its tracked and new files), committed in a repository of its own.
  git(temp, 'init', '--quiet', '--initial-branch', 'main', clone)
  for (const file of git(root, 'ls-files', '--cached', '--others', '--exclude-standard')
    .split('\n')
    .filter(f => f && existsSync(join(root, f)))) {
    await mkdir(dirname(join(clone, file)), { recursive: true })
    await copyFile(join(root, file), join(clone, file))
  }
  git(temp, 'init', '--quiet', '--bare', origin)
  // node_modules hard-linked, not a link to it: esbuild names chunks by their modules' paths, so
  // the rebuild matches only from a node_modules inside the checkout (copied if links cannot be).
  try {
    execFileSync('cp', ['-al', join(root, 'node_modules'), join(clone, 'node_modules')])
  } catch {
    await cp(join(root, 'node_modules'), join(clone, 'node_modules'), { recursive: true })
  }
  for (const [key, value] of Object.entries({
    'user.name': 'Release Test',
    'user.email': 'release@example.invalid',
    'commit.gpgsign': 'false',
    'tag.gpgsign': 'false'
  }))
    git(clone, 'config', key, value)
  // The CHANGELOG's section dated, as it is before its tag.
  const changelog = await readFile(join(clone, 'CHANGELOG.md'), 'utf8')
  await writeFile(
    join(clone, 'CHANGELOG.md'),
    changelog.replace(new RegExp(`^## ${version}.*$`, 'm'), `## ${version} (2026-01-15)`)
  )
  git(clone, 'add', '--all')
  git(clone, 'commit', '--quiet', '--message', `Release ${version}`)
  git(clone, 'tag', tag)
  git(clone, 'remote', 'add', 'origin', origin)
  git(clone, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main', '--tags')
}, 120_000)
afterAll(async () => rm(temp, { recursive: true, force: true }))

test("the release workflow passes GitHub's workflow parser, on vX.Y.Z tags, tests before the job that publishes", async () => {
  const parsed = parseWorkflow({ name: WORKFLOW, content: text }, new NoOperationTraceWriter())
  expect(parsed.context.errors.getErrors().map(e => e.message)).toEqual([])
  const template = await convertWorkflowTemplate(parsed.context, parsed.value!)
  expect(template.errors?.map(e => e.Message) ?? []).toEqual([])

  expect(workflow.on.push.tags).toEqual(['v[0-9]+.[0-9]+.[0-9]+', 'v[0-9]+.[0-9]+.[0-9]+-*'])
  expect(workflow.permissions).toEqual({})
  const { jobs } = workflow
  const test = jobs['test']?.steps.map(s => s.run).filter(Boolean)
  expect(test).toEqual(['npm ci --ignore-scripts', 'npm run lint', 'npm run typecheck', 'npm test'])
  // In the file's order, each job after the jobs it needs; every job after `test`.
  const names = Object.keys(jobs)
  for (const [name, job] of Object.entries(jobs))
    for (const need of needsOf(job))
      expect([name, need, names.indexOf(need) < names.indexOf(name)]).toEqual([name, need, true])
  const after = (name: string, earlier: string): boolean =>
    needsOf(jobs[name]).some(n => n === earlier || after(n, earlier))
  for (const name of names.slice(1)) expect([name, after(name, 'test')]).toEqual([name, true])
  // Every check comes before the job that publishes, and the GitHub release and v1 after it.
  const jobOf = (stepName: string) =>
    names.find(n => jobs[n]?.steps.some(s => s.name === stepName)) ?? ''
  const publisher = jobOf('Publish to npm with provenance')
  expect(step('Publish to npm with provenance').run).toContain(
    'npm publish --provenance --access public'
  )
  for (const check of [
    "The tag is the package's version",
    "A prerelease is not the package's first version on npm",
    'The major tag can be moved',
    'dist/ is what the sources build',
    "The release notes are the CHANGELOG's section",
    'Only dist/, action.yml, README, LICENSE and CHANGELOG ship',
    'The npm dist-tag'
  ])
    expect([check, after(publisher, jobOf(check))]).toEqual([check, true])
  expect(after(jobOf('GitHub release'), publisher)).toBe(true)
  expect(step('GitHub release').run).toContain('--notes-file "$RUNNER_TEMP/notes.md"')
  const last = jobOf('Move the major tag to the release')
  expect(after(last, jobOf('GitHub release'))).toBe(true)
  expect(names.filter(n => !Object.values(jobs).some(j => needsOf(j).includes(n)))).toEqual([last])
})

test('each release job holds only what it needs: the publisher is gated by the npm environment, no job that installs holds a credential, actions pinned by SHA', () => {
  const { jobs } = workflow
  const secretsOf = (job: Job) =>
    [...JSON.stringify(job).matchAll(/\$\{\{ *(secrets\.\w+|github\.token)/g)].map(m => m[1])
  const held = Object.fromEntries(
    Object.entries(jobs).map(([name, job]) => [
      name,
      {
        permissions: job.permissions,
        environment: job.environment,
        secrets: secretsOf(job),
        installs: job.steps.some(s => /\bnpm (ci|install|i)\b/.test(s.run ?? ''))
      }
    ])
  )
  expect(held).toEqual({
    test: { permissions: { contents: 'read' }, secrets: [], installs: true },
    check: { permissions: { contents: 'read' }, secrets: [], installs: true },
    'major-tag-check': {
      permissions: { contents: 'read' },
      environment: 'major-tag',
      secrets: ['secrets.MAJOR_TAG_TOKEN'],
      installs: false
    },
    npm: {
      permissions: { contents: 'read', 'id-token': 'write' },
      environment: 'npm',
      secrets: ['secrets.NPM_TOKEN'],
      installs: false
    },
    'github-release': {
      permissions: { contents: 'write' },
      secrets: ['github.token'],
      installs: false
    },
    'major-tag': {
      permissions: { contents: 'read' },
      environment: 'major-tag',
      secrets: ['secrets.MAJOR_TAG_TOKEN'],
      installs: false
    }
  })
  // the publish itself runs no package script either
  expect(step('Publish to npm with provenance').run).toContain('--ignore-scripts')
  // Every action by full commit SHA with its version beside it, and no credential left in a checkout.
  const lines = text.split('\n').filter(line => /^\s*-? *uses:/.test(line))
  expect(lines.length).toBeGreaterThan(0)
  for (const line of lines)
    expect([line, /uses: [\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/.test(line)]).toEqual([
      line,
      true
    ])
  for (const job of Object.values(jobs))
    for (const s of job.steps.filter(s => /^actions\/checkout@/.test(s.uses ?? '')))
      expect(s.with?.['persist-credentials']).toBe(false)
})

test('the version check passes for the package version and names each place a wrong tag differs from', async () => {
  expect((await runStep("The tag is the package's version", clone)).code).toBe(0)
  const wrong = await runStep("The tag is the package's version", clone, { TAG: 'v9.9.9' })
  expect(wrong.code).toBe(1)
  expect(wrong.stderr).toContain(`package.json says ${version}, the tag v9.9.9`)
  expect(wrong.stderr).toContain(`src/shared/version.ts says ${version}, the tag v9.9.9`)
})

test("the release notes step writes the tag's CHANGELOG section, and fails on an undated one", async () => {
  const run = await runStep("The release notes are the CHANGELOG's section", clone)
  expect(run.code).toBe(0)
  const notes = await readFile(join(temp, 'notes.md'), 'utf8')
  const changelog = await readFile(join(clone, 'CHANGELOG.md'), 'utf8')
  expect(notes.length).toBeGreaterThan(100)
  expect(changelog).toContain(`## ${version} (2026-01-15)\n\n${notes.split('\n')[0]}`)
  expect(notes).not.toMatch(/^## /m)
  // The working tree's own CHANGELOG, while it says "unreleased", would not release.
  const own = await readFile(join(root, 'CHANGELOG.md'), 'utf8')
  if (/^## \S+ \(unreleased\)/m.test(own))
    expect(changelogSection(own, version)).toEqual({
      error: expect.stringContaining('date it') as string
    })
})

test('a CHANGELOG section is cut at the next heading; a missing or empty one is an error', () => {
  const changelog =
    '# Changelog\n\n## 1.2.0 (2026-02-01)\n\n- b\n- c\n\n## 1.1.0\n\n- a\n\n## 1.0.0\n'
  expect(changelogSection(changelog, '1.2.0')).toEqual({ notes: '- b\n- c\n' })
  expect(changelogSection(changelog, '1.1.0')).toEqual({ notes: '- a\n' })
  expect(changelogSection(changelog, '1.0.0')).toEqual({
    error: "CHANGELOG's section for 1.0.0 is empty"
  })
  expect(changelogSection(changelog, '1.1')).toEqual({ error: 'CHANGELOG has no section `## 1.1`' })
  expect(changelogSection(changelog, '1.0.1')).toEqual({
    error: 'CHANGELOG has no section `## 1.0.1`'
  })
})

test('a section headed as release-please and conventional-changelog write it, `## [1.2.0](compare link) (date)`, is found', () => {
  const changelog =
    '# Changelog\r\n\r\n## [1.2.0](https://github.com/acme/r/compare/v1.1.0...v1.2.0) (2026-02-01)\r\n\r\n' +
    '- b\r\n\r\n## [1.1.0](https://github.com/acme/r/compare/v1.0.0...v1.1.0) (2026-01-01)\r\n\r\n- a\r\n'
  expect(changelogSection(changelog, '1.2.0')).toEqual({ notes: '- b\n' })
  expect(changelogSection(changelog, '1.1.0')).toEqual({ notes: '- a\n' })
  // the bracket holds the version alone: a pre-release's or another version's link is not it
  expect(changelogSection('## [1.2.0-rc.1](x)\n\n- rc\n', '1.2.0')).toEqual({
    error: 'CHANGELOG has no section `## 1.2.0`'
  })
  expect(changelogSection('## 1.2.0(x)\n\n- b\n', '1.2.0')).toEqual({
    error: 'CHANGELOG has no section `## 1.2.0`'
  })
})

test('npm publish --dry-run ships only dist/, action.yml, README, LICENSE and CHANGELOG (and package.json)', async () => {
  const run = await runStep('Only dist/, action.yml, README, LICENSE and CHANGELOG ship', clone)
  expect(run.stderr).not.toContain('package-files:')
  expect(run.code).toBe(0)
  const files = run.stdout.split('\n').filter(Boolean)
  expect(files.filter(f => !f.startsWith('dist/'))).toEqual([
    'CHANGELOG.md',
    'LICENSE',
    'README.md',
    'action.yml',
    'package.json'
  ])
  expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/cli.js']))
  expect(packageProblems([...files, 'src/main.ts'].filter(f => f !== 'LICENSE'))).toEqual([
    'src/main.ts would ship, and only dist/, action.yml, README.md, LICENSE, CHANGELOG.md, package.json should',
    'LICENSE would not ship'
  ])
}, 60_000)

test('a re-run after npm took the version still passes the files check, on to the release and the major tag', async () => {
  // A registry on this machine that has this version already, as npm has after a first run that
  // published and then failed at the GitHub release (`npm publish --dry-run` refuses such a version).
  const server = createServer((request, response) => {
    if (request.url !== '/record-deployment') return void response.writeHead(404).end('{}')
    const manifest = { name: 'record-deployment', version, dist: { tarball: 'x', shasum: 'x' } }
    response.setHeader('content-type', 'application/json')
    response.end(
      JSON.stringify({
        name: 'record-deployment',
        'dist-tags': { latest: version },
        versions: { [version]: manifest }
      })
    )
  })
  await new Promise<void>(listening => server.listen(0, '127.0.0.1', listening))
  try {
    const { port } = server.address() as AddressInfo
    const run = await runStep('Only dist/, action.yml, README, LICENSE and CHANGELOG ship', clone, {
      npm_config_registry: `http://127.0.0.1:${port}/`
    })
    expect([run.code, run.stderr]).toEqual([0, ''])
    expect(run.stdout.split('\n')).toEqual(expect.arrayContaining(['dist/cli.js', 'action.yml']))
  } finally {
    await new Promise(closed => server.close(closed))
  }
}, 60_000)

test('the major tag moves to the release on the remote, and stays on a newer minor when an older one is fixed', async () => {
  const token = { MAJOR_TAG_TOKEN: 'workflow-token' }
  const moved = await runStep('Move the major tag to the release', clone, token)
  expect(moved.code).toBe(0)
  expect(moved.stdout).toContain(`${major} now points at ${tag}`)
  const released = git(clone, 'rev-parse', `${tag}^{commit}`)
  expect(git(origin, 'rev-parse', `refs/tags/${major}^{commit}`)).toBe(released)

  // A newer minor on another commit, then a fix of the older one: the major tag follows the newest.
  const [x, y] = version.split('.').map(Number)
  const newer = `v${x}.${(y ?? 0) + 1}.0`
  const fix = `v${x}.${y}.99`
  git(clone, 'commit', '--quiet', '--allow-empty', '--message', 'newer minor')
  git(clone, 'tag', newer)
  git(clone, 'push', '--quiet', 'origin', '--tags')
  expect(
    (await runStep('Move the major tag to the release', clone, { ...token, TAG: newer })).code
  ).toBe(0)
  const newest = git(clone, 'rev-parse', `${newer}^{commit}`)
  expect(git(origin, 'rev-parse', `refs/tags/${major}^{commit}`)).toBe(newest)

  git(clone, 'tag', fix, released)
  const kept = await runStep('Move the major tag to the release', clone, { ...token, TAG: fix })
  expect(kept.code).toBe(0)
  expect(kept.stdout).toContain(`${major} left where it is: ${newer} is newer`)
  expect(git(origin, 'rev-parse', `refs/tags/${major}^{commit}`)).toBe(newest)
}, 60_000)

test("npm's `latest` goes only to the newest release: a fix of an older minor or major gets its own dist-tag", async () => {
  expect(step('Publish to npm with provenance').run).toContain(
    'npm publish --provenance --access public --tag "$DIST_TAG"'
  )
  // A repository of its own with the release scripts and these tags (the clone's are the others').
  const repo = join(temp, 'dist-tags')
  git(temp, 'init', '--quiet', '--initial-branch', 'main', repo)
  await cp(join(root, 'scripts/release'), join(repo, 'scripts/release'), { recursive: true })
  await copyFile(join(root, 'scripts/is-main.mjs'), join(repo, 'scripts/is-main.mjs'))
  for (const [key, value] of Object.entries({
    'user.name': 'Release Test',
    'user.email': 'release@example.invalid',
    'commit.gpgsign': 'false',
    'tag.gpgsign': 'false'
  }))
    git(repo, 'config', key, value)
  git(repo, 'add', '--all')
  git(repo, 'commit', '--quiet', '--message', 'scripts')
  const output = join(temp, 'github-output')
  const distTagOf = async (release: string) => {
    git(repo, 'tag', '--force', release)
    await writeFile(output, '')
    const run = await runStep('The npm dist-tag', repo, { TAG: release, GITHUB_OUTPUT: output })
    expect([release, run.code, run.stderr]).toEqual([release, 0, ''])
    return /^dist-tag=(.*)$/m.exec(await readFile(output, 'utf8'))?.[1]
  }
  expect(await distTagOf('v1.2.0')).toBe('latest')
  expect(await distTagOf('v1.3.0')).toBe('latest')
  // v1.3.0 stays what `record-deployment@1` resolves to, as v1 stays on it
  expect(await distTagOf('v1.2.1')).toBe('latest-1.2')
  git(repo, 'tag', 'v2.0.0-rc.1')
  expect(await distTagOf('v1.3.1')).toBe('latest')
  expect(await distTagOf('v2.0.0')).toBe('latest')
  expect(await distTagOf('v1.3.2')).toBe('latest-1')
  expect(await distTagOf('v10.0.0')).toBe('latest')
  expect(await distTagOf('v2.0.1')).toBe('latest-2')
})

test('the dist/ check passes on the committed dist/, and fails naming dist/ when a source changed without a rebuild', async () => {
  const current = await runStep('dist/ is what the sources build', clone)
  expect(current.stderr).toBe('')
  expect([current.code, current.stdout]).toEqual([0, 'dist/ is current\n'])

  const help = join(clone, 'src/cli/help.ts')
  const source = await readFile(help, 'utf8')
  expect(source).toContain('this text')
  await writeFile(help, source.replace('this text', 'this help'))
  const stale = await runStep('dist/ is what the sources build', clone)
  expect(stale.code).toBe(1)
  expect(stale.stderr).toContain('dist/ is not what the sources build')
  expect(stale.stderr).toMatch(/dist\/cli\.js/)
  git(clone, 'checkout', '--quiet', '--', '.')
}, 60_000)

test('releases run one at a time, and docs/releasing.md says to push one tag a push: a third run replaces the waiting one, and GitHub starts none for more than three tags', async () => {
  // one run at a time, never cancelling the running one: a waiting run is replaced by the next
  expect((workflow as unknown as { concurrency: unknown }).concurrency).toEqual({
    group: 'release',
    'cancel-in-progress': false
  })
  const docs = (await readFile(join(root, 'docs/releasing.md'), 'utf8')).replace(/\s+/g, ' ')
  expect(docs).toContain('one tag a push')
  expect(docs).toContain('more than three tags')
  expect(docs).toContain('replaced by the next')
})
