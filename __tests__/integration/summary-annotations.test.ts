/**
 * The bundled action's annotations and job summary on a platform team's runs: a cluster whose 40
 * deployments the service skips makes one warning per cause (GitHub shows 10 annotations a step),
 * each deployment named in the log and the summary; `job-summary: false` writes none; the
 * summaries of runs whose service answers hostile text, rendered as GitHub does (cmark-gfm).
 */
import { cmarkGfmMissing, linkableIn, renderGfm, textOf } from '../../__fixtures__/gfm.js'
import { runAction } from '../../scripts/run-action.js'
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'

let emulator: Emulator
afterEach(async () => emulator?.close())

const digest = (n: number) => 'sha256:' + n.toString(16).padStart(64, '0')
const deployments = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    name: `ghcr.io/acme/svc-${i + 1}`,
    digest: digest(i + 1),
    deployment_name: `prod-svc-${i + 1}-app`,
    // the last 10 name a repository the token cannot write to
    ...(i >= 30 ? { github_repository: 'secret-repo' } : {})
  }))

/** The lines the runner turns into annotations. */
const annotations = (stdout: string) =>
  stdout.split('\n').filter(l => /^::(warning|error)\b/.test(l))

test('a cluster run whose 40 deployments are all skipped makes at most 10 annotations, one per cause with what to do; the log and summary name each', async () => {
  emulator = await withEmulator({
    attestedDigests: [],
    tokens: { [TOKEN]: { permissions: 'all', repositories: ['acme/web'] } }
  })
  const run = await runAction(
    {
      token: TOKEN,
      cluster: 'prod-eu-1',
      environment: 'production',
      deployments: JSON.stringify(deployments(40)),
      'partial-success': 'true',
      org: 'acme',
      repository: 'other/site'
    },
    { GITHUB_API_URL: emulator.url, GITHUB_REPOSITORY: 'other/site' }
  )
  expect(run.stderr).toBe('')
  const errors = JSON.parse(run.outputs['errors'] ?? '[]') as Array<{ cause: string }>
  expect(errors).toHaveLength(40)
  const causes = [...new Set(errors.map(e => e.cause))]
  const lines = annotations(run.stdout)
  expect(lines.length).toBeLessThanOrEqual(10)
  // one warning per cause, counting its deployments and saying what to do
  for (const cause of causes) {
    const count = errors.filter(e => e.cause === cause).length
    const said = lines.filter(l => l.includes(`${count} deployments were not recorded: ${cause}`))
    expect(said).toHaveLength(1)
    expect(said[0]).toMatch(/To record them: /)
  }
  // each deployment by name in the log and the summary
  for (let i = 1; i <= 40; i++) {
    expect(run.stdout).toMatch(new RegExp(`^Deployment prod-svc-${i}-app \\(`, 'm'))
    expect(run.summary).toContain(`| \`prod-svc-${i}-app\` |`)
  }
  expect(run.summary).toMatch(/^## Nothing recorded$/m)
  expect(run.summary).toContain('### Not recorded (40)')
})

test('job-summary: false writes no job summary; the outputs are the same', async () => {
  emulator = await withEmulator()
  const inputs = {
    token: TOKEN,
    digest: `ghcr.io/acme/web@${digest(1)}`,
    version: '1.4.2',
    environment: 'production',
    'dry-run': 'true'
  }
  const env = { GITHUB_API_URL: emulator.url, GITHUB_REPOSITORY: 'acme/web' }
  const on = await runAction(inputs, env)
  const off = await runAction({ ...inputs, 'job-summary': 'false' }, env)
  expect(on.summary).toMatch(/^## Dry run: previewed, nothing was written$/m)
  expect(on.summary).toContain('- What: `ghcr.io/acme/web` version `1.4.2`')
  expect(off.summary).toBe('')
  expect(off.code).toBe(0)
  expect(off.outputs).toEqual(on.outputs)
})

describe('the summaries of hostile runs, as GitHub renders them', () => {
  beforeAll(() => {
    const missing = cmarkGfmMissing()
    if (missing) throw new Error(missing)
  })

  const HOSTILE =
    'foo\\@evil.example \\@octocat \\#123 evil/repo#1 GH-7 www.evil.example <img src=x>'
  const recordBoth = {
    token: TOKEN,
    digest: `ghcr.io/acme/web@${digest(7)}`,
    version: '1.4.2',
    environment: 'production',
    'registry-url': 'https://ghcr.io',
    'max-retries': '0'
  }
  const refuse = (path: RegExp) =>
    emulator.addFault({
      method: 'POST',
      path,
      times: 2,
      fault: { kind: 'status', status: 403, body: { message: `Forbidden ${HOSTILE}` } }
    })

  test.each([
    ['the deployment record refused', /deployment-record$/, 'Deployment recorded in part', 1],
    ['both writes refused', /(deployment|storage)-record$/, 'Nothing recorded', 2]
  ])(
    '%s: the title says so, each failure shows its fix, the service text makes no link',
    async (_what, path, title, failures) => {
      emulator = await withEmulator()
      refuse(path)
      const run = await runAction(recordBoth, {
        GITHUB_API_URL: emulator.url,
        GITHUB_REPOSITORY: 'acme/web'
      })
      expect(run.code).toBe(1)
      const html = renderGfm(run.summary)
      expect(html).toContain(`<h2>${title}</h2>`)
      expect(textOf(html)).toContain(
        'What: ghcr.io/acme/web version 1.4.2, digest sha256:000000000000…'
      )
      expect(
        textOf(html).match(/Fix: The step needs the permission artifact-metadata: write/g)
      ).toHaveLength(failures)
      expect(html).toContain('octocat')
      expect(linkableIn(html)).toEqual([])
    }
  )
})
