/**
 * The example table: every job a user copies (each workflow in examples/, each YAML block of
 * README.md that uses the action) runs through the runner-faithful launcher with only the inputs
 * it shows, against the emulator, and does what it says. A new example is covered by this table
 * without new test code; what it must do is read from its own inputs.
 */
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  documentedJobs,
  LINKED_ISSUES,
  REPOSITORY,
  SHIPPED_PULLS,
  stageJob,
  type DocumentedJob
} from '../../scripts/documented-jobs.js'
import { runAction, type ActionRun } from '../../scripts/run-action.js'
import { withEmulator, TOKEN } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'
import { defaultDeploymentName } from '../../src/inputs/index.js'

const ORG = REPOSITORY.split('/')[0] as string
/** Above the set request's 1000 items: `cluster-mode: auto` makes a background job. */
const JOB_SIZED_CLUSTER = 1200

let emulator: Emulator
let scratch: string
beforeAll(async () => {
  emulator = await withEmulator({ jobStepMs: 5 })
  scratch = await mkdtemp(join(tmpdir(), 'documented-jobs-'))
})
afterAll(async () => {
  await emulator.close()
  await rm(scratch, { recursive: true, force: true })
})

const jobs = documentedJobs()

/** A cluster step runs as a set and, unless its mode says otherwise, as a job-sized cluster too. */
function runsOf(job: DocumentedJob): Array<[string, DocumentedJob, number | undefined]> {
  if (!job.with['deployments-file'] && !job.with['kubernetes-file'])
    return [[job.source, job, undefined]]
  const mode = job.with['cluster-mode'] ?? 'auto'
  const sizes = mode === 'auto' ? [3, JOB_SIZED_CLUSTER] : [3]
  return sizes.map(size => [`${job.source} (${size} deployments)`, job, size])
}

test('the table holds every job the README and examples/ show', () => {
  const sources = jobs.map(job => job.source)
  expect(sources.filter(s => s.startsWith('examples/')).length).toBeGreaterThanOrEqual(4)
  expect(sources.filter(s => s.startsWith('README.md')).length).toBeGreaterThanOrEqual(4)
  // The jobs users asked for, each shown somewhere.
  const kinds = new Set(jobs.flatMap(kindsOf))
  expect([...kinds].sort()).toEqual(
    [
      'both records',
      'cluster',
      'deployment record',
      'labels',
      'labels only',
      'storage record only'
    ].sort()
  )
})

