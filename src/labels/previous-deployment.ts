/**
 * Where a range starts with `since: previous-deployment`: the commit of the environment's latest
 * successful deployment older than this run. GitHub records a deployment for every job that
 * names an `environment:` (and tools may create their own); the newest whose latest status is
 * `success` is the one the environment runs now, as a later success marks the earlier ones
 * `inactive`. Skipped on the way: this run's own (the runner's deployment for this job, still
 * `queued` or `in_progress`, and a re-run's earlier attempts: their statuses' `log_url` or
 * `target_url` names `/actions/runs/{GITHUB_RUN_ID}`), the deployment the event itself is about
 * (a `deployment` or `deployment_status` event), and every deployment whose latest status is not
 * `success` (failed, errored, inactive, still running), except the one made `inactive` by a
 * success of this run's own or of the event's deployment, passed over before it (a record job
 * after the deploy job, an `on: deployment_status` run). The reads are capped: at most
 * MAX_DEPLOYMENT_PAGES pages of DEPLOYMENTS_PER_PAGE deployments, one status read each.
 */
import type { ServiceClient } from '../client/client.js'
import { ServiceError } from '../client/errors.js'
import {
  deploymentsPath,
  listDeploymentStatuses,
  readDeploymentPage,
  type Deployment,
  type DeploymentStatus
} from '../service/deployments.js'
import { firstLineOf } from '../shared/result.js'
import { isSafeRef } from './inputs.js'
import { short } from './range-pulls.js'

export const DEPLOYMENTS_PER_PAGE = 10
export const MAX_DEPLOYMENT_PAGES = 3
/** A deployment's statuses read at once: the newest decides, the others may name the run. */
export const STATUSES_PER_PAGE = 10

export interface DeploymentStart {
  /** the `environment` input: the name GitHub's deployments carry */
  environment: string
  /** `GITHUB_RUN_ID`: deployments whose statuses name this run are this run's own */
  runId?: string
  /** the deployment the event is about (`deployment`, `deployment_status`), skipped */
  eventDeploymentId?: number
}

export interface PreviousDeployment {
  /** the sha the range starts from; undefined when there is none (a warning says why) */
  base?: string
  /** the deployment taken and what was passed over, for the log */
  notes: string[]
  warnings: string[]
}

export const FIX_DEPLOYMENT =
  'set `since` to the ref or sha to start from (a tag, or the sha the environment runs)'

export async function previousDeployment(
  client: ServiceClient,
  owner: string,
  repo: string,
  /** the event, for the start of each note and warning */
  what: string,
  start: DeploymentStart
): Promise<PreviousDeployment> {
  const { environment } = start
  const of = `the deployments of environment \`${environment}\``
  const passed: string[] = []
  // Set once a newer deployment of this run's own that succeeded, or the event's own, is passed
  // over: its success made the previous one `inactive` (a record job after the deploy job, an
  // `on: deployment_status` run), which then is still the previous successful deployment.
  let superseded = false
  let looked = 0
  let next: string | undefined = deploymentsPath(owner, repo, environment, DEPLOYMENTS_PER_PAGE)
  let pages = 0
  try {
    while (next !== undefined && pages < MAX_DEPLOYMENT_PAGES) {
      const page = await readDeploymentPage(client, next)
      pages++
      next = page.next
      for (const deployment of page.deployments) {
        looked++
        if (deployment.id === start.eventDeploymentId) {
          passed.push(`${describe(deployment)} (the event's own)`)
          superseded = true
          continue
        }
        const statuses = await statusesOf(client, owner, repo, deployment.id)
        if (statuses === undefined) {
          passed.push(`${describe(deployment)} (gone: its statuses answer 404)`)
          continue
        }
        const latest = statuses[0]
        const success = statuses.find(s => s.state === 'success')
        if (start.runId !== undefined && statuses.some(s => namesRun(s, start.runId as string))) {
          passed.push(`${describe(deployment)} (this run's own, ${latest?.state ?? 'no status'})`)
          if (success !== undefined) superseded = true
          continue
        }
        const inactive = superseded && latest?.state === 'inactive' && success !== undefined
        if (latest?.state !== 'success' && !inactive) {
          passed.push(`${describe(deployment)} (${latest?.state ?? 'no status'})`)
          continue
        }
        if (!isSafeRef(deployment.sha)) {
          passed.push(`${describe(deployment)} (its sha is no commit sha)`)
          continue
        }
        const notes = [
          `${what}: previous successful deployment of environment \`${environment}\`: ` +
            `${describe(deployment)}, ${success?.created_at ? `success at ${success.created_at}` : 'success'}` +
            `${inactive ? `, inactive since${latest.created_at ? ` ${latest.created_at}` : ''} (superseded by the newer one passed over)` : ''}` +
            `${deployment.created_at ? `, created ${deployment.created_at}` : ''}`
        ]
        if (passed.length > 0)
          notes.push(`${what}: passed over, newest first: ${passed.join('; ')}`)
        return { base: deployment.sha, notes, warnings: [] }
      }
    }
  } catch (error) {
    if (error instanceof ServiceError && (error.fatal || error.notTheApi)) throw error
    const denied = error instanceof ServiceError && [401, 403, 404].includes(error.status ?? 0)
    const warning =
      `${what}: found no pull requests, because ${of} could not be read ` +
      `(${firstLineOf(error)})${
        denied
          ? ': the step needs the permission `deployments: read` (add it under `permissions:`), or '
          : ': '
      }${FIX_DEPLOYMENT}`
    return { notes: [], warnings: [warning] }
  }
  const capped = next !== undefined
  const where = capped
    ? `among the newest ${looked} (the first ${MAX_DEPLOYMENT_PAGES} pages; older ones are not read)`
    : looked === 0
      ? '(it has none)'
      : `among its ${looked}`
  const warning =
    `${what}: found no pull requests, because environment \`${environment}\` of ${owner}/${repo} ` +
    `has no successful deployment before this run ${where}: ${FIX_DEPLOYMENT}`
  const notes =
    passed.length > 0 ? [`${what}: passed over, newest first: ${passed.join('; ')}`] : []
  return { notes, warnings: [warning] }
}

/**
 * A deployment's newest statuses; undefined when they answer 404 although the list was read: the
 * deployment was deleted in between (a cleanup job), not a denied read.
 */
async function statusesOf(
  client: ServiceClient,
  owner: string,
  repo: string,
  id: number
): Promise<DeploymentStatus[] | undefined> {
  try {
    return await listDeploymentStatuses(client, owner, repo, id, STATUSES_PER_PAGE)
  } catch (error) {
    if (error instanceof ServiceError && !error.fatal && !error.notTheApi && error.status === 404)
      return undefined
    throw error
  }
}

/** `#12 (sha abc1234, ref main)` */
function describe(deployment: Deployment): string {
  return `#${deployment.id} (sha ${short(deployment.sha)}${deployment.ref ? `, ref ${deployment.ref}` : ''})`
}

/** Whether a status was written by run `runId`: its URL names `/actions/runs/{runId}`. */
export function namesRun(
  status: { log_url?: string; target_url?: string },
  runId: string
): boolean {
  const pattern = new RegExp(`/actions/runs/${escape(runId)}(?:[/?#]|$)`)
  return [status.log_url, status.target_url].some(url => url !== undefined && pattern.test(url))
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
