/**
 * `kubernetes-file` agrees with GitHub's Kubernetes deployment tracker (github/deployment-tracker),
 * and drops nothing without a word: each test quotes the tracker's rule it holds (file path in
 * that repository), builds the kubectl output by hand and says what must be sent, worked out by
 * hand from the rule. All run the bundled action, as the runner starts it, against the emulator.
 * This file: `github_repository`, and deployment names shared by more than one container. The
 * other rule families are in kubernetes-tracker-{workloads,containers,jobs}.test.ts; the shared
 * setup in __fixtures__/kubernetes-tracker.ts.
 */
import {
  container,
  emulator,
  errorOf,
  go,
  running,
  sent,
  sentByName,
  useTrackerEmulator,
  warningsOf
} from '../../__fixtures__/kubernetes-tracker.js'
import {
  digestOf,
  kubectlList,
  realisticCluster,
  REALISTIC_ITEMS,
  workload
} from '../../scripts/kubectl-list.js'

useTrackerEmulator()

describe('github_repository', () => {
  // pkg/deploymentrecord/record.go: "BaseRecord represents a deployment record for the deployment
  // record cluster endpoint." Its fields: name, digest, version, status, deployment_name,
  // runtime_risks, tags. No github_repository: the tracker never sends one.
  test('is not sent for containers from kubectl unless kubernetes-repository names one', async () => {
    const run = await go(realisticCluster())
    expect(run.code).toBe(0)
    expect(sent()).toHaveLength(REALISTIC_ITEMS.length)
    expect(sent().filter(d => 'github_repository' in d)).toEqual([])

    emulator.reset()
    const named = await go(realisticCluster(), { 'kubernetes-repository': 'acme/web' })
    expect(named.code).toBe(0)
    expect(new Set(sent().map(d => d['github_repository']))).toEqual(new Set(['web']))
  })

  test('an image without an attestation is then rejected by the service, not attributed', async () => {
    // Only web 1.5.0 is attested: kube-system's node-exporter and the others are not_found.
    emulator.state.attestedDigests = [digestOf('web:1.5.0')]
    const run = await go(realisticCluster(), { 'partial-success': 'true' })
    expect(run.code).toBe(0)
    const records = emulator.state.deploymentRecords['acme'] ?? []
    expect(records.map(r => r.deployment_name)).toEqual(['shop/web/web'])
    const errors = JSON.parse(run.outputs['errors'] ?? '[]') as Array<{ cause: string }>
    expect(errors).toHaveLength(REALISTIC_ITEMS.length - 1)
    // one warning for the cause, counting them; each deployment named in a log line
    expect(warningsOf(run.stdout).join('\n')).toContain(
      `${REALISTIC_ITEMS.length - 1} deployments were not recorded: not_found`
    )
    expect(run.stdout).toContain(
      'Deployment kube-system/node-exporter/node-exporter (quay.io/prometheus/node-exporter@sha256:'
    )
  })

  test('kubernetes-repository of another owner is refused before any request', async () => {
    const run = await go(realisticCluster(), { 'kubernetes-repository': 'someone/web' })
    expect(run.code).not.toBe(0)
    expect(errorOf(run.stdout)).toContain(
      'kubernetes-repository: `someone/web` is not a repository of `org` (acme)'
    )
    expect(emulator.requests).toEqual([])
  })
})

