// Over 300 lines: the git server (git http-backend behind a token check) and the job runner are
// this file's alone, and the four releases share one remote's history.
/**
 * A dry run of the release job (.github/workflows/release.yml) against a remote that refuses what
 * GitHub refuses: its steps' `run:` in order, in bash, as the runner runs them (a failed step ends
 * the job), in a repository of the release scripts, with `npm` and `gh` stand-ins on PATH that
 * record what they were asked. The remote is a bare repository served over HTTP by
 * `git http-backend`, whose pre-receive hook refuses a ref update that changes
 * `.github/workflows/` unless the push's credential is the one that may write workflows (as
 * GitHub refuses it from the workflow's own token). Three releases: after a workflow change, a fix
 * of an older line, a prerelease. The steps that need the whole project (`npm ci`, the dist/ and
 * files checks) run in release.test.ts.
 */
import { execFile, execFileSync, spawn } from 'node:child_process'
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { parse } from 'yaml'
import { projectRoot } from '../../scripts/run-action.js'

const exec = promisify(execFile)
const root = projectRoot()
interface Step {
  id?: string
  name?: string
  run?: string
  uses?: string
  env?: Record<string, string>
}
interface Job {
  needs?: string | string[]
  env?: Record<string, string>
  outputs?: Record<string, string>
  steps: Step[]
}
const workflow = parse(await readFile(join(root, '.github/workflows/release.yml'), 'utf8')) as {
  env?: Record<string, string>
  jobs: Record<string, Job>
}
/** The jobs the dry run runs, in the file's order (release.test.ts: an order `needs` allows). */
const JOBS = Object.entries(workflow.jobs).filter(([name]) => name !== 'test')
/** Run elsewhere (release.test.ts, in a clone of the whole project), not in this dry run. */
const ELSEWHERE = [
  'npm ci --ignore-scripts',
  'dist/ is what the sources build',
  'Only dist/, action.yml, README, LICENSE and CHANGELOG ship'
]
const WORKFLOW_TOKEN = 'workflow-capable-token'
const DEFAULT_TOKEN = 'the-workflow-token'
/** The credentials the remote knows; any other (expired, revoked) is refused with 401. */
const VALID_TOKENS = [WORKFLOW_TOKEN, DEFAULT_TOKEN]
const basic = (token: string) =>
  `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`

/** GitHub's rule: a ref update that changes workflow files needs a credential that may write them. */
const HOOK = `#!/bin/bash
zero=0000000000000000000000000000000000000000
while read -r old new ref; do
  [ "$new" = "$zero" ] && continue
  if [ "$old" = "$zero" ]; then
    changed="$(git rev-list "$new" --not --all | while read -r c; do
      git diff-tree --no-commit-id --name-only -r --root "$c"; done | grep '^.github/workflows/' || true)"
  else
    changed="$(git diff --name-only "$old" "$new" -- .github/workflows/)"
  fi
  if [ -n "$changed" ] && [ "$PUSH_TOKEN" != "${WORKFLOW_TOKEN}" ]; then
    echo "refusing to update $ref: it changes $(echo "$changed" | head -1) and this token may not write workflows" >&2
    exit 1
  fi
done
`

let temp: string
let work: string
let origin: string
let bin: string
let server: Server
let url: string
/** The versions the npm stand-in has published, one a line. */
let npmState: string

const git = (cwd: string, args: string[], env: NodeJS.ProcessEnv = process.env) =>
  execFileSync('git', args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe']
  }).trim()
/** A push with `token` as its credential (the header git sends), in git's environment. */
const withToken = (token: string): NodeJS.ProcessEnv => ({
  ...process.env,
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'http.extraheader',
  GIT_CONFIG_VALUE_0: basic(token)
})
/** A push (never synchronous: the remote's server runs in this process). */
const push = (args: string[], env: NodeJS.ProcessEnv) =>
  exec('git', ['push', '--quiet', '--force', 'origin', ...args], { cwd: work, env })
/** The maintainer pushes branches and release tags with a credential that may write workflows. */
const maintainerPush = (...refs: string[]) => push(refs, withToken(WORKFLOW_TOKEN))

