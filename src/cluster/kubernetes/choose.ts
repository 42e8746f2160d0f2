import { andMore } from '../../runner/markdown.js'
import type { ClusterItem, Workload } from '../items.js'

/**
 * One record per deployment name, as the tracker's snapshot keeps: pods of one workload and
 * container share a name during a rollout, and one of them is chosen (a Running pod over a
 * finished one, then the newest; a replica with the digest already chosen changes nothing).
 * Anything else that ends up with the same name (a template without `{{containerName}}`, a
 * Deployment and a StatefulSet of the same name) is said, never dropped without a word. Then
 * each chosen container is checked against the service's limits: an odd one is left out, or sent
 * without its version, with a warning naming it, and the rest are recorded.
 */

/** The service's limits on a deployment's fields (the description's maxLength). */
export const MAX_NAME_LENGTH = 256
export const MAX_DEPLOYMENT_NAME_LENGTH = 256
export const MAX_VERSION_LENGTH = 100
/** How many are named in one warning before the rest are counted. */
export const NAMED_IN_WARNING = 10

export interface Candidate {
  item: ClusterItem
  /** The pod's phase is `Running` (else it is a finished Job's pod). */
  running: boolean
  created: string
  /** Namespace, workload kind and name, and container: what a rollout keeps the same. */
  identity: string
  /** The object whose listing keeps the deployment from being decommissioned by `state-file`. */
  workload: Workload
  /** The container in the user's words: `Deployment shop/web, container web (pod web-5c6b-x)`. */
  who: string
}

/** The tracker's preference between two pods for one deployment name. */
export function preferred(candidate: Candidate, current: Candidate): boolean {
  if (candidate.running !== current.running) return candidate.running
  return candidate.created > current.created
}

/**
 * `a; b; c; ... and 4 more`: at most NAMED_IN_WARNING named, of `total` (the names given, or more
 * when only the first ones were kept).
 */
export function namedList(
  names: readonly string[],
  separator = '; ',
  total = names.length
): string {
  const named = names.slice(0, NAMED_IN_WARNING).join(separator)
  return total > NAMED_IN_WARNING
    ? `${named}${separator}${andMore(total - NAMED_IN_WARNING)}`
    : named
}

export class Chooser {
  private readonly chosen = new Map<string, Candidate>()
  /** Deployment name to the identities (and how each is named) that gave it. */
  private readonly shared = new Map<string, Map<string, string>>()

  offer(candidate: Candidate): void {
    const name = candidate.item.deployment_name
    const current = this.chosen.get(name)
    if (!current) {
      this.chosen.set(name, candidate)
      return
    }
    if (current.identity !== candidate.identity) {
      const sources = this.shared.get(name) ?? new Map([[current.identity, current.who]])
      if (!sources.has(candidate.identity)) sources.set(candidate.identity, candidate.who)
      this.shared.set(name, sources)
    }
    // Another replica of the same image: the record would be the same.
    if (current.item.digest === candidate.item.digest) return
    if (preferred(candidate, current)) this.chosen.set(name, candidate)
  }

  /** The items to send, and a warning for each kind of thing left out or changed. */
  result(): {
    items: ClusterItem[]
    warnings: string[]
    skipped: number
    /** Deployment name to the workload of the container chosen for it. */
    workloads: Map<string, Workload>
  } {
    const warnings: string[] = []
    if (this.shared.size > 0) {
      const said = [...this.shared].map(([name, sources]) => {
        const kept = (this.chosen.get(name) as Candidate).identity
        const others = [...sources].filter(([id]) => id !== kept).map(([, who]) => who)
        return `\`${name}\` is recorded for ${sources.get(kept) ?? '?'}, not for ${others.join(', ')}`
      })
      warnings.push(
        `${this.shared.size} deployment name${this.shared.size === 1 ? ' is' : 's are'} given by ` +
          'more than one workload or container, and the service keeps one record per name: ' +
          `${namedList(said)}. Add the placeholder that tells them apart ({{namespace}}, ` +
          '{{deploymentName}}, {{containerName}}) to `deployment-name-template`.'
      )
    }

    const items: ClusterItem[] = []
    const tooLong: string[] = []
    const noName: string[] = []
    const longVersion: string[] = []
    const workloads = new Map<string, Workload>()
    for (const { item, who, workload } of this.chosen.values()) {
      workloads.set(item.deployment_name, workload)
      if (
        item.deployment_name.length === 0 ||
        item.deployment_name.length > MAX_DEPLOYMENT_NAME_LENGTH
      ) {
        tooLong.push(`${who}: ${item.deployment_name.length} characters`)
        continue
      }
      if (item.name.length === 0 || item.name.length > MAX_NAME_LENGTH) {
        noName.push(
          `${who}: image \`${item.name.slice(0, 60)}${item.name.length > 60 ? '…' : ''}\` (${item.name.length} characters)`
        )
        continue
      }
      if (item.version !== undefined && item.version.length > MAX_VERSION_LENGTH) {
        longVersion.push(`${who}: tag of ${item.version.length} characters`)
        const { version: _version, ...rest } = item
        items.push(rest)
        continue
      }
      items.push(item)
    }
    const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`
    if (tooLong.length > 0)
      warnings.push(
        `${count(tooLong.length, 'container was', 'containers were')} not recorded: the deployment name ` +
          `from \`deployment-name-template\` is empty or longer than the service's ${MAX_DEPLOYMENT_NAME_LENGTH} ` +
          `characters: ${namedList(tooLong)}`
      )
    if (noName.length > 0)
      warnings.push(
        `${count(noName.length, 'container was', 'containers were')} not recorded: the image name is empty ` +
          `or longer than the service's ${MAX_NAME_LENGTH} characters: ${namedList(noName)}`
      )
    if (longVersion.length > 0)
      warnings.push(
        `${count(longVersion.length, 'container is', 'containers are')} recorded without a version: the ` +
          `image tag is longer than the service's ${MAX_VERSION_LENGTH} characters for \`version\`: ` +
          namedList(longVersion)
      )
    return { items, warnings, skipped: tooLong.length + noName.length, workloads }
  }
}
