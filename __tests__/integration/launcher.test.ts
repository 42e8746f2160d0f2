import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { declaredInputs, evaluate, parseOutputFile, runAction } from '../../scripts/run-action.js'

let dir: string
let probe: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'launcher-test-'))
  probe = join(dir, 'probe.mjs')
  // Stands in for dist/index.js: reports what it was started with through the file commands,
  // in both of their forms.
  await writeFile(
    probe,
    `import { appendFileSync, readFileSync, existsSync } from 'node:fs'
const seen = {
  env: process.env,
  cwd: process.cwd(),
  event: JSON.parse(readFileSync(process.env.GITHUB_EVENT_PATH, 'utf8')),
  runnerTemp: existsSync(process.env.RUNNER_TEMP)
}
appendFileSync(process.env.GITHUB_OUTPUT, 'seen<<EOF_1\\n' + JSON.stringify(seen) + '\\nEOF_1\\n')
appendFileSync(process.env.GITHUB_OUTPUT, 'plain=a=b\\n')
appendFileSync(process.env.GITHUB_STEP_SUMMARY, '## probe\\n')
`
  )
})
afterAll(async () => rm(dir, { recursive: true, force: true }))

test('every input action.yml declares arrives, given or else its default with expressions evaluated', async () => {
  const run = await runAction(
    { digest: 'sha256:' + 'd'.repeat(64), environment: 'production', 'max-retries': '5' },
    {},
    {
      entry: probe,
      context: {
        token: 'ghs_job-token',
        apiUrl: 'http://127.0.0.1:9',
        repository: 'acme/web',
        eventName: 'release',
        event: { release: { tag_name: 'v2.0.0' } },
        ref: 'refs/tags/v2.0.0'
      }
    }
  )
  expect(run.code).toBe(0)
  expect(run.outputs['plain']).toBe('a=b')
  expect(run.summary).toBe('## probe\n')
  const seen = JSON.parse(run.outputs['seen'] ?? '') as {
    env: Record<string, string>
    cwd: string
    event: unknown
    runnerTemp: boolean
  }
  const declared = declaredInputs()
  const expected: Record<string, string> = {}
  for (const [name, spec] of Object.entries(declared)) expected[name] = spec.default ?? ''
  Object.assign(expected, {
    token: 'ghs_job-token',
    'api-url': 'http://127.0.0.1:9',
    repository: 'acme/web',
    digest: 'sha256:' + 'd'.repeat(64),
    environment: 'production',
    'max-retries': '5'
  })
  const started = Object.fromEntries(
    Object.keys(declared).map(name => [name, seen.env[`INPUT_${name.toUpperCase()}`]])
  )
  expect(started).toEqual(expected)
  expect(run.inputs).toEqual(expected)
  // Literal defaults arrive verbatim: the action must read them as no choice of the user's.
  expect(started['cluster-mode']).toBe('auto')
  expect(started['partial-success']).toBe('false')
  expect(seen.env).toMatchObject({
    GITHUB_ACTIONS: 'true',
    CI: 'true',
    GITHUB_EVENT_NAME: 'release',
    GITHUB_REPOSITORY: 'acme/web',
    GITHUB_REPOSITORY_OWNER: 'acme',
    GITHUB_REF: 'refs/tags/v2.0.0',
    GITHUB_REF_NAME: 'v2.0.0',
    GITHUB_REF_TYPE: 'tag',
    GITHUB_API_URL: 'http://127.0.0.1:9'
  })
  expect(seen.env['GITHUB_SHA']).toMatch(/^[0-9a-f]{40}$/)
  expect(seen.cwd).toBe(seen.env['GITHUB_WORKSPACE'])
  expect(seen.event).toEqual({ release: { tag_name: 'v2.0.0' } })
  expect(seen.runnerTemp).toBe(true)
})

test('a step that gives an input action.yml does not declare is refused', async () => {
  await expect(runAction({ digset: 'x' }, {}, { entry: probe })).rejects.toThrow(/digset/)
})

test("expressions: GitHub's engine, case-insensitive names, functions; a missing path is empty, an unknown context an error", () => {
  const context = {
    github: { event: { release: { tag_name: 'v1' } }, repository: 'acme/web' },
    steps: { build: { outputs: { digest: 'sha256:x' } } },
    vars: { DIGEST: 'sha256:y' }
  }
  expect(evaluate('ghcr.io/${{ github.repository }}@${{ vars.digest }}', context)).toBe(
    'ghcr.io/acme/web@sha256:y'
  )
  expect(evaluate('${{ github.event.release.tag_name }}', context)).toBe('v1')
  expect(evaluate('${{steps.build.outputs.digest}}', context)).toBe('sha256:x')
  expect(evaluate('${{ github.event.number }}', context)).toBe('')
  expect(evaluate("${{ format('{0}-{1}', github.repository, vars.DIGEST) }}", context)).toBe(
    'acme/web-sha256:y'
  )
  expect(evaluate('${{ fromJSON(\'{"a":[1,2]}\').a[1] }}', context)).toBe('2')
  expect(evaluate('${{ github.event.release }}', context)).toBe('{"tag_name":"v1"}')
  expect(evaluate("${{ contains('deployed:staging', 'staging') && 'yes' }}", context)).toBe('yes')
  expect(() => evaluate('${{ secrets.TOKEN }}', context)).toThrow(/secrets/)
})

test('the output file: plain lines, heredoc blocks, CRLF, an unterminated block refused', () => {
  expect(parseOutputFile('a=1\nb<<X\nline 1\nline 2\nX\nc=x=y\n')).toEqual({
    a: '1',
    b: 'line 1\nline 2',
    c: 'x=y'
  })
  expect(parseOutputFile('a<<X\r\nv\r\nX\r\n')).toEqual({ a: 'v' })
  expect(() => parseOutputFile('a<<X\nv\n')).toThrow(/no closing X/)
})
