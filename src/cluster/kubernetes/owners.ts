/**
 * What the tracker's rules read of the objects that own pods: the shape an object is kept in
 * (KubeObject, slimmed as it is read), the kinds, and the rules over a pod's owners (its
 * workload, its chain of owners, the tags and runtime risks their annotations give). derive.ts
 * applies them to each pod as it comes.
 */
import { MAX_TAGS, RUNTIME_RISKS, type RuntimeRisk } from '../../shared/limits.js'
import { KeyTable } from './key-table.js'

export const ANNOTATION_PREFIX = 'metadata.github.com/'
export const RUNTIME_RISKS_ANNOTATION = `${ANNOTATION_PREFIX}runtime-risks`
export const MAX_TAG_LENGTH = 100
/** Kinds whose pods are recorded, as the tracker's supported owners, in the order it asks. */
export const POD_OWNERS = ['ReplicaSet', 'DaemonSet', 'StatefulSet', 'Job']
/** Owner kinds the tracker reads (workload and annotations); Pod is not one. */
export const OWNER_KINDS = new Set([
  'ReplicaSet',
  'Deployment',
  'DaemonSet',
  'StatefulSet',
  'Job',
  'CronJob'
])
/** Kinds kept from the list: pods and the owners a pod's workload and annotations come from. */
export const KEPT_KINDS = new Set(['Pod', ...OWNER_KINDS])

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

/**
 * An object's key: its kind, namespace and name, NUL between. Joined, not concatenated: the string
 * is one flat piece, kept as it is by a Map (a concatenation is a tree of pieces, nearly twice the
 * memory of a million keys).
 */
export const keyOf = (kind: string, namespace: string, name: string) =>
  [kind, namespace, name].join('\u0000')

/** The owner objects listed, by keyOf, as the rules look them up. */
export interface Owners {
  get(key: string): KubeObject | undefined
  has(key: string): boolean
}

/**
 * The owner objects read, by keyOf (a later one of the same key replaces it). Each is kept as its
 * key, outside V8's heap (KeyTable), and a number standing for what else the rules read of it:
 * its owners and its `metadata.github.com/` annotations, one copy shared by every object that has
 * the same (a Deployment's ReplicaSets: the controller copies its annotations to each). A list of
 * a million old ReplicaSets costs their names' bytes, not a million objects nor a million
 * strings. One whose name or namespace holds a NUL (none can: slimObject refuses control
 * characters) is kept whole, so that a key splits back into its parts.
 */
export class OwnerIndex implements Owners {
  private readonly small = new KeyTable()
  private readonly whole = new Map<string, KubeObject>()
  private readonly shapes: Array<Pick<KubeObject, 'owners' | 'annotations'>> = []
  private readonly shapeIds = new Map<string, number>()

  add(o: KubeObject): void {
    const key = keyOf(o.kind, o.namespace, o.name)
    if (`${o.namespace}${o.name}`.includes('\0')) {
      this.small.delete(key)
      this.whole.set(key, o)
      return
    }
    this.whole.delete(key)
    this.small.set(key, this.shapeId(o))
  }

  get(key: string): KubeObject | undefined {
    const whole = this.whole.get(key)
    if (whole) return whole
    const id = this.small.get(key)
    if (id === undefined) return undefined
    const [kind = '', namespace = '', name = ''] = key.split('\0')
    const { owners, annotations } = this.shapes[id] as KubeObject
    return { kind, namespace, name, owners, annotations }
  }

  has(key: string): boolean {
    return this.small.has(key) || this.whole.has(key)
  }

  /** Every key, once. */
  *keys(): Generator<string> {
    yield* this.small.keys()
    yield* this.whole.keys()
  }

  /** How many keys. */
  get size(): number {
    return this.small.size + this.whole.size
  }

  private shapeId(o: KubeObject): number {
    const owners = o.owners.map(({ kind, name }) => ({ kind, name }))
    const annotations = o.annotations.map(([k, v]): [string, string] => [k, v])
    const key = JSON.stringify([owners, annotations])
    let id = this.shapeIds.get(key)
    if (id === undefined) {
      id = this.shapes.push({ owners, annotations }) - 1
      this.shapeIds.set(key, id)
    }
    return id
  }
}

/**
 * The workload a pod belongs to: a ReplicaSet's Deployment (from the listed ReplicaSet's owner,
 * else its name without the pod-template-hash), a DaemonSet or StatefulSet itself, a Job's
 * CronJob when the listed Job has one, else the Job. A Job that is not listed (cleaned up between
 * kubectl's listing of pods and of jobs) named `<cronjob>-<digits>` belongs to that CronJob when
 * it is listed.
 */
export function workloadOf(
  pod: KubeObject,
  ref: OwnerRef,
  byKey: Owners
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

/** The pod, then its owners, then theirs: closest first, each once (by its key). */
export function ownerChain(pod: KubeObject, byKey: Owners): KubeObject[] {
  const chain = [pod]
  const seen = new Set<string>()
  for (let i = 0; i < chain.length; i++) {
    const object = chain[i] as KubeObject
    for (const ref of object.owners) {
      const key = keyOf(ref.kind, object.namespace, ref.name)
      const next = byKey.get(key)
      if (next && !seen.has(key)) {
        seen.add(key)
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
export function metadataOf(
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

/**
 * The keys of the owner objects of OWNER_KINDS the index holds (`workloadKey` and keyOf are one
 * form), read from it when asked: a set of a million keys made at the end of the reading would
 * cost the strings the index does not keep.
 */
export class ListedWorkloads implements ReadonlySet<string> {
  constructor(private readonly index: OwnerIndex) {}

  has(key: string): boolean {
    return OWNER_KINDS.has(key.slice(0, key.indexOf('\0'))) && this.index.has(key)
  }

  get size(): number {
    let n = 0
    for (const _ of this) n++
    return n
  }

  *[Symbol.iterator](): Generator<string> {
    for (const key of this.index.keys())
      if (OWNER_KINDS.has(key.slice(0, key.indexOf('\0')))) yield key
  }

  keys(): Generator<string> {
    return this[Symbol.iterator]()
  }

  values(): Generator<string> {
    return this[Symbol.iterator]()
  }

  *entries(): Generator<[string, string]> {
    for (const key of this) yield [key, key]
  }

  forEach(each: (value: string, key: string, set: ReadonlySet<string>) => void): void {
    for (const key of this) each(key, key, this)
  }
}
