// Over 300 lines on purpose: the labels job whole (labels described, targets found, each target
// read and written, re-read after a rate-limit wait); split, each part would pass the result around.
import type { ServiceClient } from '../client/client.js'
import { NoLongerNeeded } from '../client/errors.js'
import type { Log } from '../client/log.js'
import {
  isFatal,
  type LabelChange,
  type LabelResultItem,
  type PreviewRequest,
  type StepFailure
} from '../shared/result.js'
import {
  addIssueLabels,
  createLabel,
  getLabel,
  issueLabelPath,
  issueLabelsPath,
  listIssueLabels,
  removeIssueLabel,
  repoLabelPath,
  repoLabelsPath,
  updateLabel,
  type LabelFields
} from '../service/labels.js'
import type { Backport } from './backports.js'
import { discoverPullRequests, type DiscoveryContext } from './discover.js'
import { discoverLinkedIssues } from './linked-issues.js'
import { labelsOf, readIssue, type Pull } from '../service/pulls.js'
import type { MergedTarget } from './lead-time.js'
import { labelKey, type LabelInputs } from './inputs.js'
import { failedCall, rerun, stopOf } from './stops.js'

export type { LabelResultItem }

export interface LabelRunResult {
  /** targets that now carry the labels, those that needed no write included (empty lists) */
  labeled: LabelResultItem[]
  /** dry run only: the writes it would send */
  preview: PreviewRequest[]
  /** one per failed target or label, `what` naming it ("pull request #12", "label deployed:production") */
  failures: StepFailure[]
  /** what succeeded, in the user's words */
  done: string[]
  warnings: string[]
  /** the merged pull requests among the targets labeled (dry run: to be labeled), for `lead-time` */
  merged: MergedTarget[]
  /** backports discovery found, each with the original labeled with it */
  backports?: Backport[]
}

export interface ApplyLabelsOptions {
  owner: string
  repo: string
  inputs: LabelInputs
  /** for `pull-requests: auto`; `inputs.since` is used when it has no `since` */
  discovery: DiscoveryContext
  dryRun: boolean
  log: Log
}

interface Target {
  number: number
  what: string
  /** the labels it carried in the answer that found it (discovery's read), so none reads them again */
  labels?: string[]
  /** the client's rate-limit waits when those labels were read: a wait since means read again */
  readAtWaits?: number
  /** when it was merged, from the answer that found it or the read of its labels; null: not merged */
  mergedAt?: string | null
}

const NOT_ATTEMPTED =
  'not attempted: an earlier request failed in a way that would repeat for every request (see above)'

/**
 * Labels what the inputs name: makes sure the labels exist as described (when a color or
 * description is given), finds the targets, then for each target reads its labels and sends
 * only the writes that change something. One failing target does not stop the others, except
 * for failures that would repeat for every request (`ServiceError.fatal`).
 */
export async function applyLabels(
  client: ServiceClient,
  options: ApplyLabelsOptions
): Promise<LabelRunResult> {
  const { owner, repo, inputs, dryRun, log } = options
  const result: LabelRunResult = {
    labeled: [],
    preview: [],
    failures: [],
    done: [],
    warnings: [],
    merged: []
  }
  const warn = (message: string) => {
    result.warnings.push(message)
    log.warning(message)
  }
  inputs.warnings?.forEach(warn)

  if (
    inputs.labels.length > 0 &&
    (inputs.color !== undefined || inputs.description !== undefined)
  ) {
    for (const [index, name] of inputs.labels.entries()) {
      try {
        await ensureLabel(client, options, name, result)
      } catch (error) {
        result.failures.push(failedCall(`label ${name}`, error))
        if (isFatal(error)) {
          for (const rest of inputs.labels.slice(index + 1))
            result.failures.push({ what: `label ${rest}`, message: NOT_ATTEMPTED, notSent: true })
          result.failures.push({
            what: 'labeling pull requests and issues',
            message: NOT_ATTEMPTED,
            notSent: true
          })
          return result
        }
      }
    }
  }

  let targets: Target[]
  try {
    targets = await findTargets(client, options, log, warn, found => {
      if (found.length > 0) result.backports = found
    })
  } catch (error) {
    result.failures.push(failedCall('finding the pull requests to label', error))
    return result
  }
  if (targets.length === 0) {
    log.info('Labels: no pull requests or issues to label')
    return result
  }
  log.info(`Labels: ${targets.map(t => t.what).join(', ')}`)
  client.plan(planOf(targets, inputs, dryRun), 'Labels')

  /** targets that failed without stopping the run: not labeled either, so a re-run names them */
  const notLabeled: Target[] = []
  for (const [index, target] of targets.entries()) {
    try {
      await labelTarget(client, owner, repo, inputs, dryRun, target, result, log)
      if (target.mergedAt) result.merged.push({ number: target.number, mergedAt: target.mergedAt })
    } catch (error) {
      result.failures.push(failedCall(target.what, error))
      log.info(`${capitalize(target.what)}: not labeled`)
      if (!isFatal(error)) notLabeled.push(target)
      else {
        // The budget ran out or the run was cancelled: the rest is known, and so is its re-run.
        const stop = stopOf(error)
        const message = stop?.message ?? NOT_ATTEMPTED
        for (const rest of targets.slice(index + 1))
          result.failures.push({ what: rest.what, message, notSent: true })
        if (stop) result.failures.push(rerun([...notLabeled, ...targets.slice(index)], stop, log))
        break
      }
    }
  }
  return result
}

