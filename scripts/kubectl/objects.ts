/**
 * The pieces of kubectl's JSON: a workload object, a pod with its status, the List envelope and
 * the digests and uids they carry (see scripts/kubectl-list.ts for the whole).
 */
import { createHash } from 'node:crypto'

export type Json = Record<string, unknown>

export const digestOf = (label: string) =>
  'sha256:' + createHash('sha256').update(label).digest('hex')

const uid = (label: string) => {
  const h = createHash('md5').update(label).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}

export interface Owner {
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

/** The prefix of the annotations the tracker reads. */
export const G = 'metadata.github.com/'