/** `git http-backend` behind a server that hands the hook the push's token (PUSH_TOKEN). */
function gitServer(projects: string): Server {
  return createServer((request, response) => {
    const auth = /^basic (.*)$/i.exec(request.headers.authorization ?? '')
    const token = Buffer.from(auth?.[1] ?? '', 'base64')
      .toString()
      .split(':')
      .slice(1)
      .join(':')
    // an expired or revoked token is refused, as GitHub refuses it
    if (!auth || !VALID_TOKENS.includes(token))
      return void response.writeHead(401, { 'www-authenticate': 'Basic' }).end()
    const target = new URL(request.url ?? '/', 'http://localhost')
    const backend = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env['PATH'],
        GIT_PROJECT_ROOT: projects,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: target.pathname,
        QUERY_STRING: target.search.slice(1),
        REQUEST_METHOD: request.method,
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
        REMOTE_USER: 'x-access-token',
        REMOTE_ADDR: '127.0.0.1',
        PUSH_TOKEN: token
      }
    })
    request.pipe(backend.stdin)
    let head: Buffer | undefined = Buffer.alloc(0)
    backend.stdout.on('data', (chunk: Buffer) => {
      if (!head) return void response.write(chunk)
      head = Buffer.concat([head, chunk])
      const end = head.indexOf('\r\n\r\n')
      if (end < 0) return
      const headers: Record<string, string> = {}
      let status = 200
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const colon = line.indexOf(':')
        const [key, value] = [line.slice(0, colon), line.slice(colon + 1).trim()]
        if (/^status$/i.test(key)) status = parseInt(value, 10)
        else headers[key] = value
      }
      response.writeHead(status, headers)
      response.write(head.subarray(end + 4))
      head = undefined
    })
    backend.stdout.on('end', () => response.end())
  })
}

/** A release commit: package.json, src/shared/version.ts and the CHANGELOG at `version`, tagged. */
async function release(version: string, change: Record<string, string> = {}) {
  await writeFile(
    join(work, 'package.json'),
    JSON.stringify({ name: 'record-deployment', version })
  )
  await writeFile(
    join(work, 'src/shared/version.ts'),
    `export const ACTION_VERSION = '${version}'\n`
  )
  const changelog = await readFile(join(work, 'CHANGELOG.md'), 'utf8').catch(() => '# Changelog\n')
  await writeFile(
    join(work, 'CHANGELOG.md'),
    changelog.replace(
      /^# Changelog\n/,
      `# Changelog\n\n## ${version} (2026-02-01)\n\n- ${version}\n`
    )
  )
  for (const [file, text] of Object.entries(change)) {
    await mkdir(dirname(join(work, file)), { recursive: true })
    await writeFile(join(work, file), text)
  }
  git(work, ['add', '--all'])
  git(work, ['commit', '--quiet', '--message', `Release ${version}`])
  git(work, ['tag', `v${version}`])
}

/**
 * The release's jobs for `tag` (all but `test`), each as the runner runs it: its steps in order
 * with a RUNNER_TEMP, GITHUB_ENV and GITHUB_OUTPUT of its own, its `needs.*.outputs` from the jobs
 * before it, until a step fails: its outcome, what npm and gh were asked, and the steps run.
 */
async function releaseJob(tag: string, secrets: Record<string, string>) {
  const calls = join(temp, `calls-${tag}-${Date.now()}`)
  await writeFile(calls, '')
  const outputs: Record<string, Record<string, string>> = {}
  const ran: string[] = []
  for (const [jobName, job] of JOBS) {
    const runnerTemp = await mkdtemp(join(temp, 'runner-'))
    const githubEnv = join(runnerTemp, 'github-env')
    const githubOutput = join(runnerTemp, 'github-output')
    await writeFile(githubEnv, '')
    const stepOutputs: Record<string, Record<string, string>> = {}
    const expression = (value: string) =>
      value
        .replace(/\$\{\{ secrets\.(\w+) \}\}/g, (_, name: string) => secrets[name] ?? '')
        .replace('${{ github.token }}', DEFAULT_TOKEN)
        .replace('${{ github.ref_name }}', tag)
        .replace(
          /\$\{\{ needs\.([\w-]+)\.outputs\.([\w-]+) \}\}/g,
          (_, from: string, name: string) => outputs[from]?.[name] ?? ''
        )
        .replace(
          /\$\{\{ steps\.([\w-]+)\.outputs\.([\w-]+) \}\}/g,
          (_, id: string, name: string) => stepOutputs[id]?.[name] ?? ''
        )
    for (const step of job.steps) {
      if (!step.run || ELSEWHERE.includes(step.name ?? step.run)) continue
      await writeFile(githubOutput, '')
      const env = {
        PATH: [bin, dirname(process.execPath), process.env['PATH'] ?? ''].join(':'),
        HOME: temp,
        GIT_TERMINAL_PROMPT: '0',
        RUNNER_TEMP: runnerTemp,
        GITHUB_ENV: githubEnv,
        GITHUB_OUTPUT: githubOutput,
        CALLS: calls,
        ...Object.fromEntries(
          Object.entries({ ...workflow.env, ...job.env, ...step.env }).map(([k, v]) => [
            k,
            expression(v)
          ])
        ),
        ...keyValues(await readFile(githubEnv, 'utf8'))
      }
      ran.push(step.name ?? step.run)
      try {
        await exec('bash', ['-e', '-c', step.run], { cwd: work, env })
      } catch (error) {
        const failed = error as { stderr: string }
        return {
          ok: false,
          failed: step.name,
          stderr: failed.stderr,
          calls: await lines(calls),
          ran
        }
      }
      if (step.id) stepOutputs[step.id] = keyValues(await readFile(githubOutput, 'utf8'))
    }
    outputs[jobName] = Object.fromEntries(
      Object.entries(job.outputs ?? {}).map(([name, value]) => [name, expression(value)])
    )
  }
  return { ok: true, failed: undefined, stderr: '', calls: await lines(calls), ran }
}
/** `NAME=value` lines, as GITHUB_ENV and GITHUB_OUTPUT hold them. */
const keyValues = (text: string) =>
  Object.fromEntries(
    text
      .split('\n')
      .filter(Boolean)
      .map(line => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)])
  )
