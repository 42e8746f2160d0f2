/**
 * The command line by its package's name, as a new user meets it: the packed tarball installed
 * into an empty folder, `record-deployment` run by name from there. What every command line does
 * (`--version`, `-V`, `-h`), how a failure reads on stdout (`failed`), a refused token named as the
 * command line takes it, and a bug of ours still printing every output.
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { DIGEST, TOKEN, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import { installPacked, runToEnd } from '../../__fixtures__/packed-cli.js'
import type { Emulator } from '../../emulator/index.js'
import { projectRoot } from '../../scripts/run-action.js'

const action = parse(await readFile(join(projectRoot(), 'action.yml'), 'utf8')) as {
  outputs: Record<string, unknown>
}
const pkg = JSON.parse(await readFile(join(projectRoot(), 'package.json'), 'utf8')) as {
  version: string
}

let emulator: Emulator
let dir: string
let app: string
let bin: string
beforeAll(async () => {
  emulator = await withEmulator()
  dir = await mkdtemp(join(tmpdir(), 'record-deployment-package-'))
  ;({ app, bin } = await installPacked(dir))
}, 120_000)
afterAll(async () => {
  await emulator.close()
  await rm(dir, { recursive: true, force: true })
})
beforeEach(() => emulator.reset())

/** `record-deployment ...args` by name (the install's bin folder on PATH), with only `env` besides. */
const recordDeployment = (args: string[], env: Record<string, string> = {}) =>
  runToEnd('record-deployment', args, {
    cwd: app,
    env: { PATH: [bin, process.env['PATH'] ?? ''].join(':'), HOME: dir, ...env }
  })

const record = ['--digest', DIGEST, '--name', 'ghcr.io/acme/web', '--environment', 'production']

