/**
 * Issue 33, through the bundled action: text the step does not own (the service's answers, the
 * state file, inputs) never reaches the log as a workflow command, nor the summary as markup.
 * The writer and the cell renderer over generated strings: unit/untrusted-text.test.ts.
 */
import fc from 'fast-check'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DIGEST, TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { wholeCluster } from '../../__fixtures__/reliability.js'
import { cmarkGfmMissing, linkableIn, renderGfm, shownAs, textOf } from '../../__fixtures__/gfm.js'
import { foreignCommands, hostileText } from '../../__fixtures__/runner-commands.js'
import { runAction, type ActionRun } from '../../scripts/run-action.js'
import type { Emulator } from '../../emulator/index.js'

fc.configureGlobal({ seed: Number(process.env['FC_SEED'] ?? 20261122) })

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator({ jobStepMs: 5 })
})
afterAll(async () => emulator.close())
beforeEach(() => emulator.reset())

/** No line of the step's stdout or stderr is a command but the step's own. */
function expectNoForeignCommands(run: ActionRun): void {
  expect(foreignCommands(run.stdout, [TOKEN])).toEqual([])
  expect(foreignCommands(run.stderr)).toEqual([])
}

const JOB = '/orgs/acme/artifacts/metadata/deployment-record/cluster/prod-eu-2/jobs/1'
const labelsRun = (over: Record<string, string> = {}) =>
  runAction(
    {
      token: TOKEN,
      'api-url': emulator.url,
      repository: 'acme/web',
      labels: 'deployed:production',
      'label-color': '0e8a16',
      'pull-requests': '7',
      ...over
    },
    { GITHUB_REPOSITORY: 'acme/web' }
  )

describe('the service answers text that would be a workflow command', () => {
  test.each([
    ['a line feed', 'processing\n::add-mask::x'],
    ['a lone carriage return', 'processing\r::stop-commands::t'],
    ['`##[` and no control character', 'processing ##[add-mask]x']
  ])('the cluster job status (`Job 1: <status>`) with %s', async (_what, status) => {
    emulator.addFault({
      method: 'GET',
      path: JOB,
      fault: { kind: 'status', status: 200, body: { job_id: 1, status } }
    })
    const run = await runAction(wholeCluster(emulator.url, 'job'))
    expect(run.code).toBe(0)
    expectNoForeignCommands(run)
    expect(run.stdout).toContain(
      `Job 1: ${status.replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace('##[', '##\\u005b')}`
    )
  })

  test.each([
    ['a line feed', 'deployed:production\n::add-mask::x'],
    ['`##[` and no control character', 'deployed:production ##[add-mask]x']
  ])(
    'a label name with %s, with `label-color` ("Label NAME is as described")',
    async (_what, name) => {
      emulator.seed({ issues: { 'acme/web': [{ number: 7 }] } })
      emulator.addFault({
        method: 'GET',
        path: '/repos/acme/web/labels/deployed:production',
        fault: { kind: 'status', status: 200, body: { id: 1, name, color: '0e8a16' } }
      })
      const run = await labelsRun()
      expect(run.code).toBe(0)
      expectNoForeignCommands(run)
      expect(run.stdout).toMatch(
        /Label deployed:production(\\n::add-mask::x| ##\\u005badd-mask\]x) is as described/
      )
    }
  )

  test("`##[` in `version`, printed in the dry run's JSON", async () => {
    const run = await runAction({
      token: TOKEN,
      'api-url': emulator.url,
      repository: 'acme/web',
      digest: DIGEST,
      name: 'ghcr.io/acme/web',
      version: '##[add-mask]1.0',
      environment: 'production',
      'dry-run': 'true'
    })
    expect(run.code).toBe(0)
    expectNoForeignCommands(run)
    expect(run.stdout).toContain('"version": "##\\u005badd-mask]1.0"')
    expect(JSON.parse(run.outputs['planned'] ?? '')[0].body.version).toBe('##[add-mask]1.0')
  })

  test("`##[` in the service's error message, in a discovery note", async () => {
    const sha = (n: number) => String(n).repeat(40)
    emulator.seed({
      commits: {
        'acme/web': [
          { sha: sha(1), message: 'Start', parents: [], pulls: [] },
          { sha: sha(2), message: 'Tune the pool', parents: [sha(1)], pulls: [] }
        ]
      },
      refs: { 'acme/web': { 'v1.0.0': sha(1) } }
    })
    emulator.addFault({
      method: 'GET',
      path: /\/commits\/[0-9a-f]+\/pulls$/,
      times: 10,
      fault: { kind: 'status', status: 400, body: { message: 'nope ##[add-mask]x' } }
    })
    const run = await runAction(
      { labels: 'deployed:production', since: 'v1.0.0' },
      {},
      {
        context: {
          token: TOKEN,
          apiUrl: emulator.url,
          eventName: 'release',
          event: { action: 'published', release: { tag_name: 'v1.1.0' } },
          sha: sha(2),
          ref: 'refs/tags/v1.1.0'
        }
      }
    )
    expectNoForeignCommands(run)
    expect(run.stdout).toContain('nope ##\\u005badd-mask]x')
  })

  test('`##[` in a deployment name of the state file, decommissioned and printed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'untrusted-state-'))
    await mkdir(join(dir, '.state'), { recursive: true })
    const gone = '##[add-mask]old-web'
    await writeFile(
      join(dir, '.state/prod.json'),
      JSON.stringify({
        format: 'record-deployment/cluster-state',
        version: 2,
        cluster: 'prod-eu-2',
        logical_environment: 'production',
        deployments: [{ deployment_name: gone, name: 'ghcr.io/acme/old', digest: DIGEST }]
      })
    )
    const run = await runAction(
      wholeCluster(emulator.url, 'sync', {
        'state-file': '.state/prod.json',
        'allow-mass-decommission': 'true'
      }),
      {},
      { context: { workspace: dir } }
    )
    expect(run.code).toBe(0)
    expectNoForeignCommands(run)
    expect(run.stdout).toContain('##\\u005badd-mask]old-web')
    // shown as code, the text it is
    expect(run.summary).toContain('`##[add-mask]old-web`')
  })
})

