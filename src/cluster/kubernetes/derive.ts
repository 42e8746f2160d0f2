// Over 300 lines on purpose: the tracker's rules read together (which pods, which workload, which
// container, which digest, which annotations); each rule uses the owners index the others build.
import { MAX_TAGS, RUNTIME_RISKS, type RuntimeRisk } from '../../shared/limits.js'
import { nameAndVersion } from '../../inputs/image.js'
import { hasControlCharacters } from '../../shared/untrusted.js'
import { workloadKey, type ClusterItem, type Workload } from '../items.js'
import { Chooser, namedList } from './choose.js'

/**
 * The rules of GitHub's Kubernetes deployment tracker, applied to a listing instead of a watch,
 * so that records from both agree: which pods count, the workload they belong to, one item per
 * container, the digest the node pulled, and tags and runtime risks from annotations.
 */

export const DEFAULT_DEPLOYMENT_NAME_TEMPLATE = '{{namespace}}/{{deploymentName}}/{{containerName}}'
export const ANNOTATION_PREFIX = 'metadata.github.com/'
export const RUNTIME_RISKS_ANNOTATION = `${ANNOTATION_PREFIX}runtime-risks`
export const MAX_TAG_LENGTH = 100
/** Kinds whose pods are recorded, as the tracker's supported owners, in the order it asks. */
const POD_OWNERS = ['ReplicaSet', 'DaemonSet', 'StatefulSet', 'Job']
/** Owner kinds the tracker reads (workload and annotations); Pod is not one. */
const OWNER_KINDS = new Set([
  'ReplicaSet',
  'Deployment',
  'DaemonSet',
  'StatefulSet',
  'Job',
  'CronJob'
])
/** Kinds kept from the list: pods and the owners a pod's workload and annotations come from. */
const KEPT_KINDS = new Set(['Pod', ...OWNER_KINDS])

export interface OwnerRef {
  kind: string
  name: string
}

export interface Container {
  name: string
  image: string
}

/** What the rules need of one object of the list; the rest of it is dropped as it is read. */
export interface KubeObject {
  kind: string
  namespace: string
  name: string
  owners: OwnerRef[]
  /** Only the `metadata.github.com/` ones. */
  annotations: Array<[string, string]>
  pod?: {
    phase: string
    created: string
    templateHash?: string
    /** Containers, then init containers. */
    containers: Container[]
    /** Container name to the `imageID` of its status. */
    imageIds: Record<string, string>
  }
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '')
const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])

/**
 * The fields the rules read, or undefined for a kind they do not use. `listKind` gives the kind
 * of items that carry none (a `PodList` from the API leaves it out); a string is what is wrong.
 */
export function slimObject(raw: unknown, listKind?: string): KubeObject | undefined | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'is not an object'
  const object = raw as Record<string, unknown>
  const kind = text(object['kind']) || listKind || ''
  const metadata = object['metadata']
  if (kind === '' || typeof metadata !== 'object' || metadata === null)
    return 'is not a Kubernetes object (it has no `kind` and `metadata`)'
  if (!KEPT_KINDS.has(kind)) return undefined
  const meta = record(metadata)
  const annotations = Object.entries(record(meta['annotations'])).filter(
    (entry): entry is [string, string] =>
      entry[0].startsWith(ANNOTATION_PREFIX) && typeof entry[1] === 'string'
  )
  const slim: KubeObject = {
    kind,
    namespace: text(meta['namespace']),
    name: text(meta['name']),
    owners: list(meta['ownerReferences']).map(o => ({
      kind: text(record(o)['kind']),
      name: text(record(o)['name'])
    })),
    annotations
  }
  if (hasControlCharacters([slim.namespace, slim.name, ...slim.owners.map(o => o.name)].join('')))
    return 'has a name with a control character (a line break, a tab, an escape), which no Kubernetes name holds'
  if (kind === 'Pod') {
    const spec = record(object['spec'])
    const status = record(object['status'])
    const containers = [...list(spec['containers']), ...list(spec['initContainers'])].map(c => ({
      name: text(record(c)['name']),
      image: text(record(c)['image'])
    }))
    const imageIds: Record<string, string> = Object.create(null) as Record<string, string>
    for (const s of [
      ...list(status['containerStatuses']),
      ...list(status['initContainerStatuses'])
    ]) {
      const name = text(record(s)['name'])
      if (!(name in imageIds)) imageIds[name] = text(record(s)['imageID'])
    }
    if (hasControlCharacters(containers.map(c => c.name + c.image).join('')))
      return 'has a container name or image with a control character (a line break, a tab, an escape), which Kubernetes does not allow'
    const hash = text(record(meta['labels'])['pod-template-hash'])
    slim.pod = {
      phase: text(status['phase']),
      created: text(meta['creationTimestamp']) || text(status['startTime']),
      ...(hash ? { templateHash: hash } : {}),
      containers,
      imageIds
    }
  }
  return slim
}