const lines = async (file: string) => (await readFile(file, 'utf8')).split('\n').filter(Boolean)
const commitOf = (ref: string) => git(origin, ['rev-parse', `${ref}^{commit}`])
const published = (calls: string[]) => calls.filter(c => /^npm publish|^gh release create/.test(c))

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'release-dry-run-'))
  work = join(temp, 'work')
  origin = join(temp, 'origin.git')
  bin = join(temp, 'bin')
  git(temp, ['init', '--quiet', '--bare', origin])
  await writeFile(join(origin, 'hooks/pre-receive'), HOOK)
  await chmod(join(origin, 'hooks/pre-receive'), 0o755)
  server = gitServer(temp)
  await new Promise<void>(listening => server.listen(0, '127.0.0.1', listening))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/origin.git`

  // npm and gh as the job meets them: nothing on npm yet (E404), no release yet; each call
  // recorded; `npm publish` adds the package's version to what `npm view` answers
  await mkdir(bin)
  npmState = join(temp, 'npm-versions')
  await writeFile(npmState, '')
  await writeFile(`${npmState}-heads`, '')
  const npmView =
    `if [ ! -s "${npmState}" ]; then echo "npm error code E404" >&2; exit 1; fi; ` +
    `if [ "$3" = versions ]; then node -e 'const v = require("fs").readFileSync(process.argv[1], "utf8").split("\\n").filter(Boolean); console.log(JSON.stringify(v.length === 1 ? v[0] : v))' "${npmState}"; exit 0; fi; ` +
    // the commit a version was published from (npm's gitHead), as `npm publish` recorded it
    `if [ "$3" = gitHead ]; then awk -v v="\${2#*@}" '$1 == v { print $2 }' "${npmState}-heads"; exit 0; fi; ` +
    `grep -qxF "\${2#*@}" "${npmState}" && echo "\${2#*@}"; exit 0`
  for (const [name, script] of Object.entries({
    npm:
      `echo "npm $*" >> "$CALLS"; if [ "$1" = view ]; then ${npmView}; fi; ` +
      `if [ "$1" = publish ]; then node -p 'require("./package.json").version' >> "${npmState}"; ` +
      `echo "$(node -p 'require("./package.json").version') $(git rev-parse HEAD)" >> "${npmState}-heads"; fi; exit 0`,
    gh: 'echo "gh $*" >> "$CALLS"; [ "$2" = view ] && exit 1; exit 0'
  })) {
    await writeFile(join(bin, name), `#!/bin/bash\n${script}\n`)
    await chmod(join(bin, name), 0o755)
  }

  git(temp, ['init', '--quiet', '--initial-branch', 'main', work])
  for (const [key, value] of Object.entries({
    'user.name': 'Release Test',
    'user.email': 'release@example.invalid',
    'commit.gpgsign': 'false',
    'tag.gpgsign': 'false'
  }))
    git(work, ['config', key, value])
  git(work, ['remote', 'add', 'origin', url])
  await cp(join(root, 'scripts/release'), join(work, 'scripts/release'), { recursive: true })
  await cp(join(root, 'scripts/is-main.mjs'), join(work, 'scripts/is-main.mjs'))
  await mkdir(join(work, 'src/shared'), { recursive: true })
  await release('1.0.0', { '.github/workflows/ci.yml': 'uses: actions/checkout@v4\n' })
  await maintainerPush('HEAD:refs/heads/main', 'v1.0.0')
}, 60_000)
afterAll(async () => {
  await new Promise(closed => server.close(closed))
  await rm(temp, { recursive: true, force: true })
})

