// Over 300 lines: one packed-and-installed command line is shared by every case (packing costs seconds).
/**
 * The command line as a user of another pipeline gets it: `npm pack`, the tarball installed into
 * an empty directory (`--prefer-offline`: its dependencies come from npm's cache when `npm ci`
 * put them there; the bundle itself needs none of them), then `npx record-deployment ...` against
 * the emulator.
 */
import { execFile, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { parse } from 'yaml'
import { DIGEST, TOKEN, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import { runToEnd } from '../../__fixtures__/packed-cli.js'
import type { Emulator } from '../../emulator/index.js'
import { npmChildEnv } from '../../scripts/npm-env.js'
import { projectRoot } from '../../scripts/run-action.js'

const exec = promisify(execFile)
const root = projectRoot()
const action = parse(await readFile(join(root, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string; description: string }>
  outputs: Record<string, unknown>
}

let emulator: Emulator
let dir: string
beforeAll(async () => {
  emulator = await withEmulator()
  dir = await mkdtemp(join(tmpdir(), 'record-deployment-cli-'))
  const packed = await exec('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: root })
  const tarball = join(dir, packed.stdout.trim().split('\n').pop() ?? '')
  await writeFile(join(dir, 'package.json'), '{"name":"pipeline","private":true}\n')
  await exec('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], {
    cwd: dir
  })
}, 120_000)
afterAll(async () => {
  await emulator.close()
  await rm(dir, { recursive: true, force: true })
})
beforeEach(() => emulator.reset())

/** npx's own configuration (the user's npmrc files, settings given to `npm test`): scripts/npm-env.ts */
const npm = npmChildEnv()

/** `npx record-deployment ...args` in the pipeline's directory (or `cwd`), with only the variables given and npx's own. */
const recordDeployment = (args: string[], env: Record<string, string> = {}, cwd = dir) =>
  runToEnd('npx', ['--offline', 'record-deployment', ...args], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? dir, ...npm, ...env }
  })

test('npx record-deployment from the packed tarball records a deployment and prints the outputs as one JSON object', async () => {
  const run = await recordDeployment(
    [
      '--digest',
      DIGEST,
      '--name',
      'ghcr.io/acme/web',
      '--environment',
      'production',
      '--cluster=prod-eu',
      '--api-url',
      emulator.url,
      '--org',
      'acme'
    ],
    { GITHUB_TOKEN: TOKEN }
  )
  expect(run.code).toBe(0)
  expect(writesOf(emulator.requests).map(r => `${r.method} ${r.path} ${r.status}`)).toEqual([
    'POST /orgs/acme/artifacts/metadata/deployment-record 200'
  ])
  const outputs = JSON.parse(run.stdout) as Record<string, unknown>
  expect(Object.keys(outputs).sort()).toEqual(Object.keys(action.outputs).sort())
  expect(outputs['deployment-records']).toEqual([
    expect.objectContaining({
      digest: DIGEST,
      logical_environment: 'production',
      cluster: 'prod-eu',
      deployment_name: 'web'
    })
  ])
  const [record] = outputs['deployment-records'] as Array<{ id: number }>
  expect(outputs['deployment-record-ids']).toBe(String(record?.id))
  expect(outputs['storage-records']).toEqual([])
  // the outputs action.yml calls JSON arrays are arrays here too, not strings
  expect([outputs['errors'], outputs['decommissioned'], outputs['labeled']]).toEqual([[], [], []])
  // The log is on stderr, in plain words: no workflow command of the runner leaks out.
  expect(run.stderr).toMatch(/Recorded deployment record web \(deployed\) in production\/prod-eu/)
  expect(run.stderr).not.toMatch(/::/)
  expect(run.stderr).not.toContain(TOKEN)
})

test('token, API URL and repository come from GITHUB_TOKEN, GITHUB_API_URL and GITHUB_REPOSITORY', async () => {
  const run = await recordDeployment(
    ['--digest', `ghcr.io/acme/api@${DIGEST}`, '--environment', 'staging', '--dry-run', '--debug'],
    { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: emulator.url, GITHUB_REPOSITORY: 'acme/api' }
  )
  expect(run.code).toBe(0)
  expect(writesOf(emulator.requests)).toEqual([])
  expect(run.stderr).toMatch(
    /^debug: GET \/orgs\/acme\/artifacts\/sha256%3A[0-9a-f]{64}\/metadata\/deployment-records/m
  )
  const outputs = JSON.parse(run.stdout) as {
    planned: Array<{ method: string; path: string; body: Record<string, unknown> }>
  }
  expect(outputs.planned).toEqual([
    expect.objectContaining({
      method: 'POST',
      path: '/orgs/acme/artifacts/metadata/deployment-record',
      body: expect.objectContaining({ name: 'ghcr.io/acme/api', github_repository: 'api' })
    })
  ])
})

test('--token and --repository win over the variables', async () => {
  const run = await recordDeployment(
    [
      '--digest',
      DIGEST,
      '--name',
      'web',
      '--environment',
      'qa',
      '--token',
      TOKEN,
      '--repository',
      'acme/web'
    ],
    { GITHUB_TOKEN: 'revoked', GITHUB_API_URL: emulator.url, GITHUB_REPOSITORY: 'other/repo' }
  )
  expect(run.code).toBe(0)
  expect(writesOf(emulator.requests).map(r => r.path)).toEqual([
    '/orgs/acme/artifacts/metadata/deployment-record'
  ])
})

test('bad flags and bad inputs exit 2, every problem named, nothing sent and nothing on stdout', async () => {
  const run = await recordDeployment(
    [
      '--digest',
      'sha512:abc',
      '--environment',
      'production',
      '--bogus',
      'x',
      '--dry_run',
      '--cluster',
      'a',
      '--cluster',
      'b',
      '--labels'
    ],
    { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: emulator.url, GITHUB_REPOSITORY: 'acme/web' }
  )
  expect(run.code).toBe(2)
  expect(run.stdout).toBe('')
  expect(emulator.requests).toEqual([])
  for (const named of [
    // the word after an unknown flag is its value, never shown (issue 39: `--tokn "$T"`)
    'unknown flag `--bogus` (its value not shown)',
    'unknown flag `--dry_run` (did you mean `--dry-run`?)',
    '`--cluster` is given 2 times',
    '`--labels` needs a value',
    '--name: is required',
    '--digest: only sha256 digests'
  ])
    expect(run.stderr).toContain(named)
  expect(run.stderr).toMatch(/^record-deployment: 6 problems; nothing was sent:$/m)
  expect(run.stderr).not.toMatch(/`x`/)
})

test('a failure exits 1, with what was recorded on stdout and what failed on stderr', async () => {
  emulator.addFault({
    method: 'POST',
    path: /deployment-record$/,
    fault: { kind: 'status', status: 422, body: { message: 'Validation Failed' } }
  })
  const run = await recordDeployment(
    [
      '--digest',
      DIGEST,
      '--name',
      'ghcr.io/acme/web',
      '--version',
      '2.0.0',
      '--environment',
      'production',
      '--registry-url',
      'https://ghcr.io'
    ],
    { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: emulator.url, GITHUB_REPOSITORY: 'acme/web' }
  )
  expect(run.code).toBe(1)
  const outputs = JSON.parse(run.stdout) as Record<string, unknown>
  expect(outputs['storage-records']).toEqual([
    expect.objectContaining({ name: 'ghcr.io/acme/web', registry_url: 'https://ghcr.io' })
  ])
  expect(outputs['deployment-records']).toEqual([])
  expect(run.stderr).toMatch(/Failed: .*deployment record/)
  expect(run.stderr).toMatch(/Done: .*storage record/)
}, 30_000)

test('--help lists every input of action.yml as a flag, with its default and description, and exits 0', async () => {
  const run = await recordDeployment(['--help'])
  expect(run.code).toBe(0)
  const blocks = run.stdout.split(/\n(?= {2}--)/)
  for (const [name, spec] of Object.entries(action.inputs)) {
    const block = blocks.find(b => new RegExp(`^  --${name}[ []`).test(b))
    expect({ name, block: block !== undefined }).toEqual({ name, block: true })
    const text = (block ?? '').replace(/\s+/g, ' ')
    // The first words of the description, as action.yml has them.
    expect(text).toContain(spec.description.trim().split(/\s+/).slice(0, 4).join(' '))
    if (spec.default !== undefined) {
      const shown = /^\$\{\{ github\.(\w+) \}\}$/.exec(spec.default)
      expect(text).toContain(
        `default: ${shown ? `env GITHUB_${(shown[1] ?? '').toUpperCase()}` : spec.default}`
      )
    }
  }
  for (const output of Object.keys(action.outputs)) expect(run.stdout).toContain(`  ${output}\n`)
})

test('a relative --deployments-file is read from the directory it runs in', async () => {
  const items = [
    { name: 'ghcr.io/acme/web', digest: DIGEST, deployment_name: 'web' },
    { name: 'ghcr.io/acme/api', digest: DIGEST, deployment_name: 'api' }
  ]
  await writeFile(join(dir, 'cluster.json'), JSON.stringify(items))
  const run = await recordDeployment(
    ['--deployments-file', 'cluster.json', '--cluster', 'prod-eu', '--environment', 'production'],
    { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: emulator.url, GITHUB_REPOSITORY: 'acme/web' }
  )
  expect(run.code).toBe(0)
  const outputs = JSON.parse(run.stdout) as {
    'deployment-records': Array<{ deployment_name: string }>
  }
  expect(outputs['deployment-records'].map(r => r.deployment_name).sort()).toEqual(['api', 'web'])
})

test.each(['SIGINT', 'SIGTERM'] as const)(
  '%s stops it at a safe point: exit 1, what was recorded on stdout, the cancel on stderr',
  async signal => {
    emulator.addFault({ method: 'POST', path: /deployment-record$/, fault: { kind: 'hang' } })
    const child = spawn(
      join(dir, 'node_modules/.bin/record-deployment'),
      [
        '--digest',
        DIGEST,
        '--name',
        'ghcr.io/acme/web',
        '--version',
        '2.0.0',
        '--environment',
        'production',
        '--registry-url',
        'https://ghcr.io'
      ],
      {
        cwd: dir,
        env: {
          PATH: process.env['PATH'] ?? '',
          GITHUB_TOKEN: TOKEN,
          GITHUB_API_URL: emulator.url,
          GITHUB_REPOSITORY: 'acme/web'
        }
      }
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', chunk => (stdout += String(chunk)))
    child.stderr.on('data', chunk => (stderr += String(chunk)))
    const closed = new Promise<number | null>(resolve => child.on('close', code => resolve(code)))
    // once the deployment record's request hangs in the emulator
    while (!emulator.requests.some(r => r.method === 'POST' && /deployment-record$/.test(r.path)))
      await new Promise(resolve => setTimeout(resolve, 20))
    child.kill(signal)
    expect(await closed).toBe(1)
    const outputs = JSON.parse(stdout) as Record<string, unknown>
    expect(outputs['storage-records']).toEqual([
      expect.objectContaining({ registry_url: 'https://ghcr.io' })
    ])
    expect(outputs['deployment-records']).toEqual([])
    expect(stderr).toContain(`Cancel requested (${signal})`)
    expect(stderr).toContain(`The run was cancelled (${signal})`)
  },
  30_000
)

test('--labels with --since in a checkout labels the pull requests merged since, from HEAD', async () => {
  const repo = join(dir, 'checkout')
  const git = (...args: string[]) =>
    exec('git', ['-c', 'user.name=ci', '-c', 'user.email=ci@example.com', ...args], { cwd: repo })
  await exec('git', ['init', '-q', '-b', 'main', repo])
  await git('commit', '-q', '--allow-empty', '-m', 'Start')
  await git('tag', 'v1.0.0')
  await git('commit', '-q', '--allow-empty', '-m', 'Merge pull request #12 from acme/feature')
  await git('commit', '-q', '--allow-empty', '-m', 'Add retries (#14)')
  emulator.seed({ pulls: { 'acme/web': [{ number: 12 }, { number: 14 }] } })

  const run = await recordDeployment(
    ['--labels', 'deployed:production', '--since', 'v1.0.0'],
    { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: emulator.url, GITHUB_REPOSITORY: 'acme/web' },
    repo
  )
  expect(run.code).toBe(0)
  const outputs = JSON.parse(run.stdout) as { 'pull-requests': string; labeled: unknown[] }
  expect(outputs['pull-requests'].split(',').sort()).toEqual(['12', '14'])
  expect(outputs.labeled).toEqual(
    expect.arrayContaining([
      { number: 12, added: ['deployed:production'], removed: [] },
      { number: 14, added: ['deployed:production'], removed: [] }
    ])
  )
})

test('labels outside Actions without --since, or with it outside a checkout, exit 2 saying what to give, nothing sent', async () => {
  const env = { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: emulator.url, GITHUB_REPOSITORY: 'acme/web' }
  // `dir` is the pipeline's directory, not a git checkout
  const noSince = await recordDeployment(['--labels', 'deployed:production'], env)
  const noCheckout = await recordDeployment(
    ['--labels', 'deployed:production', '--since', 'v1.0.0'],
    env
  )
  expect([noSince.code, noCheckout.code]).toEqual([2, 2])
  expect([noSince.stdout, noCheckout.stdout]).toEqual(['', ''])
  expect(emulator.requests).toEqual([])
  expect(noSince.stderr).toContain(
    '--pull-requests: outside GitHub Actions there is no event to find pull requests in'
  )
  expect(noSince.stderr).toContain('`--pull-requests 12,14`')
  expect(noCheckout.stderr).toContain(`is not one: run in the checkout`)
  expect(noCheckout.stderr).not.toMatch(/`{2}|: :/)
})

test('no token outside a workflow: exit 2 saying to set GITHUB_TOKEN or pass --token, not the `token` input', async () => {
  const run = await recordDeployment(['--digest', DIGEST, '--name', 'web', '--environment', 'qa'], {
    GITHUB_API_URL: emulator.url,
    GITHUB_REPOSITORY: 'acme/web'
  })
  expect(run.code).toBe(2)
  expect(run.stdout).toBe('')
  expect(run.stderr).toMatch(/^record-deployment: a problem; nothing was sent:$/m)
  expect(run.stderr).toContain('--token: is empty: set GITHUB_TOKEN (or pass `--token`)')
  expect(run.stderr).not.toMatch(/pass `token`|in a workflow/)
  expect(emulator.requests).toEqual([])
})

test('a flag named as a problem is named once: no "nothing to do" and no missing input after it', async () => {
  const env = { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: emulator.url, GITHUB_REPOSITORY: 'acme/web' }
  const twice = await recordDeployment(
    ['--digest', DIGEST, '--name', 'web', '--environment', 'qa', '--environment', 'prod'],
    env
  )
  const misspelt = await recordDeployment(
    ['--digest', DIGEST, '--name', 'web', '--Environment=qa'],
    env
  )
  expect([twice.code, misspelt.code]).toEqual([2, 2])
  expect(twice.stderr).toMatch(/^record-deployment: a problem; nothing was sent:$/m)
  expect(twice.stderr).toContain('`--environment` is given 2 times')
  expect(misspelt.stderr).toMatch(/^record-deployment: a problem; nothing was sent:$/m)
  expect(misspelt.stderr).toContain(
    'unknown flag `--Environment` (its value not shown) (did you mean `--environment`?)'
  )
  expect(emulator.requests).toEqual([])
})

test('a switch followed by TRUE or False reads it, as --dry-run=TRUE does', async () => {
  const run = await recordDeployment(
    ['--digest', DIGEST, '--name', 'web', '--environment', 'qa', '--dry-run', 'TRUE'],
    { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: emulator.url, GITHUB_REPOSITORY: 'acme/web' }
  )
  expect(run.code).toBe(0)
  expect(writesOf(emulator.requests)).toEqual([])
  const outputs = JSON.parse(run.stdout) as { planned: Array<{ method: string }> }
  expect(outputs.planned.map(p => p.method)).toEqual(['POST'])
})
