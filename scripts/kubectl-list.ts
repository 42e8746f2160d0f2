/**
 * Kubernetes lists shaped like what `kubectl get pods,replicasets,deployments,daemonsets,
 * statefulsets,jobs,cronjobs -A -o json` prints: the realistic cluster the tests read (every
 * rule of the derivation in a handful of namespaces), a synthetic one of any size for the
 * example table, and a writer that streams a list to a file (the benchmark's 20k pods).
 */
import { createHash } from 'node:crypto'
import { closeSync, openSync, writeSync } from 'node:fs'

type Json = Record<string, unknown>

export const digestOf = (label: string) =>
  'sha256:' + createHash('sha256').update(label).digest('hex')

const uid = (label: string) => {
  const h = createHash('md5').update(label).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}

interface Owner {
  kind: string
  name: string
}

const ownerRef = (namespace: string, owner: Owner) => ({
  apiVersion: ['Job', 'CronJob'].includes(owner.kind) ? 'batch/v1' : 'apps/v1',
  blockOwnerDeletion: true,
  controller: true,
  kind: owner.kind,
  name: owner.name,
  uid: uid(`${owner.kind}/${namespace}/${owner.name}`)
})

function meta(
  kind: string,
  namespace: string,
  name: string,
  created: string,
  extra: { owner?: Owner; annotations?: Record<string, string>; labels?: Record<string, string> }
): Json {
  return {
    ...(extra.annotations ? { annotations: extra.annotations } : {}),
    creationTimestamp: created,
    generation: 1,
    labels: { 'app.kubernetes.io/name': name, ...extra.labels },
    managedFields: [
      {
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app.kubernetes.io/name': {} } } },
        manager: 'kube-controller-manager',
        operation: 'Update',
        time: created
      }
    ],
    name,
    namespace,
    ...(extra.owner ? { ownerReferences: [ownerRef(namespace, extra.owner)] } : {}),
    resourceVersion: String(100000 + ((name.length * 7919) % 90000)),
    uid: uid(`${kind}/${namespace}/${name}`)
  }
}

/** A workload object (Deployment, ReplicaSet, DaemonSet, StatefulSet, Job, CronJob). */
export function workload(
  kind: string,
  namespace: string,
  name: string,
  extra: { owner?: Owner; annotations?: Record<string, string>; created?: string } = {}
): Json {
  const created = extra.created ?? '2026-01-02T10:00:00Z'
  return {
    apiVersion: ['Job', 'CronJob'].includes(kind) ? 'batch/v1' : 'apps/v1',
    kind,
    metadata: meta(kind, namespace, name, created, extra),
    spec: kind === 'CronJob' ? { schedule: '0 2 * * *', suspend: false } : { replicas: 1 },
    status: {}
  }
}

export interface ContainerSpec {
  name: string
  image: string
  /** What the node reports in `imageID`; empty when the image is not pulled yet. */
  imageID: string
}

export interface PodSpec {
  namespace: string
  name: string
  owner?: Owner
  phase: string
  created: string
  containers: ContainerSpec[]
  initContainers?: ContainerSpec[]
  annotations?: Record<string, string>
  labels?: Record<string, string>
  /** Environment entries added to the first container, to make a pod as big as real ones. */
  padEnv?: number
}

/** A pod as kubectl prints it, status included. */
export function pod(p: PodSpec): Json {
  const spec = (c: ContainerSpec, i: number) => ({
    ...(i === 0 && p.padEnv
      ? {
          env: Array.from({ length: p.padEnv }, (_, k) => ({
            name: `SETTING_${k}`,
            value: `value-${k}-${'x'.repeat(40)}`
          }))
        }
      : {}),
    image: c.image,
    imagePullPolicy: 'IfNotPresent',
    name: c.name,
    resources: { requests: { cpu: '100m', memory: '128Mi' } },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    volumeMounts: [
      {
        mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
        name: 'kube-api-access',
        readOnly: true
      }
    ]
  })
  const status = (c: ContainerSpec) => ({
    ...(c.imageID ? { containerID: `containerd://${digestOf(p.name + c.name).slice(7)}` } : {}),
    image: c.image.replace(/@sha256:.*$/, ''),
    imageID: c.imageID,
    lastState: {},
    name: c.name,
    ready: p.phase === 'Running',
    restartCount: 0,
    started: p.phase === 'Running',
    state:
      p.phase === 'Running'
        ? { running: { startedAt: p.created } }
        : p.phase === 'Pending'
          ? { waiting: { reason: 'ContainerCreating' } }
          : { terminated: { exitCode: p.phase === 'Failed' ? 1 : 0, reason: 'Completed' } }
  })
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...meta('Pod', p.namespace, p.name, p.created, {
        ...(p.owner ? { owner: p.owner } : {}),
        ...(p.annotations ? { annotations: p.annotations } : {}),
        labels: p.labels ?? {}
      }),
      generateName: p.name.replace(/[^-]+$/, '')
    },
    spec: {
      containers: p.containers.map(spec),
      ...(p.initContainers ? { initContainers: p.initContainers.map(spec) } : {}),
      dnsPolicy: 'ClusterFirst',
      nodeName: 'node-1',
      restartPolicy: p.owner?.kind === 'Job' ? 'Never' : 'Always',
      schedulerName: 'default-scheduler',
      serviceAccountName: 'default'
    },
    status: {
      conditions: [{ lastTransitionTime: p.created, status: 'True', type: 'Ready' }],
      containerStatuses: p.containers.map(status),
      ...(p.initContainers ? { initContainerStatuses: p.initContainers.map(status) } : {}),
      hostIP: '10.0.0.11',
      phase: p.phase,
      podIP: '10.244.1.17',
      qosClass: 'Burstable',
      startTime: p.created
    }
  }
}