/** A loopback port nothing listens on: taken, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise(resolve => server.close(resolve))
  return port
}

test('installed from the packed tarball in an empty folder, `record-deployment --version` and `-V` print the package version and exit 0', async () => {
  for (const flag of ['--version', '-V']) {
    const run = await recordDeployment([flag])
    expect({ flag, ...run }).toEqual({
      flag,
      code: 0,
      stdout: `record-deployment ${pkg.version}\n`,
      stderr: ''
    })
  }
  expect(emulator.requests).toEqual([])
})

test("`--version VALUE` is the artifact's version: the record carries it", async () => {
  const run = await recordDeployment([...record, '--version', '2.4.0'], {
    GITHUB_TOKEN: TOKEN,
    GITHUB_API_URL: emulator.url,
    GITHUB_REPOSITORY: 'acme/web'
  })
  expect(run.code).toBe(0)
  const [write] = writesOf(emulator.requests)
  expect(write?.body).toMatchObject({ version: '2.4.0', logical_environment: 'production' })
  const outputs = JSON.parse(run.stdout) as { failed: unknown[] }
  expect(outputs.failed).toEqual([])
})

test('`--version` without a value among other flags exits 2 and says the rule; nothing sent', async () => {
  const run = await recordDeployment([...record, '--version'], {
    GITHUB_TOKEN: TOKEN,
    GITHUB_API_URL: emulator.url,
    GITHUB_REPOSITORY: 'acme/web'
  })
  expect(run.code).toBe(2)
  expect(run.stdout).toBe('')
  expect(run.stderr).toContain('`--version` needs a value here: `--version` alone (or `-V`)')
  expect(emulator.requests).toEqual([])
})

test('`-h` prints the help, which says the `--version` rule, and exits 0', async () => {
  const run = await recordDeployment(['-h'])
  expect(run.code).toBe(0)
  expect(run.stdout).toContain(`record-deployment ${pkg.version}: the record-deployment action`)
  expect(run.stdout).toContain('--version, -V')
  expect(run.stdout.replace(/\s+/g, ' ')).toContain(
    "with a value (`--version VALUE`) it is the artifact's version, the `version` input"
  )
  expect(run.stdout).toMatch(/^ {2}failed$/m)
})

test('a run against an unreachable api-url exits 1 with one entry in `failed` on stdout', async () => {
  const apiUrl = `http://127.0.0.1:${await closedPort()}`
  const run = await recordDeployment([...record, '--api-url', apiUrl], {
    GITHUB_TOKEN: TOKEN,
    GITHUB_REPOSITORY: 'acme/web'
  })
  expect(run.code).toBe(1)
  const outputs = JSON.parse(run.stdout) as { failed: unknown[]; 'deployment-records': unknown[] }
  expect(outputs['deployment-records']).toEqual([])
  expect(outputs.failed).toEqual([
    {
      what: expect.stringMatching(/^deployment record/),
      method: 'POST',
      path: '/orgs/acme/artifacts/metadata/deployment-record',
      status: null,
      request_id: null,
      message: expect.stringContaining('cannot be reached')
    }
  ])
  // The command line's words: its flag and variable, not the action's input.
  expect(outputs.failed[0]).toMatchObject({
    message: expect.stringContaining('Check `--api-url` (or `GITHUB_API_URL`), the network')
  })
  expect(run.stderr).not.toMatch(/`api-url`/)
}, 60_000)

test('a refused token: the hint names `GITHUB_TOKEN` (or `--token`), not the `token` input', async () => {
  const run = await recordDeployment([...record, '--max-retries', '0'], {
    GITHUB_TOKEN: 'refused-token',
    GITHUB_API_URL: emulator.url,
    GITHUB_REPOSITORY: 'acme/web'
  })
  expect(run.code).toBe(1)
  expect(run.stderr).toContain('The token was refused')
  expect(run.stderr).toContain('Check `GITHUB_TOKEN` (or `--token`).')
  expect(run.stderr).not.toContain('`token` input')
  const outputs = JSON.parse(run.stdout) as { failed: Array<{ status: number; message: string }> }
  expect(outputs.failed).toHaveLength(1)
  expect(outputs.failed[0]?.status).toBe(401)
  expect(outputs.failed[0]?.message).toContain('Check `GITHUB_TOKEN` (or `--token`).')
})

test('a bug of ours (planted) through the installed command line: exit 1, every output on stdout, `failed` naming it', async () => {
  // Node's own preload: the first SIGINT handler the command line installs throws.
  const plant = fileURLToPath(new URL('../../__fixtures__/plant-bug.mjs', import.meta.url))
  const run = await recordDeployment(record, {
    GITHUB_TOKEN: TOKEN,
    GITHUB_API_URL: emulator.url,
    GITHUB_REPOSITORY: 'acme/web',
    NODE_OPTIONS: `--import=${plant}`
  })
  expect(run.code).toBe(1)
  expect(run.stderr).toContain(
    'record-deployment stopped on an unexpected error: planted by the test'
  )
  const outputs = JSON.parse(run.stdout) as Record<string, unknown>
  expect(Object.keys(outputs).sort()).toEqual(Object.keys(action.outputs).sort())
  expect(outputs['failed']).toEqual([
    {
      what: 'unexpected internal error',
      method: null,
      path: null,
      status: null,
      request_id: null,
      message: 'planted by the test'
    }
  ])
  expect(outputs['deployment-records']).toEqual([])
  expect(outputs['truncated']).toEqual({})
  expect(emulator.requests).toEqual([])
})

test('the tarball installs as one package, and importing it runs nothing: no `::error`, no exit 1 from the action', async () => {
  const { readdir } = await import('node:fs/promises')
  const installed = (await readdir(join(app, 'node_modules'))).filter(n => !n.startsWith('.'))
  expect(installed).toEqual(['record-deployment'])
  // no JavaScript API: `import 'record-deployment'` is refused by its exports (docs/versioning.md)
  const imported = await runToEnd(
    process.execPath,
    ['--input-type=module', '-e', "await import('record-deployment')"],
    { cwd: app, env: { PATH: process.env['PATH'] ?? '', HOME: dir } }
  )
  expect(imported.code).toBe(1)
  expect(imported.stderr).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED')
  expect(imported.stdout + imported.stderr).not.toMatch(/::error|Input required|token/)
  const manifest = await runToEnd(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "console.log((await import('record-deployment/package.json', { with: { type: 'json' } })).default.version)"
    ],
    { cwd: app, env: { PATH: process.env['PATH'] ?? '', HOME: dir } }
  )
  expect([manifest.code, manifest.stdout.trim()]).toEqual([0, pkg.version])
})
