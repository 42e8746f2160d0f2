/**
 * `kubernetes-file` agrees with GitHub's Kubernetes deployment tracker (github/deployment-tracker)
 * on which pods count and which workload they belong to: a Running pod over a finished Job's, a
 * Job cleaned up, owners the file does not list, pod phases (and tag lengths). Each test quotes
 * the tracker's rule it holds and says what must be sent, worked out by hand from the rule; all
 * run the bundled action against the emulator (setup: __fixtures__/kubernetes-tracker.ts).
 */
import {
  container,
  go,
  running,
  sent,
  sentByName,
  useTrackerEmulator,
  warningsOf
} from '../../__fixtures__/kubernetes-tracker.js'
import { digestOf, kubectlList, workload } from '../../scripts/kubectl-list.js'

useTrackerEmulator()

// internal/controller/reporting.go, isPreferredSyncPod: "Running pods are preferred over terminal
// pods; among pods in the same category the most recently created pod wins."
test('a Running pod wins over a newer pod of a finished Job of the same CronJob', async () => {
  const job = (name: string) =>
    workload('Job', 'batch', name, { owner: { kind: 'CronJob', name: 'sync' } })
  const list = kubectlList([
    workload('CronJob', 'batch', 'sync'),
    job('sync-29400000'),
    job('sync-29400060'),
    // concurrencyPolicy: Allow. The older run is still running; the newer one already finished.
    running(
      'batch',
      'sync-29400000-a',
      { kind: 'Job', name: 'sync-29400000' },
      '2026-01-12T10:00:00Z',
      [container('sync', 'ghcr.io/acme/sync:1.0')]
    ),
    running(
      'batch',
      'sync-29400060-b',
      { kind: 'Job', name: 'sync-29400060' },
      '2026-01-12T10:01:00Z',
      [container('sync', 'ghcr.io/acme/sync:1.1')],
      { phase: 'Succeeded' }
    )
  ])
  const run = await go(list)
  expect(run.code).toBe(0)
  expect(sent()[0]?.['version']).toBe('1.0')
  expect(sent()).toEqual([
    {
      name: 'ghcr.io/acme/sync',
      version: '1.0',
      digest: digestOf('ghcr.io/acme/sync:1.0'),
      deployment_name: 'batch/sync/sync'
    }
  ])
})

// internal/workload/workload.go, resolveJobWorkload: "Job not found in cache - try CronJob name
// derivation as fallback. CronJob-created Jobs follow the naming pattern:
// <cronjob-name>-<unix-timestamp>" (the suffix all digits, and the CronJob must exist);
// otherwise "Standalone Job (possibly already deleted)".
test('a pod whose Job was cleaned up belongs to the CronJob of that name prefix when it exists', async () => {
  const list = kubectlList([
    workload('CronJob', 'batch', 'cleanup'),
    // No Job objects listed: they were deleted between kubectl's listing of pods and of jobs.
    running(
      'batch',
      'cleanup-29401440-q',
      { kind: 'Job', name: 'cleanup-29401440' },
      '2026-01-12T02:00:00Z',
      [container('cleanup', 'ghcr.io/acme/cleanup:5')],
      { phase: 'Succeeded' }
    ),
    // Not digits after the last dash: a standalone Job's name.
    running(
      'batch',
      'cleanup-manual-r',
      { kind: 'Job', name: 'cleanup-manual' },
      '2026-01-12T03:00:00Z',
      [container('cleanup', 'ghcr.io/acme/cleanup:5')],
      { phase: 'Succeeded' }
    ),
    // Digits, but no CronJob `report` is listed.
    running(
      'batch',
      'report-42-s',
      { kind: 'Job', name: 'report-42' },
      '2026-01-12T03:00:00Z',
      [container('report', 'ghcr.io/acme/report:1')],
      { phase: 'Failed' }
    )
  ])
  const run = await go(list)
  expect(run.code).toBe(0)
  expect(sent().map(d => d['deployment_name'])).toEqual([
    'batch/cleanup/cleanup',
    'batch/cleanup-manual/cleanup',
    'batch/report-42/report'
  ])
})