/** `sha256:<hex>` out of a status `imageID` (`docker-pullable://ghcr.io/a/b@sha256:...`, `sha256:...`). */
export function digestOf(imageId: string): string | undefined {
  const match = /sha256:([0-9a-fA-F]{64})(?![0-9a-fA-F])/.exec(imageId)
  return match ? `sha256:${(match[1] as string).toLowerCase()}` : undefined
}

// The image reader the `digest` input uses too: one rule for both.
export { nameAndVersion }

export function deploymentNameOf(
  template: string,
  values: { namespace: string; deploymentName: string; containerName: string }
): string {
  return template.replace(
    /\{\{\s*(namespace|deploymentName|containerName)\s*\}\}/gi,
    (_, key: string) => {
      const lower = key.toLowerCase()
      return lower === 'namespace'
        ? values.namespace
        : lower === 'deploymentname'
          ? values.deploymentName
          : values.containerName
    }
  )
}

export interface Derived {
  items: ClusterItem[]
  /** Each names the object it is about; repeated ones are said once. */
  warnings: string[]
  /** Containers of counted pods whose status holds no digest. */
  withoutDigest: number
  /** Containers left out because a field is over the service's limits. */
  skipped: number
  /** Pods in the list, and those the rules count (running, or a finished Job's). */
  pods: number
  counted: number
  /** Deployment name to the object it came from (see `Workload`). */
  workloads: Map<string, Workload>
  /** `workloadKey` of each owner object the file lists: the workloads that still exist. */
  listedWorkloads: Set<string>
}

