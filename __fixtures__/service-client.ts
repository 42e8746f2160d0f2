import { MockAgent } from 'undici'
import { FakeClock } from './fake-clock.js'
import { MemoryLog } from './memory-log.js'
import { ServiceClient } from '../src/client/client.js'
import { cancellableClock, type Cancellation } from '../src/client/cancel.js'

export const API = 'https://api.example.test'
export const TOKEN = 'ghs_secret_token_value'
const JSON_HEADERS = { 'content-type': 'application/json' }

export interface Seen {
  method: string
  path: string
  headers: Record<string, string>
  body?: string
  at: number
}

/**
 * A ServiceClient for the client's unit tests: undici's MockAgent instead of the network, a
 * FakeClock, a MemoryLog and random() = 0; `seen` records every request that got an answer.
 */
export function setup(
  options: {
    maxRetries?: number
    baseUrl?: string
    timeBudgetMinutes?: number
    /** a run that can be cancelled: its waits end at once on a cancel, as the step's do */
    cancellation?: Cancellation
  } = {}
) {
  const agent = new MockAgent()
  agent.disableNetConnect()
  const clock = new FakeClock()
  const log = new MemoryLog()
  const seen: Seen[] = []
  const client = new ServiceClient({
    baseUrl: options.baseUrl ?? API,
    token: TOKEN,
    apiVersion: '2026-03-10',
    maxRetries: options.maxRetries ?? 3,
    userAgent: 'record-deployment/test',
    dispatcher: agent,
    clock: options.cancellation ? cancellableClock(clock, options.cancellation) : clock,
    ...(options.cancellation ? { cancellation: options.cancellation } : {}),
    random: () => 0,
    log,
    ...(options.timeBudgetMinutes !== undefined
      ? { timeBudgetMinutes: options.timeBudgetMinutes }
      : {})
  })
  /** Answers `path` once per reply given, in order, recording what arrived. */
  const on = (
    method: string,
    path: string,
    ...replies: Array<{ status: number; body?: unknown; headers?: Record<string, string> } | Error>
  ) => {
    const pool = agent.get(new URL(path, API).origin)
    const pathOnly = path.startsWith('http') ? new URL(path).pathname + new URL(path).search : path
    for (const reply of replies) {
      const interceptor = pool.intercept({ path: pathOnly, method })
      if (reply instanceof Error) {
        interceptor.replyWithError(reply)
        continue
      }
      interceptor.reply(opts => {
        seen.push({
          method: opts.method,
          path: opts.path,
          headers: { ...(opts.headers as Record<string, string>) },
          body: typeof opts.body === 'string' ? opts.body : undefined,
          at: clock.now()
        })
        return {
          statusCode: reply.status,
          data: reply.body === undefined ? '' : JSON.stringify(reply.body),
          responseOptions: { headers: { ...JSON_HEADERS, ...reply.headers } }
        }
      })
    }
  }
  return { agent, clock, log, seen, client, on }
}
