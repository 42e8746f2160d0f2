// Over 300 lines on purpose: one table whose every run is checked the same way, record by record,
// output by output; the expectations that do not depend on a run are in __fixtures__/.
/**
 * The example table: every job a user copies (each workflow in examples/, each YAML block of
 * README.md and docs/*.md that uses the action) runs through the runner-faithful launcher with only the inputs
 * it shows, against its own emulator, and does what it says. A new example is covered by this
 * table without new test code. What each run must do is read from the example's own text (its
 * inputs, evaluated by the launcher as the runner would) and from hand-derived fixtures (the staged
 * history and labels of emulator/demo-seed.ts, __fixtures__/kubectl-expected.ts), never from src/.
 * Runs are concurrent (each has its own emulator and workspace; all clone one staged history).
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { parse } from 'yaml'
import {
  commandLineSnippets,
  documentedJobs,
  makeOrigin,
  REPOSITORY,
  stageJob,
  type DocumentedJob,
  type Origin,
  type StagedJob
} from '../../scripts/documented-jobs.js'
import { flagsOf, runPipeline, type Pipeline } from '../../scripts/documented-pipelines.js'
import { projectRoot, runAction } from '../../scripts/run-action.js'
import { withEmulator, TOKEN } from '../../__fixtures__/emulator.js'
import { readmeText } from '../../__fixtures__/readme.js'
import {
  digestOf,
  expectedSynthetic,
  SYNTHETIC_3,
  type ExpectedItem
} from '../../__fixtures__/kubectl-expected.js'
import {
  expectSummary,
  labelsAfter,
  listOf,
  numbersOf,
  problemsOf,
  tagsOf,
  type Row
} from '../../__fixtures__/documented-expectations.js'

const ORG = REPOSITORY.split('/')[0] as string
/** Above the set request's 1000 items: `cluster-mode: auto` makes a background job. */
const JOB_SIZED_CLUSTER = 1200

const jobs = documentedJobs()
/** The documentation's shell snippets of the command line, and the test that runs what each shows. */
const COVERED: Record<string, string> = {
  'docs/command-line.md: Command line':
    '__tests__/integration/cli.test.ts (npm pack, npm install, npx)'
}

/** A cluster step runs as a set and, unless its mode says otherwise, as a job-sized cluster too. */
function runsOf(job: DocumentedJob): Array<[string, DocumentedJob, number | undefined]> {
  if (!job.with['deployments-file'] && !job.with['kubernetes-file'])
    return [[job.source, job, undefined]]
  const mode = job.with['cluster-mode'] ?? 'auto'
  const sizes = mode === 'auto' ? [3, JOB_SIZED_CLUSTER] : [3]
  return sizes.map(size => [`${job.source} (${size} workloads)`, job, size])
}
const runs = jobs.flatMap(runsOf)

// The package as `npm pack` makes it, for the pipelines' `npm install --global` (packed once).
let tarball: Promise<string> | undefined
const packed = () =>
  (tarball ??= (async () => {
    const { scratch } = await setup()
    const { stdout } = await promisify(execFile)(
      'npm',
      ['pack', '--silent', '--pack-destination', scratch],
      { cwd: projectRoot() }
    )
    return join(scratch, stdout.trim().split('\n').pop() ?? '')
  })())

// One scratch folder and one staged history for the whole file, made by the first run that needs it.
let shared: Promise<{ scratch: string; origin: Origin }> | undefined
const setup = () =>
  (shared ??= (async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'documented-jobs-'))
    return { scratch, origin: await makeOrigin(join(scratch, 'origin')) }
  })())
afterAll(async () => {
  if (shared) await rm((await shared).scratch, { recursive: true, force: true })
})

