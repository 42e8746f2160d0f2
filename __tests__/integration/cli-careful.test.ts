/**
 * The command line as careful as the action (issue 39): what a pipeline gets when a flag is
 * mistyped, given empty or twice, when its stdout is closed or full, and when `--since` cannot be
 * read. The bundle (dist/cli.js) run as a process against the emulator, with this Node.
 */
import { execFile, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { DIGEST, TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { runToEnd } from '../../__fixtures__/packed-cli.js'
import type { Emulator } from '../../emulator/index.js'
import { projectRoot } from '../../scripts/run-action.js'

const exec = promisify(execFile)
const CLI = join(projectRoot(), 'dist/cli.js')
const SECRET = 'ghp_' + 'S3cr3tT0k3n'.repeat(3)

let emulator: Emulator
let dir: string
beforeAll(async () => {
  emulator = await withEmulator()
  dir = await mkdtemp(join(tmpdir(), 'record-deployment-careful-'))
})
afterAll(async () => {
  await emulator.close()
  await rm(dir, { recursive: true, force: true })
})
beforeEach(() => emulator.reset())

const env = () => ({
  PATH: process.env['PATH'] ?? '',
  GITHUB_TOKEN: TOKEN,
  GITHUB_API_URL: emulator.url,
  GITHUB_REPOSITORY: 'acme/web'
})
const cli = (args: string[], cwd = dir) =>
  runToEnd(process.execPath, [CLI, ...args], { cwd, env: env() })

test('a mistyped token flag never prints its value: the flag is named, with the nearest known one', async () => {
  for (const [flag, near] of [
    ['--tokn', '--token'],
    ['--github-token', '--token'],
    ['--enviroment', '--environment']
  ] as const) {
    const spaced = await cli(['--digest', DIGEST, '--name', 'web', flag, SECRET])
    const joined = await cli(['--digest', DIGEST, '--name', 'web', `${flag}=${SECRET}`])
    for (const run of [spaced, joined]) {
      expect({ flag, code: run.code, stdout: run.stdout }).toEqual({ flag, code: 2, stdout: '' })
      expect(run.stderr).not.toContain(SECRET)
      expect(run.stderr).not.toContain('S3cr3t')
      expect(run.stderr).toContain(
        `unknown flag \`${flag}\` (its value not shown) (did you mean \`${near}\`?)`
      )
    }
  }
  // a stray word (a secret after a switch) is counted, never quoted
  const stray = await cli(['--digest', DIGEST, '--name', 'web', '--dry-run', SECRET])
  expect(stray.code).toBe(2)
  expect(stray.stderr).not.toContain('S3cr3t')
  expect(stray.stderr).toContain('unexpected argument 6 (after `--dry-run`), not shown')
  expect(emulator.requests).toEqual([])
})

test('a 100 kB unknown flag, or a token glued to `--token` (space forgotten), is described by its length, not echoed even in part', async () => {
  const long = '--' + 'x'.repeat(100_000)
  const run = await cli(['--digest', DIGEST, long])
  expect(run.code).toBe(2)
  expect(run.stderr.length).toBeLessThan(1_000)
  expect(run.stderr).not.toContain('xxx')
  expect(run.stderr).toContain('an unknown flag of 100002 characters, not shown')
  const glued = await cli(['--digest', DIGEST, '--environment', 'p', `--token${SECRET}`])
  expect(glued.code).toBe(2)
  expect(glued.stderr).not.toContain(SECRET.slice(0, 4))
  expect(glued.stderr).toContain(
    `an unknown flag beginning with \`--token\` (${SECRET.length + 7} characters), the rest not ` +
      'shown: a value glued to `--token`? Put a space or `=` between them'
  )
  expect(emulator.requests).toEqual([])
})

test('an empty value for a record flag (`--environment ""` beside `--registry-url`) is bad input: exit 2, nothing sent', async () => {
  const run = await cli([
    '--digest',
    `ghcr.io/acme/web@${DIGEST}`,
    '--registry-url',
    'https://ghcr.io',
    '--environment',
    ''
  ])
  expect([run.code, run.stdout]).toEqual([2, ''])
  expect(run.stderr).toContain('`--environment` is empty (a variable that came out empty?)')
  expect(emulator.requests).toEqual([])
  for (const flag of ['--cluster=', '--name=', '--registry-url=']) {
    const other = await cli(['--digest', `ghcr.io/acme/web@${DIGEST}`, '--environment', 'qa', flag])
    expect({ flag, code: other.code }).toEqual({ flag, code: 2 })
    expect(other.stderr).toContain(`\`${flag.slice(0, -1)}\` is empty`)
  }
  expect(emulator.requests).toEqual([])
})

test('a repeated `--digest IMG@sha256:...` is named as given twice, not as `--name` missing', async () => {
  const run = await cli([
    '--digest',
    `ghcr.io/acme/web@${DIGEST}`,
    '--digest',
    `ghcr.io/acme/api@${DIGEST}`,
    '--environment',
    'production'
  ])
  expect([run.code, run.stdout]).toEqual([2, ''])
  expect(run.stderr).toMatch(/^record-deployment: a problem; nothing was sent:$/m)
  expect(run.stderr).toContain('`--digest` is given 2 times; it takes one value')
  expect(run.stderr).not.toContain('--name')
  expect(emulator.requests).toEqual([])
})

/** The command line with its stdout's reader closed before it writes: EPIPE. */
function withClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: dir,
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  child.stdout.destroy()
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise(done => child.on('close', code => done({ code, stderr })))
}

test('a closed stdout (`| head -c 10`) or a full one (`> /dev/full`) is one line on stderr and exit 1, no stack trace', async () => {
  const record = ['--digest', DIGEST, '--name', 'web', '--environment', 'qa']
  const closed = await withClosedStdout(record)
  const help = await withClosedStdout(['--help'])
  const full = await exec(
    'bash',
    ['-c', `"$0" "$1" --help > /dev/full; echo "status $?" >&2`, process.execPath, CLI],
    {
      cwd: dir,
      env: env()
    }
  )
  for (const [what, code, stderr, errno] of [
    ['a record', closed.code, closed.stderr, 'EPIPE'],
    ['--help', help.code, help.stderr, 'EPIPE'],
    [
      '/dev/full',
      /status (\d+)/.exec(full.stderr)?.[1],
      full.stderr.replace(/status \d+\n$/, ''),
      'ENOSPC'
    ]
  ] as const) {
    expect({ what, code: Number(code) }).toEqual({ what, code: 1 })
    const lost = stderr
      .split('\n')
      .filter(line => line.startsWith('record-deployment: could not write'))
    expect({ what, lost }).toEqual({
      what,
      lost: [expect.stringContaining(`could not write to stdout (${errno}`) as string]
    })
    expect(stderr).not.toMatch(/^\s+at |node:internal|Unhandled/m)
  }
  // the record was sent before its JSON was lost: the log said so, and the line says it stands
  expect(closed.stderr).toMatch(/recorded stays recorded/)
}, 30_000)

test('a stderr that cannot be written (`2>/dev/full`, its reader gone) loses the log, not the run: the record is sent and stdout still holds its JSON', async () => {
  const record = ['--digest', DIGEST, '--name', 'web', '--environment', 'qa']
  for (const redirect of ['2>/dev/full', '2> >(head -c 1 >/dev/null)']) {
    emulator.reset()
    const run = await exec(
      'bash',
      ['-c', `"$0" "$1" "\${@:2}" ${redirect}; echo "status $?"`, process.execPath, CLI, ...record],
      { cwd: dir, env: env() }
    )
    const [json = '', status] = run.stdout.split(/\nstatus /)
    expect({ redirect, status: status?.trim() }).toEqual({ redirect, status: '0' })
    const outputs = JSON.parse(json) as Record<string, unknown>
    expect({ redirect, ids: outputs['deployment-record-ids'] }).toEqual({
      redirect,
      ids: expect.stringMatching(/^\d+$/) as string
    })
    expect(emulator.requests.filter(r => r.method === 'POST')).toHaveLength(1)
  }
}, 30_000)

test('an unreadable `--since` outside Actions gives the pipeline its own fix (`git fetch --unshallow --tags`), not fetch-depth', async () => {
  const repo = join(dir, 'checkout')
  const git = (...args: string[]) =>
    exec('git', ['-c', 'user.name=ci', '-c', 'user.email=ci@example.com', ...args], { cwd: repo })
  await exec('git', ['init', '-q', '-b', 'main', repo])
  await git('commit', '-q', '--allow-empty', '-m', 'Add retries (#14)')
  const run = await cli(['--labels', 'deployed:qa', '--since', 'v0.9.0'], repo)
  expect(run.stderr).toContain('git fetch --unshallow --tags')
  expect(run.stderr).toContain('`--since` must name')
  expect(run.stderr).not.toMatch(/fetch-depth|actions\/checkout/)
})

test('a record alone reads no event file, as the action does: a broken GITHUB_EVENT_PATH is not opened', async () => {
  const event = join(dir, 'no-such-event.json')
  const run = await runToEnd(
    process.execPath,
    [CLI, '--digest', DIGEST, '--name', 'web', '--environment', 'production', '--debug'],
    { cwd: dir, env: { ...env(), GITHUB_EVENT_NAME: 'push', GITHUB_EVENT_PATH: event } }
  )
  expect(run.code).toBe(0)
  expect(run.stderr).not.toContain('the event is read as empty')
  // labels that discover their pull requests do read it, and say it could not be read
  const labels = await runToEnd(
    process.execPath,
    [CLI, '--labels', 'deployed', '--since', 'HEAD', '--dry-run', '--debug'],
    { cwd: dir, env: { ...env(), GITHUB_EVENT_NAME: 'push', GITHUB_EVENT_PATH: event } }
  )
  expect(labels.stderr).toContain('the event is read as empty')
})