describe('owners the file does not list', () => {
  // internal/workload/workload.go, resolveJobWorkload: "Try to look up the Job to check for
  // CronJob ownership ... if owner.Kind == "CronJob" { return Identity{Name: owner.Name ...}";
  // internal/metadata/metadata.go, addOwnersToQueue: each owner is fetched from the cluster
  // ("m.metadataClient.Resource(gvr).Namespace(namespace).Get"). The tracker always sees the
  // owners; `kubectl get pods -A -o json` alone prints none, so the CronJob's pod gets the Job's
  // name and the Deployment's runtime risks are lost: said, never silently different.
  const G = 'metadata.github.com/'
  const pods = [
    running(
      'shop',
      'web-5c6b7-x1',
      { kind: 'ReplicaSet', name: 'web-5c6b7' },
      '2026-01-01T00:00:00Z',
      [container('web', 'ghcr.io/acme/web:1')]
    ),
    running(
      'shop',
      'nightly-29000000-abcde',
      { kind: 'Job', name: 'nightly-29000000' },
      '2026-01-01T02:00:00Z',
      [container('job', 'ghcr.io/acme/job:1')],
      { phase: 'Succeeded' }
    )
  ]
  test('pods only: the records are sent, and a warning names the kinds missing', async () => {
    const run = await go(kubectlList(pods))
    expect(run.code).toBe(0)
    // Worked out by hand: no ReplicaSet listed, so its name without the last `-` part; no Job
    // listed and no CronJob `nightly` either, so the Job's own name.
    expect(Object.keys(sentByName()).sort()).toEqual(['shop/nightly-29000000/job', 'shop/web/web'])
    const warning = warningsOf(run.stdout).find(w => w.includes('lists no'))
    expect(warning).toContain(
      '`kubernetes-file` lists no Jobs, ReplicaSets, though pods belong to them (1 to Jobs, 1 to ReplicaSets; printed with `kubectl get pods` only?)'
    )
    expect(warning).toContain("a CronJob's pods are named after each Job")
    expect(warning).toContain(
      'kubectl get pods,replicasets,deployments,daemonsets,statefulsets,jobs,cronjobs -A -o json'
    )
  })

  test('pods and replicasets without deployments: the Deployment is named, its annotations said lost', async () => {
    const run = await go(
      kubectlList([
        workload('ReplicaSet', 'shop', 'web-5c6b7', { owner: { kind: 'Deployment', name: 'web' } }),
        pods[0] as Record<string, unknown>
      ])
    )
    expect(run.code).toBe(0)
    expect(Object.keys(sentByName())).toEqual(['shop/web/web'])
    const warning = warningsOf(run.stdout).find(w => w.includes('lists no')) ?? ''
    expect(warning).toContain('lists no Deployments, though pods belong to them (1 to Deployments;')
    expect(warning).not.toContain('CronJob')
  })

  // internal/workload/workload.go: "Job not found in cache - try CronJob name derivation as
  // fallback": the only Job was cleaned up before kubectl listed the jobs; that is the tracker's
  // own case, resolved by the CronJob, not a file printed without jobs.
  test('the only Job cleaned up, its CronJob listed: the CronJob, no such warning', async () => {
    const run = await go(
      kubectlList([workload('CronJob', 'shop', 'nightly'), pods[1] as Record<string, unknown>])
    )
    expect(run.code).toBe(0)
    expect(Object.keys(sentByName())).toEqual(['shop/nightly/job'])
    expect(warningsOf(run.stdout).filter(w => w.includes('lists no'))).toEqual([])
  })

  test('every owner kind listed (one ReplicaSet missing in a race): no such warning', async () => {
    const run = await go(
      kubectlList([
        workload('Deployment', 'shop', 'api', { annotations: { [`${G}team`]: 'x' } }),
        workload('ReplicaSet', 'shop', 'api-1a2b3', { owner: { kind: 'Deployment', name: 'api' } }),
        running(
          'shop',
          'api-1a2b3-q',
          { kind: 'ReplicaSet', name: 'api-1a2b3' },
          '2026-01-01T00:00:00Z',
          [container('api', 'ghcr.io/acme/api:1')]
        ),
        pods[0] as Record<string, unknown>
      ])
    )
    expect(run.code).toBe(0)
    expect(Object.keys(sentByName()).sort()).toEqual(['shop/api/api', 'shop/web/web'])
    expect(warningsOf(run.stdout).filter(w => w.includes('lists no'))).toEqual([])
  })
})