test('the table holds every job README, docs/ and examples/ show, and the docs say how many', () => {
  const sources = new Set(jobs.map(job => job.source))
  const workflows = [...sources].filter(s => s.startsWith('examples/')).length
  const blocks = sources.size - workflows
  expect(workflows).toBeGreaterThanOrEqual(4)
  expect(blocks).toBeGreaterThanOrEqual(4)
  // The jobs users asked for, each shown somewhere.
  expect([...new Set(jobs.flatMap(kindsOf))].sort()).toEqual(
    [
      'both records',
      'cluster',
      'deployment record',
      'dry run',
      'labels',
      'labels only',
      'storage record only',
      'command line: GitLab CI',
      'command line: Jenkins',
      'command line: Argo CD hook'
    ].sort()
  )
  // The documentation's figure is this table's, not typed by hand and left to drift.
  const figure = `**${jobs.length} jobs (${workflows} workflows, ${blocks} blocks of README and docs/), ${runs.length} runs`
  console.log(`example table: ${figure.slice(2)}`)
  const readme = readmeText()
  const printed = /\*\*\d+ jobs \(\d+ workflows, \d+ blocks of README and docs\/\), \d+ runs/.exec(
    readme
  )?.[0]
  expect({ 'the docs say': printed }).toEqual({ 'the docs say': figure })
  // Shell snippets of the command line with placeholders are not pipelines; each is named in
  // COVERED with the test that runs what it shows, so that a new one is not skipped without a word.
  expect(commandLineSnippets()).toEqual(Object.keys(COVERED))
  // The hand-written kubectl list and the rule it is generalized by agree.
  expect(expectedSynthetic(3)).toEqual(SYNTHETIC_3)
})

