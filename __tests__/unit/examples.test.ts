import { readdirSync, readFileSync } from 'node:fs'
import { parse } from 'yaml'

const root = new URL('../../', import.meta.url)
const declared = new Set(
  Object.keys(
    (parse(readFileSync(new URL('action.yml', root), 'utf8')) as { inputs: object }).inputs
  )
)
const files = readdirSync(new URL('examples/', root)).filter(f => f.endsWith('.yml'))

interface Step {
  uses?: string
  with?: Record<string, unknown>
}

test('there is an example for each common job', () => {
  expect(files.sort()).toEqual([
    'decommission.yml',
    'label-staging.yml',
    'matrix-deploy.yml',
    'preview.yml',
    'promote-with-labels.yml',
    'record-cluster-kubectl.yml',
    'record-cluster-state.yml',
    'record-cluster.yml',
    'record-deploy.yml',
    'record-storage.yml',
    'release.yml',
    'reusable-caller.yml',
    'reusable-record.yml'
  ])
})

test.each(files)('%s parses and uses only inputs action.yml declares', file => {
  const workflow = parse(readFileSync(new URL(`examples/${file}`, root), 'utf8')) as {
    jobs: Record<string, { steps?: Step[]; uses?: string }>
  }
  const jobs = Object.values(workflow.jobs)
  const ours = jobs
    .flatMap(job => job.steps ?? [])
    .filter(step => step.uses?.includes('/record-deployment@'))
  // a caller of a reusable workflow: the example it calls, saved under its own name, has the step
  const called = jobs.map(job => /^\.\/\.github\/workflows\/(.+)$/.exec(job.uses ?? '')?.[1])
  expect(ours.length > 0 || called.some(name => name !== undefined && files.includes(name))).toBe(
    true
  )
  for (const step of ours) {
    const unknown = Object.keys(step.with ?? {}).filter(name => !declared.has(name))
    expect(unknown).toEqual([])
  }
})
