/**
 * The cache steps around `state-file` in examples/record-cluster-state.yml and in README
 * "Workloads that vanished are decommissioned": a re-run keeps `github.run_id` and a cache key
 * cannot be saved twice, so the save key must name the attempt too, or the re-run's file is lost
 * and the next run starts from the file before it (its decommissions sent again, the workloads it
 * recorded never decommissioned). The restore must find the save by prefix, over the same path the
 * step writes, and the save must run after a failed step.
 */
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'

const root = new URL('../../', import.meta.url)

interface Step {
  uses?: string
  if?: string
  with?: Record<string, string>
}

function cacheSteps(steps: Step[]) {
  const restore = steps.find(s => s.uses?.startsWith('actions/cache/restore@'))
  const save = steps.find(s => s.uses?.startsWith('actions/cache/save@'))
  const ours = steps.find(s => s.uses?.includes('/record-deployment@'))
  return { restore, save, ours }
}

const example = parse(readFileSync(new URL('examples/record-cluster-state.yml', root), 'utf8')) as {
  concurrency?: { group?: string }
  jobs: Record<string, { steps: Step[] }>
}
const page = readFileSync(new URL('docs/state-file.md', root), 'utf8')
const section = page.slice(page.indexOf('## Workloads that vanished are decommissioned'))
const snippet = parse(/```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '') as Step[]

test.each([
  ['examples/record-cluster-state.yml', Object.values(example.jobs)[0]?.steps ?? []],
  ['docs/state-file.md snippet', snippet]
])(
  '%s: the save key names the run and its attempt, the restore finds it by prefix, over the path the step writes',
  (_where, steps) => {
    const { restore, save, ours } = cacheSteps(steps)
    const path = ours?.with?.['state-file']
    expect(path).toBeTruthy()
    expect(restore?.with?.['path']).toBe(path)
    expect(save?.with?.['path']).toBe(path)
    const key = save?.with?.['key'] ?? ''
    expect(key).toContain('${{ github.run_id }}')
    expect(key).toContain('${{ github.run_attempt }}')
    expect(restore?.with?.['key']).toBe(key)
    const prefix = restore?.with?.['restore-keys'] ?? ''
    expect(prefix.length).toBeGreaterThan(0)
    expect(key.startsWith(prefix)).toBe(true)
    // The prefix ends at a `/`, which no cluster name holds: `…/production/` cannot restore the
    // cache of `…/production-canary/` (a file the step would refuse as another environment's).
    expect(prefix.endsWith('/')).toBe(true)
    expect(key.slice(prefix.length)).toBe('${{ github.run_id }}-${{ github.run_attempt }}')
    // after a failed or cancelled step too, when there is a file to save
    expect(save?.if).toMatch(/^always\(\) && hashFiles\('(.+)'\) != ''$/)
    expect(save?.if).toContain(`hashFiles('${path}')`)
  }
)

test('the example runs one cluster at a time', () => {
  expect(example.concurrency?.group).toBeTruthy()
})