let count = 0
test.concurrent.each(runs)(
  '%s does what it says',
  async (_name, job, size) => {
    const { scratch, origin } = await setup()
    const emulator = await withEmulator({ jobStepMs: 5 })
    try {
      const n = ++count
      const staged = await stageJob(job, join(scratch, `run-${n}`), {
        token: TOKEN,
        apiUrl: emulator.url,
        clusterSize: size,
        origin
      })
      emulator.seed(staged.seed)
      const run = job.pipeline
        ? await runCommandLine(job.pipeline, staged, join(scratch, `run-${n}-stage`))
        : await runStep(job, staged)
      const inputs = run.inputs
      const dryRun = /^true$/i.test(inputs['dry-run'] ?? '')

      expect({ code: run.code, problems: run.problems }).toEqual({ code: 0, problems: [] })
      const declared = Object.keys(
        (parse(readFileSync(join(projectRoot(), 'action.yml'), 'utf8')) as { outputs: object })
          .outputs
      )
      expect(Object.keys(run.outputs).sort()).toEqual(declared.sort())

      const digestInput = inputs['digest'] ?? ''
      const digest = /sha256:[0-9a-f]{64}/i.exec(digestInput)?.[0].toLowerCase()
      const image = digestInput.includes('@')
        ? digestInput.slice(0, digestInput.lastIndexOf('@'))
        : undefined
      const name = inputs['name'] || image || ''
      const version = inputs['version'] || null
      // A version names the build (a tag, a sha, a number): a branch's name is every build's.
      expect({ version }).not.toEqual({ version: 'main' })
      const deploymentRecords = emulator.state.deploymentRecords[ORG] ?? []
      const storageRecords = emulator.state.storageRecords[ORG] ?? []
      const rows: Row[] = []

      // What the step's inputs say to write: README's Inputs tables, applied by hand.
      const storage = inputs['registry-url']
        ? {
            name,
            digest,
            version,
            registry_url: inputs['registry-url'],
            artifact_url: inputs['artifact-url'] || null,
            repository: inputs['registry-repository'] || null,
            path: inputs['storage-path'] || null,
            status: inputs['storage-status'] || 'active'
          }
        : undefined
      const deployment =
        inputs['environment'] && digest
          ? {
              name,
              digest,
              version,
              status: inputs['status'] || 'deployed',
              logical_environment: inputs['environment'],
              physical_environment: inputs['physical-environment'] ?? '',
              cluster: inputs['cluster'] ?? '',
              // README: "last path segment of `name`, without tag"
              deployment_name:
                inputs['deployment-name'] || (name.split('/').pop() ?? '').replace(/:.*$/, ''),
              tags: tagsOf(inputs['tags']),
              runtime_risks: listOf(inputs['runtime-risks'])
            }
          : undefined

      if (dryRun) {
        // A preview: nothing written, and `planned` holds each write the inputs ask for.
        expect(emulator.requests.filter(r => r.method !== 'GET')).toEqual([])
        expect([deploymentRecords, storageRecords]).toEqual([[], []])
        const planned = JSON.parse(run.outputs['planned'] ?? '') as unknown[]
        const expected = [
          ...(storage
            ? [
                {
                  method: 'POST',
                  path: `/orgs/${ORG}/artifacts/metadata/storage-record`,
                  effect: 'create',
                  body: expect.objectContaining(withoutNulls(storage))
                }
              ]
            : []),
          ...(deployment
            ? [
                {
                  method: 'POST',
                  path: `/orgs/${ORG}/artifacts/metadata/deployment-record`,
                  effect: 'create',
                  body: expect.objectContaining(withoutNulls(deployment))
                }
              ]
            : [])
        ]
        expect(expected.length).toBeGreaterThan(0)
        expect(planned).toEqual(expected)
        for (const p of expected) rows.push({ planned: p.method, path: p.path, effect: p.effect })
      }

      if (deployment && !dryRun) {
        const record = deploymentRecords.find(
          r => r.digest === digest && r.logical_environment === deployment.logical_environment
        )
        expect(record).toMatchObject(deployment)
        expect(run.outputs['deployment-record-ids']?.split(',')).toContain(String(record?.id))
        rows.push({ record: 'Deployment record', ...deployment, id: record?.id })
      }

      if (storage && !dryRun) {
        expect(storageRecords).toEqual([expect.objectContaining(storage)])
        // the fields the published description returns for a storage record
        const { name: n, digest: d, registry_url, artifact_url, repository, status } = storage
        expect(JSON.parse(run.outputs['storage-records'] ?? '[]')).toEqual([
          expect.objectContaining({
            name: n,
            digest: d,
            registry_url,
            artifact_url,
            repository,
            status
          })
        ])
        expect(run.outputs['storage-record-ids']).toBe(String(storageRecords[0]?.id))
        rows.push({ record: 'Storage record', ...storage, id: storageRecords[0]?.id })
      }

      const cluster = {
        cluster: inputs['cluster'],
        logical_environment: inputs['environment'],
        physical_environment: inputs['physical-environment'] ?? '',
        status: 'deployed'
      }
      const items = staged.deploymentsFile
        ? staged.deploymentsFile.map(item => ({ ...item, version: item.version ?? null }))
        : staged.kubectlWorkloads !== undefined
          ? kubectlItems(job, staged.kubectlWorkloads)
          : undefined
      if (items) {
        expect(items.length).toBeGreaterThan(0)
        for (const item of items) {
          const record = deploymentRecords.find(r => r.deployment_name === item.deployment_name)
          expect({ deployment: item.deployment_name, record }).toEqual({
            deployment: item.deployment_name,
            record: expect.objectContaining({ ...item, ...cluster })
          })
          rows.push({ record: 'Deployment record', ...item, ...cluster, id: record?.id })
        }
        expect(deploymentRecords).toHaveLength(items.length)
        const asJob = items.length > 1000 || inputs['cluster-mode'] === 'job'
        if (asJob) {
          expect(run.outputs['job-id']).toMatch(/^\d+$/)
          expect(run.outputs['job-status']).toBe('completed')
          rows.length = 0 // a job's records are not returned, so the summary has no rows
        } else {
          expect(JSON.parse(run.outputs['deployment-records'] ?? '[]')).toHaveLength(items.length)
        }
        expect(run.outputs['errors']).toBe('[]')
        if (inputs['state-file'] && !dryRun) {
          // The step remembers what it recorded, for the next run to decommission what went away.
          const state = JSON.parse(
            readFileSync(join(scratch, `run-${n}`, inputs['state-file']), 'utf8')
          ) as { deployments: Array<{ deployment_name: string }> }
          expect(state.deployments.map(d => d.deployment_name).sort()).toEqual(
            items.map(item => item.deployment_name).sort()
          )
        }
      }

      const add = listOf(inputs['labels'])
      const remove = listOf(inputs['remove-labels'])
      const labeled = add.length + remove.length > 0 ? labelsAfter(job, inputs, add, remove) : []
      for (const target of labeled) {
        const carried = emulator.state.issues[REPOSITORY]?.find(i => i.number === target.number)
        expect({ number: target.number, labels: carried?.labels.slice().sort() }).toEqual({
          number: target.number,
          labels: target.after
        })
      }
      if (add.length + remove.length > 0) {
        expect(numbersOf(run.outputs['pull-requests'])).toEqual(labeled.map(t => t.number))
        const outputs = JSON.parse(run.outputs['labeled'] ?? '[]') as Array<{ number: number }>
        expect(outputs.sort((a, b) => a.number - b.number)).toEqual(
          labeled.map(t => ({ number: t.number, added: t.added, removed: t.removed }))
        )
      }
      for (const label of inputs['label-color'] ? add : []) {
        expect(emulator.state.labels[REPOSITORY]).toContainEqual(
          expect.objectContaining({
            name: label,
            color: (inputs['label-color'] ?? '').replace(/^#/, ''),
            ...(inputs['label-description'] ? { description: inputs['label-description'] } : {})
          })
        )
      }

      if (run.summary !== undefined)
        expectSummary(run.summary, {
          dryRun,
          org: ORG,
          rows,
          jobId: items && rows.length === 0 ? run.outputs['job-id'] : undefined,
          labeled,
          reads: emulator.requests.filter(r => r.method === 'GET').length,
          writes: emulator.requests.filter(r => r.method !== 'GET').length
        })
    } finally {
      await emulator.close()
    }
  },
  90_000
) // the release's 7 s of write spacing, shared with the other runs and test files

interface Outcome {
  code: number | null
  problems: string[]
  /** the step's own inputs or the command line's flags, as evaluated (defaults left out) */
  inputs: Record<string, string>
  /** every output, as text (JSON outputs as their JSON) */
  outputs: Record<string, string>
  /** the job summary; the command line writes none */
  summary?: string
}

/** A workflow step, started by the launcher as the runner starts it. */
async function runStep(job: DocumentedJob, staged: StagedJob): Promise<Outcome> {
  const run = await runAction(
    job.with,
    {},
    {
      context: staged.context,
      expressions: staged.expressions
    }
  )
  return {
    code: run.code,
    problems: problemsOf(run),
    inputs: Object.fromEntries(Object.keys(job.with).map(n => [n, run.inputs[n] ?? ''])),
    outputs: run.outputs,
    summary: run.summary
  }
}

/** A pipeline's script, run as its system runs it, with the command line from `npm pack`. */
async function runCommandLine(
  pipeline: Pipeline,
  staged: StagedJob,
  stage: string
): Promise<Outcome> {
  const run = await runPipeline(pipeline, {
    workspace: staged.context.workspace ?? stage,
    stage,
    tarball: await packed(),
    given: staged.variables ?? {}
  })
  // Stdout of the command line is one JSON object, and the script printed it or kept it.
  if (!run.cliStdout.trim())
    throw new Error(
      `record-deployment printed nothing (exit ${run.code}):\n${run.stdout}\n${run.stderr}`
    )
  const printed = JSON.parse(run.cliStdout) as Record<string, unknown>
  expect(run.cliStdout.trim().split('\n')).toHaveLength(1)
  return {
    code: run.code,
    problems: [
      ...run.stderr.split('\n').filter(line => /^(warning|error):/.test(line)),
      ...(run.code !== 0 ? [run.stderr] : [])
    ],
    inputs: flagsOf(run.argv),
    outputs: Object.fromEntries(
      Object.entries(printed).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])
    )
  }
}

