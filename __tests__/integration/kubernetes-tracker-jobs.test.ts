/**
 * `kubernetes-file` in `cluster-mode: job` agrees with GitHub's Kubernetes deployment tracker
 * (github/deployment-tracker) on the rejections a cluster job reports, and reads job answers off
 * the description in its own words. Each test quotes the rule it holds; all run the bundled
 * action against the emulator (setup: __fixtures__/kubernetes-tracker.ts).
 */
import {
  container,
  emulator,
  errorOf,
  go,
  running,
  useTrackerEmulator,
  warningsOf
} from '../../__fixtures__/kubernetes-tracker.js'
import { digestOf, kubectlList, workload } from '../../scripts/kubectl-list.js'

useTrackerEmulator()

describe('rejections by a cluster job', () => {
  const cluster = '/orgs/acme/artifacts/metadata/deployment-record/cluster/prod-eu-1/jobs'
  const list = kubectlList([
    workload('DaemonSet', 'ops', 'a'),
    running('ops', 'a-1', { kind: 'DaemonSet', name: 'a' }, '2026-01-01T00:00:00Z', [
      container('a', 'ghcr.io/acme/a:1')
    ]),
    workload('DaemonSet', 'ops', 'b'),
    running('ops', 'b-1', { kind: 'DaemonSet', name: 'b' }, '2026-01-01T00:00:00Z', [
      container('b', 'ghcr.io/acme/b:1')
    ]),
    workload('DaemonSet', 'ops', 'c'),
    running('ops', 'c-1', { kind: 'DaemonSet', name: 'c' }, '2026-01-01T00:00:00Z', [
      container('c', 'ghcr.io/acme/c:1')
    ])
  ])
  // pkg/deploymentrecord/record.go: "JobError represents a rejected deployment from the async job
  // submission. Name is the image/container name from the deployment record" (`{name, cause}`).
  // Two deployments rejected for the same cause stay two; the final status repeats those of the
  // creation, and names one more: three in all, a warning each.
  test('in the final status, flat or ours, each is named in the log, one warning per cause, and stays in errors', async () => {
    const atCreation = [
      { name: 'ghcr.io/acme/a', cause: 'not_found' },
      { name: 'ghcr.io/acme/b', cause: 'not_found' }
    ]
    emulator.addFault({
      method: 'POST',
      path: cluster,
      fault: { kind: 'status', status: 202, body: { job_id: 501, errors: atCreation } }
    })
    const ours = {
      cause: 'unauthorized',
      deployment: {
        name: 'ghcr.io/acme/c',
        digest: digestOf('ghcr.io/acme/c:1'),
        deployment_name: 'ops/c/c'
      }
    }
    emulator.addFault({
      method: 'GET',
      path: `${cluster}/501`,
      fault: {
        kind: 'status',
        status: 200,
        body: { job_id: 501, status: 'completed', total_count: 0, errors: [...atCreation, ours] }
      }
    })
    const run = await go(list, { 'cluster-mode': 'job', 'partial-success': 'true' })
    expect(run.code).toBe(0)
    expect(run.outputs['job-status']).toBe('completed')
    expect(JSON.parse(run.outputs['errors'] ?? '[]')).toEqual([...atCreation, ours])
    // each named in a log line of its own
    for (const line of [
      'Deployment of image ghcr.io/acme/a (ops/a/a) was not recorded: not_found',
      'Deployment of image ghcr.io/acme/b (ops/b/b) was not recorded: not_found',
      'Deployment ops/c/c (ghcr.io/acme/c@sha256:'
    ])
      expect(run.stdout).toContain(line)
    // one warning per cause: the two at creation together, the one in the final status alone
    const rejected = warningsOf(run.stdout).filter(w => w.includes('not recorded'))
    expect(rejected).toEqual([
      expect.stringMatching(
        /^::warning::2 deployments were not recorded: not_found: .*: ops\/a\/a, ops\/b\/b \(/
      ),
      expect.stringContaining('Deployment ops/c/c (ghcr.io/acme/c@sha256:')
    ])
    expect(rejected[1]).toContain('unauthorized')
  })

  test('without partial-success the final rejections fail the step, counted', async () => {
    emulator.addFault({
      method: 'GET',
      path: /\/jobs\/\d+$/,
      fault: {
        kind: 'status',
        status: 200,
        body: {
          job_id: 1,
          status: 'completed',
          total_count: 2,
          errors: [{ name: 'ghcr.io/acme/c', cause: 'not_found' }]
        }
      }
    })
    const run = await go(list, { 'cluster-mode': 'job' })
    expect(run.code).not.toBe(0)
    expect(errorOf(run.stdout)).toContain('1 of 3 deployments were rejected')
    expect(warningsOf(run.stdout).join('\n')).toContain(
      'Deployment of image ghcr.io/acme/c (ops/c/c) was not recorded: not_found'
    )
  })

  // The description's 202 is `{job_id, errors}` (pkg/deploymentrecord/record.go: "JobResponse
  // represents the 202 Accepted response from CreateClusterJob", JobID `json:"job_id"`). Without
  // a job_id there is no job to follow: an unexpected answer, said in our words.
  test('a 202 without job_id fails the step in our words', async () => {
    emulator.addFault({
      method: 'POST',
      path: cluster,
      fault: {
        kind: 'status',
        status: 202,
        body: {
          errors: [
            {
              cause: 'not_found',
              deployment: {
                name: 'ghcr.io/acme/a',
                digest: digestOf('ghcr.io/acme/a:1'),
                deployment_name: 'ops/a/a'
              }
            }
          ]
        }
      }
    })
    const run = await go(list, { 'cluster-mode': 'job' })
    expect(run.code).not.toBe(0)
    const error = errorOf(run.stdout)
    expect(error).toContain('answered the job for cluster prod-eu-1 with 202 but named no `job_id`')
    expect(error).toContain('whether the 3 deployments were recorded is unknown (1 were rejected')
    expect(run.stdout).not.toMatch(/Invalid input|expected number/)
    expect(JSON.parse(run.outputs['errors'] ?? '[]')).toHaveLength(1)
  })
})

// pkg/deploymentrecord/record.go: "JobStatus represents the response from GetClusterJobStatus"
// with `status`; internal/controller/reporting.go waits until it is "completed" or "failed". An
// answer without a status cannot be followed: said in our words, job-id kept. An odd entry of
// `errors` is left out, the others read.
describe('job status answers off the description', () => {
  const list = kubectlList([
    workload('DaemonSet', 'ops', 'a'),
    running('ops', 'a-1', { kind: 'DaemonSet', name: 'a' }, '2026-01-01T00:00:00Z', [
      container('a', 'ghcr.io/acme/a:1')
    ])
  ])
  test('without `status`: the step fails naming the job, not a schema', async () => {
    emulator.addFault({
      method: 'GET',
      path: /\/jobs\/\d+$/,
      fault: { kind: 'status', status: 200, body: { job_id: 1, state: 'done' } }
    })
    const run = await go(list, { 'cluster-mode': 'job' })
    expect(run.code).not.toBe(0)
    expect(errorOf(run.stdout)).toContain('answered the status of job 1 without a `status`')
    expect(run.stdout).not.toMatch(/Invalid input|expected string/)
    expect(run.outputs['job-id']).toBe('1')
  })

  test('an odd entry of `errors` is left out, the others warned', async () => {
    emulator.addFault({
      method: 'GET',
      path: /\/jobs\/\d+$/,
      fault: {
        kind: 'status',
        status: 200,
        body: {
          job_id: 1,
          status: 'completed',
          errors: [42, { name: 'ghcr.io/acme/a', cause: 'not_found' }]
        }
      }
    })
    const run = await go(list, { 'cluster-mode': 'job', 'partial-success': 'true' })
    expect(run.code).toBe(0)
    expect(run.outputs['job-status']).toBe('completed')
    expect(JSON.parse(run.outputs['errors'] ?? '[]')).toEqual([
      { name: 'ghcr.io/acme/a', cause: 'not_found' }
    ])
    expect(warningsOf(run.stdout).join('\n')).toContain(
      'Deployment of image ghcr.io/acme/a (ops/a/a) was not recorded: not_found'
    )
  })
})
