/**
 * The realistic cluster the tests read (every rule of the derivation in a handful of namespaces)
 * and what the tracker's rules make of it, worked out by hand.
 */
import { type Json, G, digestOf, kubectlList, pod, workload } from './objects.js'

/**
 * A cluster with every rule in it: a rollout with two ReplicaSets, init containers, a DaemonSet,
 * a StatefulSet, a CronJob's Jobs (one failed, one succeeded), a standalone Job, a pod whose
 * ReplicaSet is not listed, a registry with a port, a sidecar without a digest, a pending and a
 * bare pod, and annotations on pods and owners (some invalid, some over the tag limit).
 */
export function realisticCluster(): Json {
  const web = (
    tag: string,
    hash: string,
    name: string,
    created: string,
    annotations?: Record<string, string>
  ) =>
    pod({
      namespace: 'shop',
      name: `web-${hash}-${name}`,
      owner: { kind: 'ReplicaSet', name: `web-${hash}` },
      labels: { 'pod-template-hash': hash },
      phase: 'Running',
      created,
      ...(annotations ? { annotations } : {}),
      containers: [
        {
          name: 'web',
          image: `ghcr.io/acme/web:${tag}`,
          imageID: `ghcr.io/acme/web@${digestOf(`web:${tag}`)}`
        }
      ],
      initContainers: [
        {
          name: 'migrate',
          image: `ghcr.io/acme/web-migrations:${tag}`,
          imageID: `ghcr.io/acme/web-migrations@${digestOf(`web-migrations:${tag}`)}`
        }
      ]
    })
  const report = (job: string, tag: string, phase: string, created: string) =>
    pod({
      namespace: 'batch',
      name: `${job}-x7k2p`,
      owner: { kind: 'Job', name: job },
      phase,
      created,
      containers: [
        {
          name: 'report',
          image: `registry.internal:5000/acme/report:${tag}`,
          imageID: `registry.internal:5000/acme/report@${digestOf(`report:${tag}`)}`
        }
      ]
    })
  const exporter = (name: string) =>
    pod({
      namespace: 'kube-system',
      name,
      owner: { kind: 'DaemonSet', name: 'node-exporter' },
      phase: 'Running',
      created: '2026-01-05T06:00:00Z',
      containers: [
        {
          name: 'node-exporter',
          image: 'quay.io/prometheus/node-exporter:v1.8.0',
          imageID: `docker-pullable://quay.io/prometheus/node-exporter@${digestOf('node-exporter:v1.8.0')}`
        }
      ]
    })
  return kubectlList([
    // shop: a Deployment half way through a rollout from 1.4.0 to 1.5.0
    workload('Deployment', 'shop', 'web', {
      annotations: {
        [`${G}team`]: 'storefront',
        [`${G}tier`]: 'frontend',
        [`${G}runtime-risks`]: 'internet-exposed'
      }
    }),
    workload('ReplicaSet', 'shop', 'web-7d9f8b6c4', { owner: { kind: 'Deployment', name: 'web' } }),
    workload('ReplicaSet', 'shop', 'web-5c6b7d9f8', { owner: { kind: 'Deployment', name: 'web' } }),
    web('1.4.0', '7d9f8b6c4', 'abcde', '2026-01-10T08:00:00Z'),
    web('1.5.0', '5c6b7d9f8', 'fghij', '2026-01-12T09:30:00Z', {
      [`${G}team`]: 'checkout',
      [`${G}runtime-risks`]: 'sensitive-data'
    }),
    web('1.5.0', '5c6b7d9f8', 'klmno', '2026-01-12T09:29:00Z'),
    pod({
      namespace: 'shop',
      name: 'web-5c6b7d9f8-pqrst',
      owner: { kind: 'ReplicaSet', name: 'web-5c6b7d9f8' },
      labels: { 'pod-template-hash': '5c6b7d9f8' },
      phase: 'Pending',
      created: '2026-01-12T09:31:00Z',
      containers: [{ name: 'web', image: 'ghcr.io/acme/web:1.5.0', imageID: '' }]
    }),
    // shop: a StatefulSet whose annotations are partly invalid
    workload('StatefulSet', 'shop', 'db', {
      annotations: {
        [`${G}owner-team`]: 'x'.repeat(120),
        [`${G}runtime-risks`]: 'sensitive-data, teleportation'
      }
    }),
    pod({
      namespace: 'shop',
      name: 'db-0',
      owner: { kind: 'StatefulSet', name: 'db' },
      phase: 'Running',
      created: '2026-01-03T12:00:00Z',
      containers: [
        {
          name: 'postgres',
          image: 'postgres:16.2',
          imageID: `docker.io/library/postgres@${digestOf('postgres:16.2')}`
        }
      ]
    }),
    // payments: a pod whose ReplicaSet is not in the list; a sidecar not pulled by digest
    pod({
      namespace: 'payments',
      name: 'api-6f7d8c9b5-q4w9z',
      owner: { kind: 'ReplicaSet', name: 'api-6f7d8c9b5' },
      labels: { 'pod-template-hash': '6f7d8c9b5' },
      phase: 'Running',
      created: '2026-01-11T14:00:00Z',
      annotations: {
        [`${G}cost-center`]: 'cc-42',
        [`${G}env-class`]: 'pci',
        [`${G}owner`]: 'payments-team',
        [`${G}pager`]: 'payments-oncall',
        [`${G}service`]: 'api',
        [`${G}slo`]: 'gold',
        'kubectl.kubernetes.io/restartedAt': '2026-01-11T13:59:00Z'
      },
      containers: [
        {
          name: 'api',
          image: `registry.internal:5000/payments/api@${digestOf('payments-api')}`,
          imageID: `registry.internal:5000/payments/api@${digestOf('payments-api')}`
        },
        { name: 'envoy', image: 'envoyproxy/envoy:v1.30.1', imageID: '' }
      ]
    }),
    // kube-system: a DaemonSet on two nodes
    workload('DaemonSet', 'kube-system', 'node-exporter'),
    exporter('node-exporter-abc12'),
    exporter('node-exporter-def34'),
    // batch: a CronJob's Jobs (the older failed), a standalone Job and a bare pod
    workload('CronJob', 'batch', 'nightly-report', { annotations: { [`${G}team`]: 'data' } }),
    workload('Job', 'batch', 'nightly-report-29400000', {
      owner: { kind: 'CronJob', name: 'nightly-report' }
    }),
    workload('Job', 'batch', 'nightly-report-29401440', {
      owner: { kind: 'CronJob', name: 'nightly-report' }
    }),
    report('nightly-report-29400000', '2026.01', 'Failed', '2026-01-11T02:00:00Z'),
    report('nightly-report-29401440', '2026.02', 'Succeeded', '2026-01-12T02:00:00Z'),
    workload('Job', 'batch', 'migrate-once'),
    pod({
      namespace: 'batch',
      name: 'migrate-once-n8d2f',
      owner: { kind: 'Job', name: 'migrate-once' },
      phase: 'Succeeded',
      created: '2026-01-09T07:00:00Z',
      containers: [
        { name: 'migrate', image: 'ghcr.io/acme/migrate:3', imageID: digestOf('migrate:3') }
      ]
    }),
    pod({
      namespace: 'batch',
      name: 'debug',
      phase: 'Running',
      created: '2026-01-12T11:00:00Z',
      containers: [
        {
          name: 'shell',
          image: 'busybox:1.36',
          imageID: `docker.io/library/busybox@${digestOf('busybox')}`
        }
      ]
    })
  ])
}

