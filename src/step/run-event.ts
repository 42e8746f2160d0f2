import { existsSync, readFileSync } from 'node:fs'
import type { DiscoveryContext } from '../labels/discover.js'
import type { LabelInputs } from '../labels/inputs.js'

/** What the workflow run says about its event. */
export type RunEvent = Pick<
  DiscoveryContext,
  'eventName' | 'payload' | 'sha' | 'ref' | 'workspace' | 'runId'
>

export interface RunEventReading {
  event: RunEvent
  /** Why the payload file could not be used (then the payload is empty), for the log. */
  problem?: string
}

/**
 * The run's event as `@actions/github`'s `context` reads it from the runner's variables
 * (`GITHUB_EVENT_NAME`, the JSON payload in the file `GITHUB_EVENT_PATH`, `GITHUB_SHA`,
 * `GITHUB_REF`), with `GITHUB_WORKSPACE`. Loaded only here, once a run needs its event (the
 * bundle holds its `Context` alone: scripts/bundle.mjs). Guarded: its constructor throws on an
 * empty or invalid file and prints a bare line for a missing one, so a payload file that is
 * missing, empty or not a JSON object gives an empty payload and a problem that says which,
 * never an exception: only `pull-requests: auto` reads the payload.
 */
export async function readRunEvent(): Promise<RunEventReading> {
  const env = process.env
  const event = eventOfVariables()
  const path = env['GITHUB_EVENT_PATH']
  const where = `the event payload file GITHUB_EVENT_PATH (${path})`
  if (path && !existsSync(path)) return { event, problem: `${where} does not exist` }
  let payload: unknown
  try {
    const { context } = await import('@actions/github')
    payload = context.payload
    event.eventName = context.eventName ?? ''
    event.sha = context.sha ?? ''
    event.ref = context.ref ?? ''
  } catch (error) {
    if (!(error instanceof SyntaxError)) {
      const code = (error as { code?: string }).code
      return {
        event,
        problem: `${where} ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(error)})`}`
      }
    }
    // Told apart only here, on the way out: a file of blanks, or one that is not JSON.
    let blank = false
    try {
      blank = readFileSync(path ?? '', 'utf8').trim() === ''
    } catch {
      // gone since it was read: what it held was not JSON all the same
    }
    return {
      event,
      problem: blank ? `${where} is empty` : `${where} is not JSON (${error.message})`
    }
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return { event, problem: `${where} does not hold a JSON object` }
  }
  return { event: { ...event, payload } }
}

/** Whether the labels find their pull requests in the event's payload (`pull-requests: auto`). */
export function discovers(labels: Pick<LabelInputs, 'pullRequests'> | undefined): boolean {
  return labels?.pullRequests === 'auto'
}

/**
 * The run's event as far as this run uses it. The payload file is read (by `readRunEvent`) only
 * when the labels discover their pull requests in it, or on a pull request's events (whether the
 * token is a fork's, read-only); otherwise the run needs only the variables, and the file is not
 * opened nor @actions/github loaded: a deployment's records start sooner.
 */
export async function readRunEventFor(
  labels: Pick<LabelInputs, 'pullRequests'> | undefined
): Promise<RunEventReading> {
  const eventName = process.env['GITHUB_EVENT_NAME'] ?? ''
  const usesPayload = discovers(labels) || FORK_READ_ONLY_EVENTS.has(eventName)
  return usesPayload ? readRunEvent() : { event: eventOfVariables() }
}

/** The event from the runner's variables alone, its payload empty. */
function eventOfVariables(): RunEvent {
  const env = process.env
  return {
    eventName: env['GITHUB_EVENT_NAME'] ?? '',
    payload: {},
    sha: env['GITHUB_SHA'] ?? '',
    ref: env['GITHUB_REF'] ?? '',
    workspace: env['GITHUB_WORKSPACE'],
    ...(env['GITHUB_RUN_ID'] ? { runId: env['GITHUB_RUN_ID'] } : {})
  }
}

/** Events whose runs get a read-only token when the pull request comes from a fork. */
const FORK_READ_ONLY_EVENTS = new Set([
  'pull_request',
  'pull_request_review',
  'pull_request_review_comment'
])

/**
 * The fork (`owner/name`) the run's pull request comes from, when the run is for one and its
 * token is therefore read-only: the payload's head repository differs from its base repository
 * (a head repository of `null` is a fork deleted since: `deleted since`). `pull_request_target`
 * runs with the base repository's token, so it is never one.
 */
export function forkOf(event: Pick<RunEvent, 'eventName' | 'payload'>): string | undefined {
  if (!FORK_READ_ONLY_EVENTS.has(event.eventName)) return undefined
  const pull = field(event.payload, 'pull_request')
  const base = fullName(field(field(pull, 'base'), 'repo'))
  const headRepo = field(field(pull, 'head'), 'repo')
  if (base === undefined) return undefined
  if (headRepo === null) return 'deleted since'
  const head = fullName(headRepo)
  return head !== undefined && head.toLowerCase() !== base.toLowerCase() ? head : undefined
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[name]
    : undefined
}

function fullName(repo: unknown): string | undefined {
  const name = field(repo, 'full_name')
  return typeof name === 'string' && name !== '' ? name : undefined
}