/** The cluster's items from the objects of the list, by the tracker's rules. */
export function deriveItems(objects: readonly KubeObject[], template: string): Derived {
  const byKey = new Map<string, KubeObject>()
  for (const o of objects) if (o.kind !== 'Pod') byKey.set(keyOf(o.kind, o.namespace, o.name), o)
  const owner = (o: KubeObject, ref: OwnerRef) => byKey.get(keyOf(ref.kind, o.namespace, ref.name))
  const warnings = new Set<string>()
  const chooser = new Chooser()
  const noDigest: string[] = []
  const listedKinds = new Set(objects.map(o => o.kind))
  /** Owner kinds that counted pods name but the file lists none of, and how many pods. */
  const unlisted = new Map<string, number>()
  let pods = 0
  let counted = 0

  for (const pod of objects) {
    if (pod.kind !== 'Pod' || !pod.pod) continue
    pods++
    const ownerRef = POD_OWNERS.map(kind => pod.owners.find(o => o.kind === kind)).find(Boolean)
    if (!ownerRef) continue
    const phase = pod.pod.phase
    const running = phase === 'Running'
    const finishedJob =
      (phase === 'Succeeded' || phase === 'Failed') && pod.owners.some(o => o.kind === 'Job')
    if (!running && !finishedJob) continue
    counted++

    const workload = workloadOf(pod, ownerRef, byKey)
    // The object that stands for the workload: itself, or a listed ReplicaSet of no Deployment
    // (its derived name drops the last part of the ReplicaSet's, so it names no object).
    const listedOwner = byKey.get(keyOf(ownerRef.kind, pod.namespace, ownerRef.name))
    const bareReplicaSet =
      ownerRef.kind === 'ReplicaSet' &&
      listedOwner !== undefined &&
      !listedOwner.owners.some(o => o.kind === 'Deployment')
    const anchor: Workload = {
      namespace: pod.namespace,
      ...(bareReplicaSet ? { kind: 'ReplicaSet', name: ownerRef.name } : workload)
    }
    const chain = ownerChain(pod, owner)
    // The tracker reads every owner from the cluster; kubectl printed only the kinds it was
    // asked for (`kubectl get pods` alone): say which, as the records then differ from its. A
    // Job cleaned up before kubectl listed the jobs, found a CronJob by its name, is the tracker's
    // own case: not said.
    const missing = new Set(
      chain
        .flatMap(o => o.owners.map(r => r.kind))
        .filter(k => OWNER_KINDS.has(k) && !listedKinds.has(k))
        .filter(k => !(k === 'Job' && workload.kind === 'CronJob'))
    )
    for (const kind of missing) unlisted.set(kind, (unlisted.get(kind) ?? 0) + 1)
    const { tags, risks } = metadataOf(chain, message => warnings.add(message))

    for (const container of pod.pod.containers) {
      const digest = digestOf(pod.pod.imageIds[container.name] ?? '')
      if (!digest) {
        noDigest.push(`${pod.namespace}/${pod.name}/${container.name}`)
        continue
      }
      const deploymentName = deploymentNameOf(template, {
        namespace: pod.namespace,
        deploymentName: workload.name,
        containerName: container.name
      })
      chooser.offer({
        item: {
          ...nameAndVersion(container.image),
          digest,
          deployment_name: deploymentName,
          ...(tags.length > 0 ? { tags: Object.fromEntries(tags) as Record<string, string> } : {}),
          ...(risks.length > 0 ? { runtime_risks: risks } : {})
        },
        running,
        created: pod.pod.created,
        identity: [pod.namespace, workload.kind, workload.name, container.name].join('\u0000'),
        workload: anchor,
        who: `${workload.kind} ${pod.namespace}/${workload.name} container ${container.name} (pod ${pod.name})`
      })
    }
  }

  if (noDigest.length > 0) {
    warnings.add(
      `${noDigest.length} container${noDigest.length === 1 ? ' has' : 's have'} no image digest in ` +
        `its pod's status (image not pulled yet, a runtime that reports none, or not sha256) and ` +
        `${noDigest.length === 1 ? 'was' : 'were'} not recorded: ${namedList(noDigest, ', ')}`
    )
  }
  if (unlisted.size > 0) {
    const kinds = [...unlisted.keys()].sort()
    const under = kinds.map(k => `${unlisted.get(k)} to ${k}s`).join(', ')
    const jobs = unlisted.has('Job')
    warnings.add(
      `\`kubernetes-file\` lists no ${kinds.map(k => `${k}s`).join(', ')}, though pods belong ` +
        `to them (${under}; printed with \`kubectl get pods\` only?). GitHub's tracker reads a ` +
        "pod's owners from the cluster, this step only from the file: their `metadata.github.com/` " +
        'annotations (tags, runtime risks) are not read' +
        (jobs
          ? ", and a CronJob's pods are named after each Job (a new deployment every run)"
          : '') +
        '. Print them too: `kubectl get pods,replicasets,deployments,daemonsets,statefulsets,jobs,' +
        'cronjobs -A -o json`'
    )
  }
  const chosen = chooser.result()
  return {
    items: chosen.items,
    warnings: [...warnings, ...chosen.warnings],
    withoutDigest: noDigest.length,
    skipped: chosen.skipped,
    pods,
    counted,
    workloads: chosen.workloads,
    listedWorkloads: new Set(
      objects
        .filter(o => OWNER_KINDS.has(o.kind))
        .map(o => workloadKey({ kind: o.kind, namespace: o.namespace, name: o.name }))
    )
  }
}

const keyOf = (kind: string, namespace: string, name: string) =>
  `${kind}\u0000${namespace}\u0000${name}`

/**
 * The workload a pod belongs to: a ReplicaSet's Deployment (from the listed ReplicaSet's owner,
 * else its name without the pod-template-hash), a DaemonSet or StatefulSet itself, a Job's
 * CronJob when the listed Job has one, else the Job. A Job that is not listed (cleaned up between
 * kubectl's listing of pods and of jobs) named `<cronjob>-<digits>` belongs to that CronJob when
 * it is listed.
 */