/** What the tracker's rules make of realisticCluster(), worked out by hand. */
export const REALISTIC_ITEMS = [
  {
    name: 'ghcr.io/acme/web',
    version: '1.5.0',
    digest: digestOf('web:1.5.0'),
    deployment_name: 'shop/web/web',
    tags: { team: 'checkout', tier: 'frontend' },
    runtime_risks: ['internet-exposed', 'sensitive-data']
  },
  {
    name: 'ghcr.io/acme/web-migrations',
    version: '1.5.0',
    digest: digestOf('web-migrations:1.5.0'),
    deployment_name: 'shop/web/migrate',
    tags: { team: 'checkout', tier: 'frontend' },
    runtime_risks: ['internet-exposed', 'sensitive-data']
  },
  {
    name: 'postgres',
    version: '16.2',
    digest: digestOf('postgres:16.2'),
    deployment_name: 'shop/db/postgres',
    runtime_risks: ['sensitive-data']
  },
  {
    name: 'registry.internal:5000/payments/api',
    digest: digestOf('payments-api'),
    deployment_name: 'payments/api/api',
    tags: {
      'cost-center': 'cc-42',
      'env-class': 'pci',
      owner: 'payments-team',
      pager: 'payments-oncall',
      service: 'api'
    }
  },
  {
    name: 'quay.io/prometheus/node-exporter',
    version: 'v1.8.0',
    digest: digestOf('node-exporter:v1.8.0'),
    deployment_name: 'kube-system/node-exporter/node-exporter'
  },
  {
    name: 'registry.internal:5000/acme/report',
    version: '2026.02',
    digest: digestOf('report:2026.02'),
    deployment_name: 'batch/nightly-report/report',
    tags: { team: 'data' }
  },
  {
    name: 'ghcr.io/acme/migrate',
    version: '3',
    digest: digestOf('migrate:3'),
    deployment_name: 'batch/migrate-once/migrate'
  }
]