test('the dry run runs every step of the release jobs but the three run in release.test.ts', () => {
  const steps = JOBS.flatMap(([, job]) => job.steps.filter(s => s.run).map(s => s.name ?? s.run))
  expect(steps.filter(s => ELSEWHERE.includes(s ?? ''))).toEqual(ELSEWHERE)
  expect(JOBS.map(([name]) => name)).toEqual([
    'check',
    'major-tag-check',
    'npm',
    'github-release',
    'major-tag'
  ])
})

test('the first release publishes to npm `latest`, makes the "Latest" GitHub release and creates v1', async () => {
  const job = await releaseJob('v1.0.0', { MAJOR_TAG_TOKEN: WORKFLOW_TOKEN, NPM_TOKEN: 'npm' })
  expect([job.ok, job.stderr]).toEqual([true, ''])
  expect(published(job.calls)).toEqual([
    'npm publish --provenance --access public --tag latest --ignore-scripts',
    expect.stringMatching(/^gh release create v1\.0\.0 --verify-tag .* --latest$/)
  ])
  expect(commitOf('refs/tags/v1')).toBe(commitOf('refs/tags/v1.0.0'))
}, 30_000)

test('after a workflow change, v1 moves only with MAJOR_TAG_TOKEN: without it the job stops before anything is published, naming the secret', async () => {
  await release('1.1.0', { '.github/workflows/ci.yml': 'uses: actions/checkout@v5\n' })
  await maintainerPush('HEAD:refs/heads/main', 'v1.1.0')

  const without = await releaseJob('v1.1.0', { NPM_TOKEN: 'npm' })
  expect([without.ok, without.failed]).toEqual([false, 'The major tag can be moved'])
  expect(without.stderr).toContain('the secret MAJOR_TAG_TOKEN is empty, and v1 moves with it')
  expect(without.stderr).toContain('docs/releasing.md')
  expect(without.calls).toEqual([])
  expect(commitOf('refs/tags/v1')).toBe(commitOf('refs/tags/v1.0.0'))

  // The workflow's own token, as the job pushed before: the remote refuses it, as GitHub does.
  git(work, ['tag', '--force', 'v1', 'v1.1.0'])
  await expect(push(['refs/tags/v1:refs/tags/v1'], withToken(DEFAULT_TOKEN))).rejects.toThrow(
    /refusing to update refs\/tags\/v1: it changes .github\/workflows\/ci.yml/
  )
  git(work, ['tag', '--force', 'v1', 'v1.0.0'])

  const job = await releaseJob('v1.1.0', { MAJOR_TAG_TOKEN: WORKFLOW_TOKEN, NPM_TOKEN: 'npm' })
  expect([job.ok, job.stderr]).toEqual([true, ''])
  expect(published(job.calls)).toEqual([
    'npm publish --provenance --access public --tag latest --ignore-scripts',
    expect.stringMatching(/^gh release create v1\.1\.0 .* --latest$/)
  ])
  expect(commitOf('refs/tags/v1')).toBe(commitOf('refs/tags/v1.1.0'))
}, 60_000)

test('an expired or revoked MAJOR_TAG_TOKEN fails the check naming the secret, before anything is published', async () => {
  const before = commitOf('refs/tags/v1')
  const job = await releaseJob('v1.1.0', {
    MAJOR_TAG_TOKEN: 'expired-or-revoked',
    NPM_TOKEN: 'npm'
  })
  expect([job.ok, job.failed]).toEqual([false, 'The major tag can be moved'])
  expect(job.stderr).toContain('the secret MAJOR_TAG_TOKEN was refused by origin')
  expect(job.stderr).not.toContain('expired-or-revoked')
  expect(published(job.calls)).toEqual([])
  expect(commitOf('refs/tags/v1')).toBe(before)
}, 60_000)