function workloadOf(
  pod: KubeObject,
  ref: OwnerRef,
  byKey: ReadonlyMap<string, KubeObject>
): { kind: string; name: string } {
  const listed = byKey.get(keyOf(ref.kind, pod.namespace, ref.name))
  if (ref.kind === 'ReplicaSet') {
    const deployment = listed?.owners.find(o => o.kind === 'Deployment')
    if (deployment) return { kind: 'Deployment', name: deployment.name }
    const hash = pod.pod?.templateHash
    if (hash && ref.name.endsWith(`-${hash}`))
      return { kind: 'Deployment', name: ref.name.slice(0, -hash.length - 1) }
    const dash = ref.name.lastIndexOf('-')
    const name = dash > 0 ? ref.name.slice(0, dash) : ref.name
    // A listed ReplicaSet without a Deployment is a workload of its own (`web-blue` beside the
    // Deployment `web`): the same name as the tracker's, but not a rollout of the Deployment.
    return { kind: listed ? 'ReplicaSet' : 'Deployment', name }
  }
  if (ref.kind === 'Job') {
    if (listed) {
      const cronJob = listed.owners.find(o => o.kind === 'CronJob')
      return cronJob ? { kind: 'CronJob', name: cronJob.name } : { kind: 'Job', name: ref.name }
    }
    const prefix = /^(.+)-[0-9]+$/.exec(ref.name)?.[1]
    if (prefix !== undefined && byKey.has(keyOf('CronJob', pod.namespace, prefix)))
      return { kind: 'CronJob', name: prefix }
  }
  return { kind: ref.kind, name: ref.name }
}

/** The pod, then its owners, then theirs: closest first, each once. */
function ownerChain(
  pod: KubeObject,
  owner: (o: KubeObject, ref: OwnerRef) => KubeObject | undefined
): KubeObject[] {
  const chain = [pod]
  const seen = new Set([pod])
  for (let i = 0; i < chain.length; i++) {
    for (const ref of (chain[i] as KubeObject).owners) {
      const next = owner(chain[i] as KubeObject, ref)
      if (next && !seen.has(next)) {
        seen.add(next)
        chain.push(next)
      }
    }
  }
  return chain
}

/**
 * Tags from `metadata.github.com/<key>` and runtime risks from `metadata.github.com/runtime-risks`
 * along the chain. A tag's value closest to the pod wins; keys are taken in order (each object's
 * sorted) up to MAX_TAGS; risks are gathered from every object, as the tracker does.
 */
function metadataOf(
  chain: KubeObject[],
  warn: (message: string) => void
): { tags: Array<[string, string]>; risks: RuntimeRisk[] } {
  const tags = new Map<string, string>()
  const risks = new Set<RuntimeRisk>()
  for (const object of chain) {
    const who = `${object.kind} ${object.namespace}/${object.name}`
    const sorted = [...object.annotations].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    for (const [annotation, value] of sorted) {
      if (annotation === RUNTIME_RISKS_ANNOTATION) {
        for (const risk of value
          .split(',')
          .map(r => r.trim())
          .filter(Boolean)) {
          // The tracker lower-cases a risk before checking it: `Internet-Exposed` counts.
          const lower = risk.toLowerCase()
          if ((RUNTIME_RISKS as readonly string[]).includes(lower)) risks.add(lower as RuntimeRisk)
          else
            warn(
              `${who}: runtime risk \`${risk}\` in ${annotation} is not one of ${RUNTIME_RISKS.join(', ')}; skipped`
            )
        }
        continue
      }
      const key = annotation.slice(ANNOTATION_PREFIX.length)
      if (key === '') {
        warn(`${who}: annotation ${annotation} has no tag key; skipped`)
        continue
      }
      if ([...key].length > MAX_TAG_LENGTH || [...value].length > MAX_TAG_LENGTH) {
        warn(
          `${who}: tag \`${key}\` from ${annotation} has a key or value longer than ${MAX_TAG_LENGTH} characters; skipped`
        )
        continue
      }
      if (tags.has(key)) continue // a closer object already set it
      if (tags.size >= MAX_TAGS) {
        warn(`${who}: tag \`${key}\` is over the limit of ${MAX_TAGS} tags per deployment; skipped`)
        continue
      }
      tags.set(key, value)
    }
  }
  return { tags: [...tags], risks: RUNTIME_RISKS.filter(r => risks.has(r)) }
}