// internal/controller/reporting.go, makeSyncRecords: "isRunningSupported := pod.Status.Phase ==
// corev1.PodRunning && workload.HasSupportedOwner(pod)"; "isTerminalJob :=
// workload.IsTerminalPhase(pod) && workload.GetJobOwnerName(pod) != \"\"". A pod in
// CrashLoopBackOff is still in phase Running (its container status has the imageID of its last
// start); an evicted pod of a Deployment is Failed but not a Job's; Unknown (node lost) and
// Pending are neither. internal/metadata/metadata.go: "utf8.RuneCountInString(tagValue) >
// MaxCustomTagLength": 100 characters, not 100 UTF-16 units.
test('pod phases as kubectl prints them, and tag lengths in characters', async () => {
  const G = 'metadata.github.com/'
  const crashing = running(
    'shop',
    'api-1',
    { kind: 'DaemonSet', name: 'api' },
    '2026-01-01T00:00:00Z',
    [container('api', 'ghcr.io/acme/api:1')],
    { annotations: { [`${G}owner`]: '😀'.repeat(100), [`${G}site`]: '😀'.repeat(101) } }
  ) as {
    status: { containerStatuses: Array<Record<string, unknown>> }
  }
  const status = crashing.status.containerStatuses[0] as Record<string, unknown>
  status['state'] = {
    waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container' }
  }
  status['lastState'] = { terminated: { exitCode: 1, reason: 'Error' } }
  status['ready'] = false
  status['restartCount'] = 17
  const evicted = running(
    'shop',
    'web-5c6b7-x1',
    { kind: 'ReplicaSet', name: 'web-5c6b7' },
    '2026-01-01T00:00:00Z',
    [container('web', 'ghcr.io/acme/web:1')],
    { phase: 'Failed' }
  ) as { status: Record<string, unknown> }
  evicted.status['reason'] = 'Evicted'
  evicted.status['message'] = 'The node was low on resource: memory.'
  const run = await go(
    kubectlList([
      workload('DaemonSet', 'shop', 'api'),
      crashing as unknown as Record<string, unknown>,
      workload('Deployment', 'shop', 'web'),
      workload('ReplicaSet', 'shop', 'web-5c6b7', { owner: { kind: 'Deployment', name: 'web' } }),
      evicted as unknown as Record<string, unknown>,
      workload('StatefulSet', 'shop', 'db'),
      running(
        'shop',
        'db-0',
        { kind: 'StatefulSet', name: 'db' },
        '2026-01-01T00:00:00Z',
        [container('pg', 'postgres:16')],
        { phase: 'Unknown' }
      ),
      running(
        'shop',
        'db-1',
        { kind: 'StatefulSet', name: 'db' },
        '2026-01-01T00:00:00Z',
        [{ name: 'pg', image: 'postgres:16', imageID: '' }],
        { phase: 'Pending' }
      )
    ])
  )
  expect(run.code).toBe(0)
  expect(sent()).toEqual([
    {
      name: 'ghcr.io/acme/api',
      version: '1',
      digest: digestOf('ghcr.io/acme/api:1'),
      deployment_name: 'shop/api/api',
      tags: { owner: '😀'.repeat(100) }
    }
  ])
  expect(warningsOf(run.stdout).join('\n')).toContain(
    'Pod shop/api-1: tag `site` from metadata.github.com/site has a key or value longer than 100 characters; skipped'
  )
})