describe('the summary shows what the step does not own as text', () => {
  beforeAll(() => {
    const missing = cmarkGfmMissing()
    if (missing) throw new Error(missing)
  })

  /**
   * The summary as github.com shows it (cmark-gfm, __fixtures__/gfm.ts): what it makes of text
   * the step does not own (nothing, when inert), and the cells' text of the row of deployment `web`.
   */
  function webRow(summary: string): { linkable: string[]; cells: string[] | undefined } {
    const html = renderGfm(summary)
    const row = [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
      .map(m =>
        [...(m[1] as string).matchAll(/<td>([\s\S]*?)<\/td>/g)].map(c =>
          textOf(c[1] as string).trim()
        )
      )
      .find(cells => cells[0] === 'web')
    return { linkable: linkableIn(html), cells: row }
  }

  /** The cluster's set request answered 207: deployment `web` (artifact `name`) rejected for `cause`. */
  const rejectWeb = (name: string, cause: string) =>
    emulator.addFault({
      method: 'POST',
      path: '/orgs/acme/artifacts/metadata/deployment-record/cluster/prod-eu-2',
      fault: {
        kind: 'status',
        status: 207,
        body: {
          deployment_records: [],
          errors: [{ name, deployment: { deployment_name: 'web' }, cause }]
        }
      }
    })

  test("a rejected deployment's cause: no row ended, no comment, no image, no link", async () => {
    const cause = 'bad\r| x |<!-- <img src=https://evil.example/p.png> [here](https://evil.example)'
    rejectWeb('ghcr.io/acme/web', cause)
    const run = await runAction(wholeCluster(emulator.url, 'sync', { 'partial-success': 'true' }))
    expectNoForeignCommands(run)
    expect(webRow(run.summary)).toEqual({
      linkable: [],
      cells: ['web', 'ghcr.io/acme/web', cause.replace('\r', '\\r')]
    })
  })

  test('generated causes and label names: no command in the log, no markup in the summary', async () => {
    await fc.assert(
      fc.asyncProperty(hostileText(8), hostileText(8), async (cause, label) => {
        emulator.reset()
        rejectWeb(label, cause)
        const cluster = await runAction(
          wholeCluster(emulator.url, 'sync', { 'partial-success': 'true' })
        )
        expectNoForeignCommands(cluster)
        // the text each is, its control characters as JSON escapes; nothing made of it
        expect(webRow(cluster.summary)).toEqual({
          linkable: [],
          cells: ['web', label, cause].map(t => shownAs(t).trim())
        })

        emulator.seed({ issues: { 'acme/web': [{ number: 7 }] } })
        emulator.addFault({
          method: 'GET',
          path: '/repos/acme/web/labels/deployed:production',
          fault: { kind: 'status', status: 200, body: { id: 1, name: label, color: '0e8a16' } }
        })
        const labels = await labelsRun()
        expectNoForeignCommands(labels)
      }),
      { numRuns: 10 }
    )
  }, 120_000)
})

describe('names that reach records refuse control characters, before any request', () => {
  const single = {
    token: TOKEN,
    'api-url': '',
    repository: 'acme/web',
    digest: DIGEST,
    name: 'ghcr.io/acme/web',
    environment: 'production'
  }
  const refused = async (inputs: Record<string, string>, input: string, workspace?: string) => {
    const run = await runAction(
      { ...inputs, 'api-url': emulator.url },
      {},
      workspace ? { context: { workspace } } : {}
    )
    expect(run.code).toBe(1)
    expectNoForeignCommands(run)
    expect(run.stdout).toMatch(new RegExp(`- ${input}: .*contains a control character`))
    expect(emulator.requests).toEqual([])
    return run
  }

  test.each([
    ['environment', 'production\n::add-mask::x'],
    ['physical-environment', 'eu-west-1\r::stop-commands::t'],
    ['deployment-name', 'web\nweb'],
    ['name', 'ghcr.io/acme/web\u001b[2K'],
    ['version', '1.0\t2']
  ])('the input `%s`', async (input, value) => {
    await refused({ ...single, [input]: value }, input)
  })

  test('`environment` of a whole cluster', async () => {
    await refused(
      { ...wholeCluster(emulator.url, 'sync'), environment: 'prod\r::error::x' },
      'environment'
    )
  })

  test('a name in `deployments-file`', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'untrusted-items-'))
    await writeFile(
      join(dir, 'deployments.json'),
      JSON.stringify([{ name: 'ghcr.io/acme/web', digest: DIGEST, deployment_name: 'web\r::x' }])
    )
    const run = await refused(
      {
        ...wholeCluster(emulator.url, 'sync'),
        deployments: '',
        'deployments-file': 'deployments.json'
      },
      'deployments-file',
      dir
    )
    expect(run.stdout).toContain('[0].deployment_name')
  })

  test('a deployment name in the state file, with a lone CR', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'untrusted-state-'))
    await writeFile(
      join(dir, 'state.json'),
      JSON.stringify({
        format: 'record-deployment/cluster-state',
        version: 2,
        cluster: 'prod-eu-2',
        logical_environment: 'production',
        deployments: [
          { deployment_name: 'old\r::add-mask::x', name: 'ghcr.io/acme/old', digest: DIGEST }
        ]
      })
    )
    const run = await refused(
      {
        ...wholeCluster(emulator.url, 'sync'),
        'state-file': 'state.json',
        'allow-mass-decommission': 'true'
      },
      'state-file',
      dir
    )
    expect(run.stdout).toContain('deployments[0].deployment_name')
  })

  test.each([
    ['namespace', { namespace: 'prod\n::add-mask::x' }, {}],
    ['workload', { name: 'web-7d9f\r::error::x' }, {}],
    ['container', {}, { name: 'app\n##[add-mask]x' }]
  ])('the %s name in `kubernetes-file`', async (_what, meta, container) => {
    const dir = await mkdtemp(join(tmpdir(), 'untrusted-kube-'))
    const image = `ghcr.io/acme/web@${DIGEST}`
    const pod = {
      kind: 'Pod',
      metadata: {
        namespace: 'prod',
        name: 'web-7d9f-x1',
        ownerReferences: [{ kind: 'ReplicaSet', name: 'web-7d9f' }],
        ...meta
      },
      spec: { containers: [{ name: 'app', image, ...container }] },
      status: {
        phase: 'Running',
        containerStatuses: [{ name: 'app', imageID: image, ...container }]
      }
    }
    await writeFile(join(dir, 'pods.json'), JSON.stringify({ kind: 'List', items: [pod] }))
    const { deployments: _d, ...cluster } = wholeCluster(emulator.url, 'sync')
    const run = await runAction(
      { ...cluster, 'kubernetes-file': 'pods.json' },
      {},
      { context: { workspace: dir } }
    )
    expect(run.code).toBe(1)
    expectNoForeignCommands(run)
    expect(run.stdout).toMatch(/- kubernetes-file: .*control character/)
    expect(emulator.requests).toEqual([])
  })
})

