/**
 * The command line run in process (src/cli/run-cli.ts): what reaches its stdout and stderr for
 * inputs stopped before any request, and the stdout JSON of a large result (never cut).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import type { ActionYml } from '../../src/cli/action-yml.js'
import { outputsJson, runCli } from '../../src/cli/run-cli.js'
import { fittedOutputs } from '../../src/step/outputs.js'
import { clearSecrets } from '../../src/runner/redact.js'
import { emptyResult, type RunResult } from '../../src/shared/result.js'

const yml = parse(readFileSync(new URL('../../action.yml', import.meta.url), 'utf8')) as {
  description: string
  inputs: Record<string, { description: string; default?: unknown }>
  outputs: Record<string, { description: string }>
}
const action: ActionYml = {
  description: yml.description,
  inputs: Object.entries(yml.inputs).map(([name, i]) => ({
    name,
    description: i.description,
    ...(i.default === undefined ? {} : { default: String(i.default) })
  })),
  outputs: Object.entries(yml.outputs).map(([name, o]) => ({ name, description: o.description }))
}
const DIGEST = 'sha256:' + '0123456789abcdef'.repeat(4)

afterEach(() => clearSecrets())

async function cli(argv: string[]) {
  const out = { stdout: '', stderr: '' }
  const code = await runCli(
    argv,
    {
      GITHUB_TOKEN: 'test-token',
      GITHUB_REPOSITORY: 'acme/web',
      GITHUB_API_URL: 'http://127.0.0.1:9'
    },
    action,
    { stdout: text => (out.stdout += text), stderr: text => (out.stderr += text) }
  )
  return { code, ...out }
}

test('a line break inside a bad value quoted in the problem list is shown as `\\n`: no line of the value starts a line of stderr', async () => {
  const forged = 'Recorded deployment record web (deployed) in production: id 1'
  const run = await cli([
    '--digest',
    `ghcr.io/acme/web@${DIGEST}`,
    '--environment',
    'p',
    '--status',
    `x\n${forged}\r${forged}`
  ])
  expect(run.code).toBe(2)
  expect(run.stdout).toBe('')
  expect(run.stderr).toContain(`x\\n${forged}\\r${forged}`)
  for (const line of run.stderr.split(/\r?\n|\r/)) expect(line.startsWith('Recorded')).toBe(false)
})

test('`-V` among record flags (or `-V VALUE`) is bad input: exit 2, no version printed, nothing on stdout', async () => {
  for (const tail of [['-V'], ['-V', '1.2.3']]) {
    const run = await cli(['--digest', `ghcr.io/acme/web@${DIGEST}`, '--environment', 'p', ...tail])
    expect({ tail, code: run.code, stdout: run.stdout }).toEqual({ tail, code: 2, stdout: '' })
    expect(run.stderr).toContain('`-V` prints this version and is given alone')
  }
  const alone = await cli(['-V'])
  expect(alone.code).toBe(0)
  expect(alone.stdout).toMatch(/^record-deployment \d+\.\d+\.\d+/)
})

test("the command line's stdout JSON is never cut to GitHub's 1 MB output budget: every record, `truncated` empty", () => {
  const result: RunResult = emptyResult(false)
  for (let id = 1; id <= 3000; id++)
    result.deploymentRecords.push({
      id,
      digest: DIGEST,
      name: `service-${id}-${'x'.repeat(200)}`,
      logical_environment: 'production',
      physical_environment: 'prod-eu',
      deployment_name: `deployment-${id}-${'y'.repeat(200)}`
    } as RunResult['deploymentRecords'][number])
  // the action's outputs are cut (this is the budget the command line must not apply)
  expect(fittedOutputs(result).cut['deployment-records']).toBeGreaterThan(0)
  const json = JSON.parse(outputsJson(result, action)) as Record<string, unknown>
  expect((json['deployment-records'] as unknown[]).length).toBe(3000)
  expect(String(json['deployment-record-ids']).split(',').length).toBe(3000)
  expect(json['truncated']).toEqual({})
})

test('credentials in `--registry-url` are bad input on the command line: exit 2 naming the flag, the password never printed', async () => {
  for (const url of [
    'https://bot:s3cr3tpass@registry.example.com',
    'https://registry.example.com/x?token=s3cr3tpass'
  ]) {
    const run = await cli(['--digest', `ghcr.io/acme/web@${DIGEST}`, '--registry-url', url])
    expect({ url, code: run.code, stdout: run.stdout }).toEqual({ url, code: 2, stdout: '' })
    expect(run.stderr).toContain('--registry-url: must not carry')
    expect(run.stderr).not.toContain('s3cr3t')
  }
})

test('`--job-summary` is taken and changes nothing: the command line writes no job summary, on or off', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-summary-'))
  const file = join(dir, 'summary.md')
  const before = process.env['GITHUB_STEP_SUMMARY']
  process.env['GITHUB_STEP_SUMMARY'] = file
  try {
    const args = ['--digest', `ghcr.io/acme/web@${DIGEST}`, '--environment', 'production']
    // the API is unreachable: each run fails its one read, and says so in its JSON
    const runs = [
      await cli([...args, '--max-retries', '0']),
      await cli([...args, '--max-retries', '0', '--job-summary', 'false']),
      await cli([...args, '--max-retries', '0', '--job-summary'])
    ]
    for (const run of runs) {
      expect(run.code).toBe(1)
      expect(run.stderr).not.toMatch(/job-summary/)
      expect(JSON.parse(run.stdout).failed).toHaveLength(1)
    }
    expect(existsSync(file)).toBe(false)
  } finally {
    if (before === undefined) delete process.env['GITHUB_STEP_SUMMARY']
    else process.env['GITHUB_STEP_SUMMARY'] = before
    rmSync(dir, { recursive: true, force: true })
  }
})
