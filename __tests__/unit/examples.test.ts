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
    'release.yml'
  ])
})

test.each(files)('%s parses and uses only inputs action.yml declares', file => {
  const workflow = parse(readFileSync(new URL(`examples/${file}`, root), 'utf8')) as {
    jobs: Record<string, { steps: Step[] }>
  }
  const ours = Object.values(workflow.jobs)
    .flatMap(job => job.steps)
    .filter(step => step.uses?.includes('/record-deployment@'))
  expect(ours.length).toBeGreaterThan(0)
  for (const step of ours) {
    const unknown = Object.keys(step.with ?? {}).filter(name => !declared.has(name))
    expect(unknown).toEqual([])
  }
})