/** The writes and reads the targets need, as far as the labels known now tell. */
function planOf(targets: Target[], inputs: LabelInputs, dryRun: boolean) {
  let writes = 0
  let reads = 0
  const wanted = inputs.labels.map(labelKey)
  const unwanted = inputs.removeLabels.map(labelKey)
  for (const target of targets) {
    const known = target.labels?.map(labelKey)
    if (!known) reads++
    const adds = known ? wanted.some(n => !known.includes(n)) : wanted.length > 0
    const removes = known ? unwanted.filter(n => known.includes(n)).length : 0
    if (!dryRun) writes += (adds ? 1 : 0) + removes
  }
  return { writes, reads }
}

async function ensureLabel(
  client: ServiceClient,
  options: ApplyLabelsOptions,
  name: string,
  result: LabelRunResult
): Promise<void> {
  const { owner, repo, inputs, dryRun, log } = options
  const wanted: LabelFields = {
    ...(inputs.color !== undefined ? { color: inputs.color } : {}),
    ...(inputs.description !== undefined ? { description: inputs.description } : {})
  }
  const current = await getLabel(client, owner, repo, name)
  if (!current) {
    const body = { name, ...wanted }
    if (dryRun) {
      plan(result, log, 'POST', repoLabelsPath(owner, repo), body, `create label ${name}`, {
        action: 'create',
        names: [name]
      })
      return
    }
    const created = await createLabel(client, owner, repo, body)
    const what =
      created === 'exists' ? `label ${name} exists (created meanwhile)` : `created label ${name}`
    result.done.push(what)
    log.info(capitalize(what))
    return
  }
  const change: LabelFields = {}
  if (wanted.color !== undefined && (current.color ?? '').toLowerCase() !== wanted.color)
    change.color = wanted.color
  if (wanted.description !== undefined && (current.description ?? '') !== wanted.description)
    change.description = wanted.description
  if (Object.keys(change).length === 0) {
    log.info(`Label ${current.name} is as described`)
    return
  }
  const fields = Object.keys(change).join(' and ')
  if (dryRun) {
    plan(
      result,
      log,
      'PATCH',
      repoLabelPath(owner, repo, current.name),
      change,
      `update the ${fields} of label ${current.name}`,
      { action: 'update', names: [current.name] }
    )
    return
  }
  await updateLabel(client, owner, repo, current.name, change)
  const what = `updated the ${fields} of label ${current.name}`
  result.done.push(what)
  log.info(capitalize(what))
}

async function findTargets(
  client: ServiceClient,
  options: ApplyLabelsOptions,
  log: Log,
  warn: (message: string) => void,
  backports: (found: Backport[]) => void
): Promise<Target[]> {
  const { owner, repo, inputs } = options
  if (inputs.pullRequests === 'none') return []
  let pulls: Target[]
  const known = new Map<number, Pull>()
  // Labels carried by discovery's answers were read after this: a rate-limit wait since reads again.
  const readAtWaits = client.rateLimitWaits
  if (inputs.pullRequests === 'auto') {
    const since = options.discovery.since ?? inputs.since
    const found = await discoverPullRequests(
      client,
      {
        ...options.discovery,
        owner,
        repo,
        ...(since !== undefined ? { since } : {}),
        ...(since === undefined && inputs.previousDeployment?.environment !== undefined
          ? { previousDeployment: { environment: inputs.previousDeployment.environment } }
          : {}),
        ...(inputs.paths !== undefined ? { paths: inputs.paths } : {})
      },
      known
    )
    found.notes.forEach(note => log.info(`Labels: ${note}`))
    found.warnings.forEach(warn)
    backports(found.backports ?? [])
    pulls = found.numbers.map(number => {
      const pull = known.get(number)
      const labels = pull && labelsOf(pull)
      return {
        number,
        what: `pull request #${number}`,
        ...(labels ? { labels, readAtWaits } : {}),
        ...(pull ? { mergedAt: pull.merged_at ?? null } : {})
      }
    })
  } else {
    pulls = inputs.pullRequests.map(number => ({
      number,
      what: `issue or pull request #${number}`
    }))
  }
  if (!inputs.labelLinkedIssues || pulls.length === 0) return pulls
  const numbers = pulls.map(t => t.number)
  const carried = new Map<number, string[]>()
  const linked = await discoverLinkedIssues(client, owner, repo, numbers, numbers, known, carried)
  linked.notes.forEach(note => log.info(`Labels: ${note}`))
  linked.warnings.forEach(warn)
  return [
    ...pulls,
    ...linked.numbers.map(number => {
      const labels = carried.get(number)
      return { number, what: `issue #${number}`, ...(labels ? { labels, readAtWaits } : {}) }
    })
  ]
}

