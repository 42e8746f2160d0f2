import type { Log } from '../client/log.js'
import { namedAndMore } from '../runner/markdown.js'
import type { SkippedDeployment } from '../service/artifacts.js'
import type { ClusterItem } from './items.js'

/**
 * Deployments the service rejected (a 207's `errors`, a job's at creation and in its final
 * status), each said in a warning of its own and kept whole in the `errors` output.
 */

/**
 * The entries of `later` that are not repeats of `earlier`: each earlier entry cancels one equal
 * later entry, so two deployments rejected for the same cause are never merged into one.
 */
export function notAlreadySaid(
  earlier: SkippedDeployment[],
  later: SkippedDeployment[]
): SkippedDeployment[] {
  const left = new Map<string, number>()
  for (const e of earlier) left.set(keyOfSkipped(e), (left.get(keyOfSkipped(e)) ?? 0) + 1)
  return later.filter(e => {
    const n = left.get(keyOfSkipped(e)) ?? 0
    if (n === 0) return true
    left.set(keyOfSkipped(e), n - 1)
    return false
  })
}

const keyOfSkipped = (e: SkippedDeployment) =>
  [e.cause, e.name, e.deployment?.deployment_name, e.deployment?.digest, e.deployment?.name].join(
    '\u0000'
  )

export function reportSkipped(
  skipped: SkippedDeployment[],
  log: Log,
  items: readonly ClusterItem[] = []
): void {
  for (const entry of skipped) log.warning(describeSkipped(entry, items))
}

/**
 * One rejected deployment in the user's words. The flat `{name, cause}` names only the image:
 * the deployments sent with that image name are named with it.
 */
export function describeSkipped(
  entry: SkippedDeployment,
  items: ReadonlyArray<{ name: string; deployment_name: string }> = []
): string {
  const d = entry.deployment ?? {}
  let what: string
  if (!entry.deployment && entry.name) {
    const sent = items.filter(i => i.name === entry.name).map(i => i.deployment_name)
    what = `of image ${entry.name}` + (sent.length > 0 ? ` (${namedAndMore(sent, 3)})` : '')
  } else {
    what = `${d.deployment_name ?? '?'} (${d.name ?? entry.name ?? '?'}@${(d.digest ?? '?').slice(0, 19)}…)`
  }
  const why =
    entry.cause === 'not_found'
      ? 'not_found: no attestation for this digest, or its repository does not exist'
      : entry.cause === 'unauthorized'
        ? "unauthorized: the token cannot write to the deployment's repository"
        : (entry.cause ?? 'rejected')
  return `Deployment ${what} was not recorded: ${why}`
}