describe('deployment names shared by more than one container', () => {
  // internal/controller/config.go: "ValidTemplate verifies that at least one placeholder is
  // present in the provided template"; cmd/deployment-tracker/main.go refuses to start without.
  test('a template without a placeholder is refused before any request', async () => {
    const run = await go(realisticCluster(), { 'deployment-name-template': 'prod-cluster' })
    expect(run.code).not.toBe(0)
    expect(errorOf(run.stdout)).toContain(
      'deployment-name-template: `prod-cluster` has no placeholder'
    )
    expect(emulator.requests).toEqual([])
  })

  const web = [
    workload('Deployment', 'shop', 'web'),
    workload('ReplicaSet', 'shop', 'web-7d9f8', { owner: { kind: 'Deployment', name: 'web' } }),
    running(
      'shop',
      'web-7d9f8-a1',
      { kind: 'ReplicaSet', name: 'web-7d9f8' },
      '2026-01-10T08:00:00Z',
      [container('web', 'ghcr.io/acme/web:2.0'), container('envoy', 'envoyproxy/envoy:v1.30.1')]
    )
  ]

  // internal/controller/reporting.go, makeSyncRecords: "During a rollout the same deployment_name
  // can appear with multiple digests (old and new pods running at once), so we must collapse to a
  // single digest per workload and container name." Here two containers of one pod share the
  // name, which is not a rollout: the one kept (the first; a tie keeps it) is sent, and the other
  // is named in a warning instead of being dropped without a word.
  test('a template without {{containerName}}: the sidecar is named in a warning', async () => {
    const run = await go(kubectlList(web), {
      'deployment-name-template': '{{namespace}}/{{deploymentName}}'
    })
    expect(run.code).toBe(0)
    const warning = warningsOf(run.stdout).find(w => w.includes('more than one workload'))
    expect(warning).toContain('`shop/web` is recorded for Deployment shop/web container web')
    expect(warning).toContain('not for Deployment shop/web container envoy')
    expect(warning).toContain('deployment-name-template')
    expect(sent()).toEqual([
      {
        name: 'ghcr.io/acme/web',
        version: '2.0',
        digest: digestOf('ghcr.io/acme/web:2.0'),
        deployment_name: 'shop/web'
      }
    ])
  })

  // internal/controller/reporting.go, isPreferredSyncPod: "among pods in the same category the
  // most recently created pod wins". The StatefulSet's pod is newer, so it is the one recorded;
  // the Deployment is named in the warning.
  test('a Deployment and a StatefulSet of the same name: one recorded, the other named', async () => {
    const list = kubectlList([
      workload('Deployment', 'cache', 'redis'),
      workload('ReplicaSet', 'cache', 'redis-5f6c7', {
        owner: { kind: 'Deployment', name: 'redis' }
      }),
      running(
        'cache',
        'redis-5f6c7-x',
        { kind: 'ReplicaSet', name: 'redis-5f6c7' },
        '2026-01-01T00:00:00Z',
        [container('redis', 'redis:7.2')]
      ),
      workload('StatefulSet', 'cache', 'redis'),
      running('cache', 'redis-0', { kind: 'StatefulSet', name: 'redis' }, '2026-01-02T00:00:00Z', [
        container('redis', 'redis:7.4')
      ])
    ])
    const run = await go(list)
    expect(run.code).toBe(0)
    const warning = warningsOf(run.stdout).find(w => w.includes('more than one workload'))
    expect(warning).toContain(
      '`cache/redis/redis` is recorded for StatefulSet cache/redis container redis (pod redis-0), not for Deployment cache/redis container redis (pod redis-5f6c7-x)'
    )
    expect(sent()).toEqual([
      {
        name: 'redis',
        version: '7.4',
        digest: digestOf('redis:7.4'),
        deployment_name: 'cache/redis/redis'
      }
    ])
  })

  // internal/workload/workload.go, GetDeploymentName: "Extract deployment name by removing the
  // hash suffix ... rsName[:lastDash]": a ReplicaSet `web-blue` made without a Deployment gives
  // `web`, the name of the Deployment `web` beside it; the tracker collapses them without a word.
  // They are two workloads, not a rollout: worked out by hand, the newer pod (web-blue's, 2) is
  // recorded and the Deployment's is named in the warning.
  test('a ReplicaSet without a Deployment named like one: not a rollout, the other named', async () => {
    const list = kubectlList([
      workload('Deployment', 'shop', 'web'),
      workload('ReplicaSet', 'shop', 'web-5c6b7', { owner: { kind: 'Deployment', name: 'web' } }),
      running(
        'shop',
        'web-5c6b7-x1',
        { kind: 'ReplicaSet', name: 'web-5c6b7' },
        '2026-01-01T00:00:00Z',
        [container('web', 'ghcr.io/acme/web:1')]
      ),
      workload('ReplicaSet', 'shop', 'web-blue'),
      running(
        'shop',
        'web-blue-q1',
        { kind: 'ReplicaSet', name: 'web-blue' },
        '2026-01-02T00:00:00Z',
        [container('web', 'ghcr.io/acme/web:2')]
      )
    ])
    const run = await go(list)
    expect(run.code).toBe(0)
    expect(sent()).toEqual([
      {
        name: 'ghcr.io/acme/web',
        version: '2',
        digest: digestOf('ghcr.io/acme/web:2'),
        deployment_name: 'shop/web/web'
      }
    ])
    const warning = warningsOf(run.stdout).find(w => w.includes('more than one workload'))
    expect(warning).toContain(
      '`shop/web/web` is recorded for ReplicaSet shop/web container web (pod web-blue-q1), not for Deployment shop/web container web (pod web-5c6b7-x1)'
    )
  })

  // A rollout is the one sharing that is meant: no warning (the realistic cluster has one).
  test('a rollout shares a name without a warning', async () => {
    const run = await go(realisticCluster())
    expect(run.code).toBe(0)
    expect(sentByName()['shop/web/web']?.['version']).toBe('1.5.0')
    expect(warningsOf(run.stdout).join('\n')).not.toContain('more than one workload')
  })
})
