// Over 300 lines: the Deriver's rules for each pod and what it says of them (warnings counted per
// workload) share its state; split, each half would need the other's.
import { hasControlCharacters } from '../../shared/untrusted.js'
import { nameAndVersion } from '../../inputs/image.js'
import type { ClusterItem, Workload } from '../items.js'
import { Chooser, namedList, NAMED_IN_WARNING } from './choose.js'
import {
  ANNOTATION_PREFIX,
  KEPT_KINDS,
  OWNER_KINDS,
  POD_OWNERS,
  ListedWorkloads,
  OwnerIndex,
  keyOf,
  metadataOf,
  ownerChain,
  workloadOf,
  type KubeObject
} from './owners.js'

/**
 * The rules of GitHub's Kubernetes deployment tracker, applied to a listing instead of a watch,
 * so that records from both agree: which pods count, the workload they belong to, one item per
 * container, the digest the node pulled, and tags and runtime risks from annotations. The owner
 * objects are read first (owners.ts holds the rules over them); then each pod is derived as it
 * comes and only what the pods give per deployment name is kept (see Chooser), so a list of many
 * pods costs what its deployments cost, not what its pods do.
 */

export const DEFAULT_DEPLOYMENT_NAME_TEMPLATE = '{{namespace}}/{{deploymentName}}/{{containerName}}'
export {
  ANNOTATION_PREFIX,
  MAX_TAG_LENGTH,
  RUNTIME_RISKS_ANNOTATION,
  type Container,
  type KubeObject,
  type OwnerRef
} from './owners.js'

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
  listedWorkloads: ReadonlySet<string>
}

/**
 * The tracker's rules, one pod at a time: `owner` takes every object that is not a pod, then
 * `pod` takes the pods in the list's order and `result` gives the items. What is kept is the
 * owners, and per deployment name the pod chosen for it (Chooser): never the pods.
 */
export class Deriver {
  private readonly byKey = new OwnerIndex()
  private readonly listedKinds = new Set<string>()
  private readonly warnings = new Set<string>()
  private readonly chooser = new Chooser()
  /** The first NAMED_IN_WARNING containers without a digest, and how many there are. */
  private readonly noDigest: string[] = []
  private withoutDigest = 0
  /** Owner kinds that counted pods name but the file lists none of, and how many pods. */
  private readonly unlisted = new Map<string, number>()
  private pods = 0
  private counted = 0
  /** A warning about a pod, without its name, per workload: its first pod's and how many more. */
  private readonly podWarnings = new Map<string, { message: string; more: number; of: string }>()

  constructor(private readonly template: string) {}

  /** An object of the list that is not a pod (a later one of the same key replaces it). */
  owner(o: KubeObject): void {
    this.listedKinds.add(o.kind)
    if (o.kind !== 'Pod') this.byKey.add(o)
  }

  /** A pod of the list, after every owner. */
  pod(pod: KubeObject): void {
    this.listedKinds.add(pod.kind)
    if (pod.kind !== 'Pod' || !pod.pod) return
    const { byKey, listedKinds } = this
    this.pods++
    const ownerRef = POD_OWNERS.map(kind => pod.owners.find(o => o.kind === kind)).find(Boolean)
    if (!ownerRef) return
    const phase = pod.pod.phase
    const running = phase === 'Running'
    const finishedJob =
      (phase === 'Succeeded' || phase === 'Failed') && pod.owners.some(o => o.kind === 'Job')
    if (!running && !finishedJob) return
    this.counted++

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
    const chain = ownerChain(pod, byKey)
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
    for (const kind of missing) this.unlisted.set(kind, (this.unlisted.get(kind) ?? 0) + 1)
    const { tags, risks } = metadataOf(chain, message => this.warnPod(pod, workload, message))

    for (const container of pod.pod.containers) {
      const digest = digestOf(pod.pod.imageIds[container.name] ?? '')
      if (!digest) {
        if (this.noDigest.length < NAMED_IN_WARNING)
          this.noDigest.push(`${pod.namespace}/${pod.name}/${container.name}`)
        this.withoutDigest++
        continue
      }
      const deploymentName = deploymentNameOf(this.template, {
        namespace: pod.namespace,
        deploymentName: workload.name,
        containerName: container.name
      })
      this.chooser.offer({
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

  /**
   * A pod template's bad annotation is on every pod of the workload: said once, by its first pod,
   * with how many more (a warning a pod would be kept and printed a pod).
   */
  private warnPod(pod: KubeObject, workload: { kind: string; name: string }, message: string) {
    const own = `Pod ${pod.namespace}/${pod.name}: `
    if (!message.startsWith(own)) return void this.warnings.add(message)
    const of = `${workload.kind} ${pod.namespace}/${workload.name}`
    const key = `${of}\0${message.slice(own.length)}`
    const seen = this.podWarnings.get(key)
    if (seen) seen.more++
    else this.podWarnings.set(key, { message, more: 0, of })
  }

  result(): Derived {
    const { warnings, unlisted, withoutDigest } = this
    for (const { message, more, of } of this.podWarnings.values())
      warnings.add(more > 0 ? `${message} (and so for ${more} more pods of ${of})` : message)
    if (withoutDigest > 0) {
      warnings.add(
        `${withoutDigest} container${withoutDigest === 1 ? ' has' : 's have'} no image digest in ` +
          `its pod's status (image not pulled yet, a runtime that reports none, or not sha256) and ` +
          `${withoutDigest === 1 ? 'was' : 'were'} not recorded: ${namedList(this.noDigest, ', ', withoutDigest)}`
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
    const chosen = this.chooser.result()
    return {
      items: chosen.items,
      warnings: [...warnings, ...chosen.warnings],
      withoutDigest,
      skipped: chosen.skipped,
      pods: this.pods,
      counted: this.counted,
      workloads: chosen.workloads,
      listedWorkloads: new ListedWorkloads(this.byKey)
    }
  }
}

/** The cluster's items from the objects of the list, by the tracker's rules. */
export function deriveItems(objects: readonly KubeObject[], template: string): Derived {
  const deriver = new Deriver(template)
  for (const o of objects) if (o.kind !== 'Pod') deriver.owner(o)
  for (const o of objects) if (o.kind === 'Pod') deriver.pod(o)
  return deriver.result()
}