describe('the outputs hold what the service answers as one value each', () => {
  test('a cluster job status with a line feed, written as a `name=value` line after a bug of ours, adds no output', async () => {
    emulator.addFault({
      method: 'GET',
      path: JOB,
      fault: {
        kind: 'status',
        status: 200,
        body: { job_id: 1, status: 'running\ndeployment-record-ids=666' }
      }
    })
    // The next poll fails: the status seen last is the job's status in the outputs.
    emulator.addFault({
      method: 'GET',
      path: JOB,
      fault: { kind: 'status', status: 404, body: { message: 'Not Found' } }
    })
    // The labels job, after the cluster job, meets a bug: the outputs are then written the
    // short way (main.ts, writeLineOutputs).
    const plant = fileURLToPath(
      new URL('../../__fixtures__/plant-bug-on-line.mjs', import.meta.url)
    )
    const run = await runAction(
      wholeCluster(emulator.url, 'job', { labels: 'deployed', 'pull-requests': '7' }),
      { NODE_OPTIONS: `--import=${plant}`, PLANT_BUG_LINE: 'Labels: ' }
    )
    expect(run.stdout).toMatch(/::error::record-deployment stopped on an unexpected error: planted/)
    expect(run.outputs['job-status']).toBe('running\ndeployment-record-ids=666')
    expect(run.outputs['deployment-record-ids']).not.toBe('666')
  })
})