async function labelTarget(
  client: ServiceClient,
  owner: string,
  repo: string,
  inputs: LabelInputs,
  dryRun: boolean,
  target: Target,
  result: LabelRunResult,
  log: Log
): Promise<void> {
  const { number, what } = target
  const present = new Map<string, string>()
  // Read once: discovery's answer carried them when it found the target, else one read of the
  // issue now (its labels, and for a pull request when it was merged: `lead-time` costs nothing).
  let names = target.labels
  if (!names) {
    const issue = await readIssue(client, owner, repo, number)
    names = labelsOf(issue) ?? (await listIssueLabels(client, owner, repo, number)).map(l => l.name)
    target.mergedAt ??= issue.pull_request ? (issue.pull_request.merged_at ?? null) : null
  }
  // Compared as the inputs were: in NFC and lower case (`labelKey`).
  for (const name of names) present.set(labelKey(name), name)
  const missing = inputs.labels.filter(name => !present.has(labelKey(name)))
  const toRemove = inputs.removeLabels.flatMap(name => present.get(labelKey(name)) ?? [])

  if (missing.length === 0 && toRemove.length === 0) {
    result.labeled.push({ number, added: [], removed: [] })
    result.done.push(`${what} already labeled`)
    log.info(`${capitalize(what)}: already labeled, nothing to change`)
    return
  }
  if (dryRun) {
    if (missing.length > 0) {
      plan(
        result,
        log,
        'POST',
        issueLabelsPath(owner, repo, number),
        { labels: inputs.labels },
        `add ${missing.join(', ')} to ${what}`,
        { action: 'add', names: missing, target: what }
      )
    }
    for (const name of toRemove) {
      plan(
        result,
        log,
        'DELETE',
        issueLabelPath(owner, repo, number, name),
        undefined,
        `remove ${name} from ${what}`,
        { action: 'remove', names: [name], target: what }
      )
    }
    return
  }

  // After a rate-limit wait (most often other jobs of a matrix on the same token), the target is
  // read again before a write is sent again: what another job did meanwhile is not re-sent.
  const reread = async () => {
    const now = new Set<string>()
    for (const label of await listIssueLabels(client, owner, repo, number))
      now.add(labelKey(label.name))
    return now
  }
  const waitsAtRead = target.labels ? (target.readAtWaits ?? 0) : client.rateLimitWaits
  let added = missing
  if (missing.length > 0) {
    try {
      await addIssueLabels(client, owner, repo, number, inputs.labels, async () => {
        const now = await reread()
        added = missing.filter(name => !now.has(labelKey(name)))
        return added.length > 0
      })
    } catch (error) {
      if (!(error instanceof NoLongerNeeded)) throw error
      log.info(
        `${capitalize(what)}: ${missing.join(', ')} added meanwhile by another job; not sent again`
      )
    }
  }
  const removed: string[] = []
  const gone: string[] = []
  const carried =
    toRemove.length > 0 && client.rateLimitWaits > waitsAtRead ? await reread() : undefined
  for (const name of toRemove) {
    const lower = labelKey(name)
    try {
      // A 404 (or a re-read after a rate-limit wait) says it was already gone: someone else took
      // it off, and this run did not; it is reported as such, not as removed.
      const took =
        carried === undefined || carried.has(lower)
          ? await removeIssueLabel(client, owner, repo, number, name, async () =>
              (await reread()).has(lower)
            )
          : false
      ;(took ? removed : gone).push(name)
    } catch (error) {
      if (added.length > 0 && error instanceof Error)
        error.message = `${added.join(', ')} added, but removing ${name} failed: ${error.message}`
      throw error
    }
  }
  result.labeled.push({ number, added, removed, ...(gone.length > 0 ? { gone } : {}) })
  const change = [
    ...added.map(n => `+${n}`),
    ...removed.map(n => `-${n}`),
    ...gone.map(n => `${n} already gone`)
  ].join(', ')
  result.done.push(`labeled ${what}${change ? ` (${change})` : ''}`)
  log.info(`${capitalize(what)}: labeled${change ? ` (${change})` : ''}`)
}

function plan(
  result: LabelRunResult,
  log: Log,
  method: string,
  path: string,
  body: unknown,
  what: string,
  labels: LabelChange
): void {
  result.preview.push({ method, path, body, labels })
  result.done.push(`dry run: would ${what}`)
  log.info(`Dry run: would ${method} ${path} (${what})`)
  // One log line each: a log line holds no line break (log-writer.ts escapes one).
  if (body !== undefined)
    for (const line of JSON.stringify(body, null, 2).split('\n')) log.info(line)
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