/** The envelope kubectl prints around the objects, `items` first and `kind` after them. */
export function kubectlList(items: Json[], kind = 'List'): Json {
  return { apiVersion: 'v1', items, kind, metadata: { resourceVersion: '' } }
}

const G = 'metadata.github.com/'

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

const NAMESPACES = ['shop', 'payments', 'search', 'data', 'kube-system']

/**
 * The objects of a clean synthetic cluster of `workloads` workloads (Deployments with two pods,
 * every fourth mid-rollout, DaemonSets, StatefulSets and CronJobs; init containers on every
 * fifth), each pod padded to about `padEnv` environment entries. Every pod has its digests.
 */
export function* syntheticObjects(
  workloads: number,
  { podsPerDeployment = 2, padEnv = 0 }: { podsPerDeployment?: number; padEnv?: number } = {}
): Generator<Json> {
  for (let i = 0; i < workloads; i++) {
    const namespace = NAMESPACES[i % NAMESPACES.length] as string
    const name = `svc-${i}`
    const image = (tag: string) => ({
      name: 'app',
      image: `ghcr.io/acme/${name}:${tag}`,
      imageID: `ghcr.io/acme/${name}@${digestOf(`${name}:${tag}`)}`
    })
    const init = i % 5 === 0 ? { initContainers: [{ ...image('1.0.0'), name: 'setup' }] } : {}
    const annotations = i % 3 === 0 ? { annotations: { [`${G}team`]: `team-${i % 7}` } } : {}
    const created = (minute: number) =>
      `2026-01-0${1 + (i % 9)}T10:${String(minute).padStart(2, '0')}:00Z`
    switch (i % 4) {
      case 0:
      case 1: {
        yield workload('Deployment', namespace, name, annotations)
        const hashes = i % 4 === 0 ? ['6b8f7c5d4', '7c9d8e6f5'] : ['5d7e6c4b3']
        for (const [r, hash] of hashes.entries()) {
          const rs = `${name}-${hash}`
          yield workload('ReplicaSet', namespace, rs, { owner: { kind: 'Deployment', name } })
          for (let p = 0; p < podsPerDeployment; p++) {
            yield pod({
              namespace,
              name: `${rs}-p${p}x${r}`,
              owner: { kind: 'ReplicaSet', name: rs },
              labels: { 'pod-template-hash': hash },
              phase: 'Running',
              created: created(r * 10 + p),
              containers: [image(`1.${r}.0`)],
              padEnv,
              ...init
            })
          }
        }
        break
      }
      case 2: {
        const kind = i % 8 === 2 ? 'DaemonSet' : 'StatefulSet'
        yield workload(kind, namespace, name, annotations)
        for (let p = 0; p < podsPerDeployment; p++) {
          yield pod({
            namespace,
            name: kind === 'StatefulSet' ? `${name}-${p}` : `${name}-n${p}`,
            owner: { kind, name },
            phase: 'Running',
            created: created(p),
            containers: [image('2.0.0')],
            padEnv,
            ...init
          })
        }
        break
      }
      default: {
        yield workload('CronJob', namespace, name, annotations)
        const job = `${name}-29401440`
        yield workload('Job', namespace, job, { owner: { kind: 'CronJob', name } })
        yield pod({
          namespace,
          name: `${job}-r2d2c`,
          owner: { kind: 'Job', name: job },
          phase: 'Succeeded',
          created: created(0),
          containers: [image('3.0.0')],
          padEnv,
          ...init
        })
      }
    }
  }
}

/** Writes a list of `objects` to `path` one object at a time, as kubectl prints it. */
export function writeKubectlList(path: string, objects: Iterable<Json>, kind = 'List'): number {
  const fd = openSync(path, 'w')
  let bytes = 0
  const write = (text: string) => {
    bytes += writeSync(fd, text)
  }
  try {
    write('{\n    "apiVersion": "v1",\n    "items": [')
    let first = true
    let batch = ''
    for (const object of objects) {
      batch += (first ? '\n' : ',\n') + JSON.stringify(object, null, 4)
      first = false
      if (batch.length > 1 << 20) {
        write(batch)
        batch = ''
      }
    }
    write(batch)
    write(
      `\n    ],\n    "kind": "${kind}",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n`
    )
  } finally {
    closeSync(fd)
  }
  return bytes
}
