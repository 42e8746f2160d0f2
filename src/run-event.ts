import { readFileSync } from 'node:fs'
import type { DiscoveryContext } from './labels/discover.js'

/** What the workflow run says about its event. */
export type RunEvent = Pick<DiscoveryContext, 'eventName' | 'payload' | 'sha' | 'ref' | 'workspace'>

type Env = Record<string, string | undefined>

export interface RunEventReading {
  event: RunEvent
  /** Why the payload file could not be used (then the payload is empty), for the log. */
  problem?: string
}

/**
 * The run's event as the runner describes it: `GITHUB_EVENT_NAME`, the JSON payload in the file
 * `GITHUB_EVENT_PATH`, `GITHUB_SHA`, `GITHUB_REF` and `GITHUB_WORKSPACE`. A payload file that is
 * missing, empty or not a JSON object gives an empty payload and a problem that says which,
 * never an exception: only `pull-requests: auto` reads the payload.
 */
export function readRunEvent(
  env: Env = process.env,
  read: (path: string) => string = path => readFileSync(path, 'utf8')
): RunEventReading {
  const event: RunEvent = {
    eventName: env['GITHUB_EVENT_NAME'] ?? '',
    payload: {},
    sha: env['GITHUB_SHA'] ?? '',
    ref: env['GITHUB_REF'] ?? '',
    workspace: env['GITHUB_WORKSPACE']
  }
  const path = env['GITHUB_EVENT_PATH']
  if (!path) return { event }
  const where = `the event payload file GITHUB_EVENT_PATH (${path})`
  let text: string
  try {
    text = read(path)
  } catch (error) {
    const code = (error as { code?: string }).code
    return {
      event,
      problem: `${where} ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(error)})`}`
    }
  }
  if (text.trim() === '') return { event, problem: `${where} is empty` }
  let payload: unknown
  try {
    payload = JSON.parse(text)
  } catch (error) {
    return { event, problem: `${where} is not JSON (${(error as Error).message})` }
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return { event, problem: `${where} does not hold a JSON object` }
  }
  return { event: { ...event, payload } }
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
