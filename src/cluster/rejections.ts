import type { Log } from '../client/log.js'
import { namedAndMore } from '../runner/markdown.js'
import type { SkippedDeployment } from '../service/artifacts.js'
import type { ClusterItem } from './items.js'

/**
 * Deployments the service rejected (a 207's `errors`, a job's at creation and in its final
 * status): each named in a log line of its own and kept whole in the `errors` output, and one
 * warning per cause (GitHub shows 10 annotations a step: 40 rejections are not 40 warnings),
 * counting them, naming the first few and saying what to do.
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
  if (skipped.length === 1) {
    const [only] = skipped as [SkippedDeployment]
    log.warning(`${describeSkipped(only, items)}. ${whatToDo(only.cause)}`)
    return
  }
  for (const entry of skipped) log.info(describeSkipped(entry, items))
  for (const [cause, group] of byCause(skipped)) log.warning(describeGroup(cause, group, items))
}

/** The rejections grouped by cause, in the order each cause first came. */
export function byCause(skipped: readonly SkippedDeployment[]): Map<string, SkippedDeployment[]> {
  const groups = new Map<string, SkippedDeployment[]>()
  for (const entry of skipped) {
    const cause = entry.cause ?? 'rejected'
    groups.set(cause, [...(groups.get(cause) ?? []), entry])
  }
  return groups
}

/** NAMED_IN_GROUP of a cause's deployments are named in its warning; the log names each. */
export const NAMED_IN_GROUP = 5

/** One warning for the deployments rejected for one cause: how many, the first few, what to do. */
export function describeGroup(
  cause: string,
  group: readonly SkippedDeployment[],
  items: ReadonlyArray<{ name: string; deployment_name: string }> = []
): string {
  // a flat `{name, cause}` names the image: the deployments sent with it, or the image
  const names = group.flatMap(e => {
    if (e.deployment?.deployment_name) return [e.deployment.deployment_name]
    const sent = items.filter(i => i.name === e.name).map(i => i.deployment_name)
    return sent.length > 0 ? sent : [`image ${e.name ?? '?'}`]
  })
  const count = group.length === 1 ? '1 deployment was' : `${group.length} deployments were`
  return (
    `${count} not recorded: ${why(cause)}: ${namedAndMore(names, NAMED_IN_GROUP)} ` +
    '(the log above and the job summary name each; the `errors` output holds them). ' +
    whatToDo(cause)
  )
}

/** What a user does about a cause the service gives for a rejected deployment. */
export function whatToDo(cause: string | null | undefined): string {
  if (cause === 'not_found')
    return (
      "To record them: attest each image's digest in its build (e.g. `actions/attest-build-provenance`) " +
      "and check that each deployment's `github_repository` names a repository of the organization."
    )
  if (cause === 'unauthorized')
    return (
      "To record them: give the token write access to each deployment's repository " +
      '(`github_repository`), or record them from a workflow of that repository.'
    )
  return 'The service gave this cause; the `errors` output holds each deployment with it.'
}

function why(cause: string | null | undefined): string {
  return cause === 'not_found'
    ? 'not_found: no attestation for this digest, or its repository does not exist'
    : cause === 'unauthorized'
      ? "unauthorized: the token cannot write to the deployment's repository"
      : (cause ?? 'rejected')
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
  return `Deployment ${what} was not recorded: ${why(entry.cause)}`
}
