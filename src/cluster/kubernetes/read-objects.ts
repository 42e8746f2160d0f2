/**
 * The objects of `kubernetes-file`'s list, slimmed as they are read (slimObject) and kept only in
 * the namespaces wanted: every object that is not a pod, then the pods in their order
 * (read-pods.ts), so that a pod meets its owners whatever the order of the file.
 */
import { slimObject, type KubeObject } from './derive.js'
import { readListTwice } from './read-pods.js'

/** A 20k-pod list is about 200 MB; a file far above that is a mistake, not a cluster. */
export const MAX_KUBERNETES_FILE_BYTES = 1024 * 1024 * 1024

export interface ReadList<T> {
  kept: T
  listKind: unknown
  /** The first item that is no Kubernetes object, and what is wrong with it. */
  firstBadItem?: { index: number; message: string }
  firstKindless?: number
}

/** Where the objects of the list go: the owners as read, the pods after all of them. */
export interface Sink {
  owner(o: KubeObject): void
  pod(o: KubeObject): void
}

/**
 * Reads the list in the open file `fd` into `sink`, each object slimmed as it is read and only
 * those in the namespaces `wanted` keeps: every object that is not a pod, then the pods in their
 * order (read-pods.ts), so that a pod meets its owners whatever the order of the file. The caller
 * opens it (openRegularFile) and closes it.
 */
export function readList<T>(
  fd: number,
  wanted: (namespace: string) => boolean,
  sink: Sink,
  kept: () => T
): ReadList<T> {
  let firstBadItem: ReadList<T>['firstBadItem']
  let firstKindless: number | undefined
  const take = (raw: unknown, index: number, pods: boolean): 'later' | undefined => {
    const slim = slimObject(raw, 'Pod')
    // Parsed before the owners are all read: a pod only parsing tells (a kind that is no string).
    if (!pods && typeof slim === 'object' && slim.kind === 'Pod') return 'later'
    // A List's items carry their kind; a PodList's, as the API prints it, may not.
    if (typeof (raw as { kind?: unknown } | null)?.kind !== 'string')
      firstKindless = Math.min(firstKindless ?? index, index)
    if (typeof slim === 'string') {
      if (!firstBadItem || index < firstBadItem.index) firstBadItem = { index, message: slim }
    } else if (slim && wanted(slim.namespace)) {
      if (pods) sink.pod(slim)
      else sink.owner(slim)
    }
    return undefined
  }
  const header = readListTwice(
    fd,
    (raw, index) => take(raw, index, false),
    (raw, index) => take(raw, index, true),
    { maxBytes: MAX_KUBERNETES_FILE_BYTES }
  )
  return {
    kept: kept(),
    listKind: header.kind,
    ...(firstBadItem ? { firstBadItem } : {}),
    ...(firstKindless !== undefined ? { firstKindless } : {})
  }
}

/**
 * The objects of the list in the open file `fd` in the namespaces `wanted` keeps, slimmed as they
 * are read: the owners, then the pods (what the action keeps of them is readKubernetesItems's).
 */
export function readObjects(
  fd: number,
  wanted: (namespace: string) => boolean
): { objects: KubeObject[]; listKind: unknown; firstBadItem?: string; firstKindless?: number } {
  const objects: KubeObject[] = []
  const push = (o: KubeObject) => objects.push(o)
  const { firstBadItem, ...read } = readList(fd, wanted, { owner: push, pod: push }, () => objects)
  return {
    ...read,
    objects: read.kept,
    ...(firstBadItem
      ? { firstBadItem: `item [${firstBadItem.index}] ${firstBadItem.message}` }
      : {})
  }
}
