import { Readable } from 'node:stream'
import { Agent, type Dispatcher } from 'undici'
import type { Clock } from '../src/client/clock.js'
import { WRITE_GAP_MS } from '../src/client/pacer.js'
import type { RawInputs } from '../src/step/parse-inputs.js'
import { DIGEST, TOKEN } from './emulator.js'

export const DIGEST_2 = 'sha256:' + 'fedcba9876543210'.repeat(4)
export const ORG = 'acme'

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE'])

/** One attempt as the client made it, timed with the client's own clock. */
export interface WireAttempt {
  method: string
  origin: string
  path: string
  headers: Record<string, string>
  startedAt: number
  finishedAt: number
  outcome: string
}

interface LoseRule {
  method: string
  path: string
  left: number
}

/**
 * A dispatcher in front of a real undici Agent that
 * - times every attempt with the test's clock (ScaledClock / FakeClock), so that write spacing
 *   can be checked in the client's time even when sleeps are sped up;
 * - keeps the options each request was sent with (timeouts, headers);
 * - can lose a response after the service has fully answered it ("committed, then the
 *   connection dropped"): the fault the emulator cannot make, and the one that would
 *   duplicate records if writes were not idempotent.
 */
export class RecordingDispatcher {
  readonly attempts: WireAttempt[] = []
  readonly sent: Dispatcher.RequestOptions[] = []
  lost = 0
  private readonly agent = new Agent({ keepAliveTimeout: 1000, connections: 4 })
  private readonly loseRules: LoseRule[] = []

  constructor(private readonly clock: Clock) {}

  get dispatcher(): Dispatcher {
    return this as unknown as Dispatcher
  }

  /** The next `times` answers to `method path` (raw path, query excluded) are read, then dropped. */
  loseResponse(method: string, path: string, times = 1): void {
    this.loseRules.push({ method, path, left: times })
  }

  async request(options: Dispatcher.RequestOptions): Promise<unknown> {
    this.sent.push(options)
    const path = options.path.split('?')[0] ?? options.path
    const attempt: WireAttempt = {
      method: String(options.method),
      origin: String(options.origin),
      path,
      headers: { ...(options.headers as Record<string, string>) },
      startedAt: this.clock.now(),
      finishedAt: 0,
      outcome: ''
    }
    this.attempts.push(attempt)
    try {
      const response = await this.agent.request(options)
      const text = await response.body.text()
      attempt.outcome = String(response.statusCode)
      const rule = this.loseRules.find(
        r => r.left > 0 && r.method === attempt.method && r.path === path
      )
      if (rule) {
        rule.left--
        this.lost++
        attempt.outcome = 'lost'
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })
      }
      return {
        statusCode: response.statusCode,
        headers: response.headers,
        // Read as the client reads an answer: in chunks (src/client/read-answer.ts).
        body: Readable.from([Buffer.from(text)])
      }
    } catch (error) {
      if (attempt.outcome === '') attempt.outcome = 'error'
      throw error
    } finally {
      attempt.finishedAt = this.clock.now()
    }
  }

  writes(): WireAttempt[] {
    return this.attempts.filter(a => WRITE_METHODS.has(a.method))
  }

  /** Smallest gap, in the client's clock, between a write ending and the next write starting. */
  smallestWriteGap(): number {
    const writes = this.writes()
    let smallest = Infinity
    for (let i = 1; i < writes.length; i++) {
      smallest = Math.min(smallest, (writes[i]?.startedAt ?? 0) - (writes[i - 1]?.finishedAt ?? 0))
    }
    return smallest
  }

  async close(): Promise<void> {
    await this.agent.close()
  }
}

export { WRITE_GAP_MS }

/** A storage record and a deployment record for one digest. */
export function singleDeployment(apiUrl: string, over: RawInputs = {}): RawInputs {
  return {
    token: TOKEN,
    'api-url': apiUrl,
    repository: `${ORG}/web`,
    digest: DIGEST,
    name: 'ghcr.io/acme/web',
    version: '1.0.0',
    environment: 'production',
    'physical-environment': 'eu-west-1',
    cluster: 'prod-eu-1',
    'registry-url': 'https://ghcr.io',
    'registry-repository': 'acme/web',
    ...over
  }
}

export const CLUSTER_ITEMS = [
  { name: 'ghcr.io/acme/web', digest: DIGEST, deployment_name: 'web', version: '1.0.0' },
  { name: 'ghcr.io/acme/api', digest: DIGEST_2, deployment_name: 'api', version: '2.0.0' }
]

/** A whole cluster of two deployments, as one set request or as a background job. */
export function wholeCluster(apiUrl: string, mode: 'sync' | 'job', over: RawInputs = {}) {
  return {
    token: TOKEN,
    'api-url': apiUrl,
    repository: `${ORG}/web`,
    environment: 'production',
    cluster: 'prod-eu-2',
    'cluster-mode': mode,
    'job-timeout': '3600',
    deployments: JSON.stringify(CLUSTER_ITEMS),
    ...over
  } satisfies RawInputs
}