/** The records a `kubernetes-file` step must write: the hand-derived list, under its filters. */
function kubectlItems(job: DocumentedJob, workloads: number) {
  if (job.with['deployment-name-template'])
    throw new Error(
      `${job.source}: no hand-derived expectation for a deployment-name-template; add one to ` +
        '__fixtures__/kubectl-expected.ts'
    )
  const only = listOf(job.with['namespaces'])
  const excluded = listOf(job.with['exclude-namespaces'])
  const kept = (item: ExpectedItem) =>
    only.length > 0 ? only.includes(item.namespace) : !excluded.includes(item.namespace)
  const list = workloads === 3 ? SYNTHETIC_3 : expectedSynthetic(workloads)
  return list.filter(kept).map(item => ({
    name: item.name,
    version: item.version,
    digest: digestOf(item.pulled),
    deployment_name: item.deployment_name,
    tags: item.tags,
    runtime_risks: item.runtime_risks
  }))
}

/** A request body leaves out what is not given: null, empty text, an empty list or object. */
function withoutNulls(record: Record<string, unknown>): Record<string, unknown> {
  const empty = (v: unknown) =>
    v === null ||
    v === undefined ||
    v === '' ||
    (typeof v === 'object' && Object.keys(v as object).length === 0)
  return Object.fromEntries(Object.entries(record).filter(([, v]) => !empty(v)))
}

function kindsOf(job: DocumentedJob): string[] {
  const has = (name: string) => (job.with[name] ?? '') !== ''
  const kinds: string[] = job.pipeline ? [`command line: ${job.pipeline.kind}`] : []
  const labels = has('labels') || has('remove-labels')
  const cluster = has('deployments-file') || has('deployments') || has('kubernetes-file')
  const deployment = has('environment') && !cluster
  if (/^true$/i.test(job.with['dry-run'] ?? '')) kinds.push('dry run')
  else if (deployment && has('registry-url')) kinds.push('both records')
  else if (deployment) kinds.push('deployment record')
  else if (has('registry-url')) kinds.push('storage record only')
  if (cluster) kinds.push('cluster')
  if (labels) kinds.push(kinds.length === 0 ? 'labels only' : 'labels')
  return kinds
}