let count = 0
test.each(jobs.flatMap(runsOf))('%s records what it says', async (_name, job, size) => {
  emulator.reset()
  const workspace = join(scratch, `run-${++count}`)
  const staged = await stageJob(job, workspace, {
    token: TOKEN,
    apiUrl: emulator.url,
    clusterSize: size
  })
  emulator.seed(staged.seed)
  const run = await runAction(staged.inputs, {}, { context: staged.context })
  const inputs = staged.inputs

  expect({ code: run.code, problems: problemsOf(run) }).toEqual({ code: 0, problems: [] })
  expect(run.summary).toMatch(/^## /m)

  const digestInput = inputs['digest'] ?? ''
  const digest = /sha256:[0-9a-f]{64}/i.exec(digestInput)?.[0].toLowerCase()
  const image = digestInput.includes('@')
    ? digestInput.slice(0, digestInput.lastIndexOf('@'))
    : undefined
  const name = inputs['name'] ?? image

  if (inputs['environment'] && digest) {
    const record = emulator.state.deploymentRecords[ORG]?.find(
      r => r.digest === digest && r.logical_environment === inputs['environment']
    )
    expect(record).toMatchObject({
      name,
      status: inputs['status'] ?? 'deployed',
      cluster: inputs['cluster'] ?? '',
      physical_environment: inputs['physical-environment'] ?? '',
      deployment_name: inputs['deployment-name'] ?? defaultDeploymentName(name ?? ''),
      ...(inputs['version'] ? { version: inputs['version'] } : {})
    })
    expect(run.outputs['deployment-record-ids']?.split(',')).toContain(String(record?.id))
  }

  if (inputs['registry-url']) {
    const stored = emulator.state.storageRecords[ORG] ?? []
    expect(stored).toEqual([
      expect.objectContaining({
        digest,
        name,
        registry_url: inputs['registry-url'],
        ...(inputs['artifact-url'] ? { artifact_url: inputs['artifact-url'] } : {})
      })
    ])
    expect(JSON.parse(run.outputs['storage-records'] ?? '[]')).toEqual([
      expect.objectContaining({ digest, registry_url: inputs['registry-url'] })
    ])
  }

  if (staged.clusterItems) {
    const records = emulator.state.deploymentRecords[ORG] ?? []
    for (const item of staged.clusterItems) {
      expect(records).toContainEqual(
        expect.objectContaining({
          digest: item.digest,
          deployment_name: item.deployment_name,
          cluster: inputs['cluster'],
          logical_environment: inputs['environment']
        })
      )
    }
    expect(records).toHaveLength(staged.clusterItems.length)
    if (staged.clusterItems.length > 1000 || inputs['cluster-mode'] === 'job') {
      expect(run.outputs['job-id']).toMatch(/^\S+$/)
      expect(run.outputs['job-status']).toBe('completed')
    } else {
      expect(JSON.parse(run.outputs['deployment-records'] ?? '[]')).toHaveLength(
        staged.clusterItems.length
      )
    }
    expect(run.outputs['errors']).toBe('[]')
    if (inputs['state-file']) {
      // The step remembers what it recorded, for the next run to decommission what went away.
      const state = JSON.parse(readFileSync(join(workspace, inputs['state-file']), 'utf8')) as {
        deployments: Array<{ deployment_name: string }>
      }
      expect(state.deployments.map(d => d.deployment_name).sort()).toEqual(
        staged.clusterItems.map(item => item.deployment_name).sort()
      )
    }
  }

  const add = listOf(inputs['labels'])
  const remove = listOf(inputs['remove-labels'])
  if (add.length + remove.length > 0) {
    const targets = targetsOf(job, inputs)
    const issues = emulator.state.issues[REPOSITORY] ?? []
    for (const number of targets) {
      const carried = (issues.find(i => i.number === number)?.labels ?? []).map(l =>
        l.toLowerCase()
      )
      expect({ number, carried }).toEqual({
        number,
        carried: expect.arrayContaining(add.map(l => l.toLowerCase()))
      })
      for (const label of remove)
        expect({ number, removed: !carried.includes(label.toLowerCase()) }).toEqual({
          number,
          removed: true
        })
    }
    expect(numbersOf(run.outputs['pull-requests'])).toEqual(targets)
    if (inputs['label-color']) {
      for (const label of add) {
        expect(emulator.state.labels[REPOSITORY]).toContainEqual(
          expect.objectContaining({ name: label, color: inputs['label-color'].replace(/^#/, '') })
        )
      }
    }
  }
})

/** What the user would see as something wrong: errors, warnings, a crash on stderr. */
function problemsOf(run: ActionRun): string[] {
  return [
    ...run.stdout.split('\n').filter(line => /^::(error|warning)/.test(line)),
    ...(run.stderr ? [run.stderr] : [])
  ]
}

function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(/[\n,]/)
    .map(item => item.trim())
    .filter(Boolean)
}

function numbersOf(value: string | undefined): number[] {
  return listOf(value)
    .map(Number)
    .sort((a, b) => a - b)
}

/** The issues and pull requests the staged run's event ships, as README's rules say. */
function targetsOf(job: DocumentedJob, inputs: Record<string, string>): number[] {
  const given = inputs['pull-requests'] ?? 'auto'
  const pulls =
    given === 'none'
      ? []
      : given !== 'auto'
        ? numbersOf(given)
        : job.eventName.startsWith('pull_request')
          ? [12]
          : SHIPPED_PULLS
  const linked = /^true$/i.test(inputs['label-linked-issues'] ?? '') && pulls.includes(12)
  return [...pulls, ...(linked ? LINKED_ISSUES : [])].sort((a, b) => a - b)
}

function kindsOf(job: DocumentedJob): string[] {
  const has = (name: string) => (job.with[name] ?? '') !== ''
  const kinds: string[] = []
  const labels = has('labels') || has('remove-labels')
  const cluster = has('deployments-file') || has('deployments') || has('kubernetes-file')
  const deployment = has('environment') && !cluster
  if (deployment && has('registry-url')) kinds.push('both records')
  else if (deployment) kinds.push('deployment record')
  else if (has('registry-url')) kinds.push('storage record only')
  if (cluster) kinds.push('cluster')
  if (labels) kinds.push(kinds.length === 0 ? 'labels only' : 'labels')
  return kinds
}