test('a fix of an older line is never "Latest": npm `latest-1.0`, `--latest=false`, v1 stays, no token needed', async () => {
  git(work, ['checkout', '--quiet', '-b', 'release-1.0', 'v1.0.0'])
  await release('1.0.1')
  await maintainerPush('HEAD:refs/heads/release-1.0', 'v1.0.1')
  const job = await releaseJob('v1.0.1', { NPM_TOKEN: 'npm' })
  git(work, ['checkout', '--quiet', 'main'])
  expect([job.ok, job.stderr]).toEqual([true, ''])
  expect(published(job.calls)).toEqual([
    'npm publish --provenance --access public --tag latest-1.0 --ignore-scripts',
    expect.stringMatching(/^gh release create v1\.0\.1 .* --latest=false$/)
  ])
  expect(commitOf('refs/tags/v1')).toBe(commitOf('refs/tags/v1.1.0'))
}, 60_000)

test('a prerelease tag publishes to npm `next` and makes a GitHub prerelease, never moving v1 or `latest`', async () => {
  await release('1.2.0-rc.1', { '.github/workflows/ci.yml': 'uses: actions/checkout@v6\n' })
  await maintainerPush('HEAD:refs/heads/main', 'v1.2.0-rc.1')
  const job = await releaseJob('v1.2.0-rc.1', { NPM_TOKEN: 'npm' })
  expect([job.ok, job.stderr]).toEqual([true, ''])
  expect(published(job.calls)).toEqual([
    'npm publish --provenance --access public --tag next --ignore-scripts',
    expect.stringMatching(/^gh release create v1\.2\.0-rc\.1 .* --prerelease --latest=false$/)
  ])
  expect(commitOf('refs/tags/v1')).toBe(commitOf('refs/tags/v1.1.0'))
  // and a later final release of that version is `latest` again
  expect(
    execFileSync(process.execPath, ['scripts/release/dist-tag.mjs', 'v1.1.1'], {
      cwd: work,
      encoding: 'utf8'
    })
  ).toBe('latest\n')
}, 60_000)

test("a prerelease as the package's first version on npm is refused before anything is published (npm would make it `latest`)", async () => {
  // a package with no version on npm yet (npm view answers E404)
  await writeFile(npmState, '')
  await release('1.3.0-rc.1')
  await maintainerPush('HEAD:refs/heads/main', 'v1.3.0-rc.1')
  const job = await releaseJob('v1.3.0-rc.1', { NPM_TOKEN: 'npm' })
  expect([job.ok, job.failed]).toEqual([
    false,
    "A prerelease is not the package's first version on npm"
  ])
  expect(job.stderr).toContain(
    'v1.3.0-rc.1 is a prerelease and record-deployment has no version on npm yet'
  )
  expect(job.calls).toEqual(['npm view record-deployment versions --json'])
  // once one final version is on npm (one version: npm answers it as a string), it goes on
  await writeFile(npmState, '1.0.0\n')
  const after = await releaseJob('v1.3.0-rc.1', { NPM_TOKEN: 'npm' })
  expect([after.ok, after.stderr]).toEqual([true, ''])
  expect(published(after.calls)[0]).toBe(
    'npm publish --provenance --access public --tag next --ignore-scripts'
  )
}, 60_000)

test('a version on npm that this tag did not publish (its name taken before the first release, a publish by hand) stops the job: no GitHub release, v1 stays', async () => {
  await release('1.4.0')
  await maintainerPush('HEAD:refs/heads/main', 'v1.4.0')
  const v1 = commitOf('refs/tags/v1')
  // someone else's 1.4.0: no commit of this repository, or another one
  await writeFile(npmState, '1.0.0\n1.4.0\n')
  for (const head of ['', `1.4.0 ${'f'.repeat(40)}\n`]) {
    await writeFile(`${npmState}-heads`, head)
    const job = await releaseJob('v1.4.0', { MAJOR_TAG_TOKEN: WORKFLOW_TOKEN })
    expect([job.ok, job.failed]).toEqual([false, 'Publish to npm with provenance'])
    expect(job.stderr).toContain('record-deployment@1.4.0 is on npm, but not from v1.4.0')
    expect(published(job.calls)).toEqual([])
    expect(commitOf('refs/tags/v1')).toBe(v1)
  }
  // a re-run after this tag's own publish: left as it is, and the run goes on
  await writeFile(`${npmState}-heads`, `1.4.0 ${commitOf('refs/tags/v1.4.0')}\n`)
  const rerun = await releaseJob('v1.4.0', { MAJOR_TAG_TOKEN: WORKFLOW_TOKEN })
  expect([rerun.ok, rerun.stderr]).toEqual([true, ''])
  expect(published(rerun.calls)).toEqual([
    expect.stringMatching(/^gh release create v1\.4\.0 .* --latest$/)
  ])
  expect(commitOf('refs/tags/v1')).toBe(commitOf('refs/tags/v1.4.0'))
}, 90_000)
