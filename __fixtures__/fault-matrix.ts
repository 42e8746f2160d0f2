/**
 * What the fault-matrix*.test.ts files share: the write endpoints the action uses (and why a
 * retry of each cannot leave a second record), the inputs that make each shape run, the records
 * each shape must leave in the emulator, the faults the matrix injects, and one emulator per
 * test file.
 */
import { DIGEST, withEmulator } from './emulator.js'
import { CLUSTER_ITEMS, ORG, singleDeployment, wholeCluster } from './reliability.js'
import type { Emulator, Fault, RecordedRequest } from '../emulator/index.js'
import type { Clock } from '../src/client/clock.js'
import { RESET_MARGIN_MS, UNTIMED_RATE_LIMIT_WAIT_MS } from '../src/client/retry-policy.js'
import type { RawInputs } from '../src/step/parse-inputs.js'

/** Sleeps run this much faster than the clock says. */
export const SCALE = 1000
/**
 * Small enough that the hang cases stay fast, large enough for a loopback answer under load: at
 * 200 ms a lookup GET on a loaded 2-core machine (load 19) was cut too, retried, and counted.
 */
export const HANG_TIMEOUT_MS = 800
/** `max-retries` of the surviving cases: each fault is injected exactly this many times. */
export const MAX_RETRIES = 2

export let emulator: Emulator
/** One emulator per test file, reset before each test; `emulator` is this file's once started. */
export function useFaultMatrixEmulator(): void {
  beforeAll(async () => {
    emulator = await withEmulator({ jobStepMs: 5 })
  })
  afterAll(async () => {
    await emulator.close()
  })
  beforeEach(() => emulator.reset())
}

// ---------------------------------------------------------------------------------------------
// Endpoints

export type Shape = 'single' | 'sync' | 'job'

export interface Endpoint {
  name: string
  /** The raw path the client posts to. */
  path: string
  shape: Shape
  /** Why a retry of this write cannot leave a second record. */
  whyRetryIsSafe: string
}

export const CLUSTER_PATH = `/orgs/${ORG}/artifacts/metadata/deployment-record/cluster/prod-eu-2`
export const STORAGE_PATH = `/orgs/${ORG}/artifacts/metadata/storage-record`
/** The lookup a lost storage answer leads to: the digest's storage records. */
export const STORAGE_LIST_PATH = `/orgs/${ORG}/artifacts/${DIGEST}/metadata/storage-records`

export const ENDPOINTS: Endpoint[] = [
  {
    name: 'storage-record POST',
    path: STORAGE_PATH,
    shape: 'single',
    whyRetryIsSafe:
      'the service creates a storage record per write (no upsert rule), so after an answer lost ' +
      "once sent the step reads the digest's storage records and sends the write again only when " +
      'no equal record is there'
  },
  {
    name: 'deployment-record POST',
    path: `/orgs/${ORG}/artifacts/metadata/deployment-record`,
    shape: 'single',
    whyRetryIsSafe:
      'the service upserts deployment records by logical + physical environment + cluster + ' +
      'deployment_name: a repeated POST updates the record it made the first time'
  },
  {
    name: 'cluster set POST',
    path: CLUSTER_PATH,
    shape: 'sync',
    whyRetryIsSafe:
      'each item of the set is upserted by the same key as a single deployment record, so ' +
      'sending the whole set again rewrites the same records'
  },
  {
    name: 'cluster jobs POST',
    path: `${CLUSTER_PATH}/jobs`,
    shape: 'job',
    whyRetryIsSafe:
      'while a job holds the cluster a second POST is refused with 409 (the step waits and tries ' +
      'again); a job upserts each item by its key, so a second job rewrites the same records'
  }
  // LABEL WRITES GO HERE. When src/service/labels.ts lands, add one entry per label write
  // (label create POST /repos/{o}/{r}/labels, label update PATCH .../labels/{name}, add
  // POST .../issues/{n}/labels, remove DELETE .../issues/{n}/labels/{name}), with a `shape`
  // that runs the label step and a `whyRetryIsSafe` (adding a label twice leaves it once; a
  // 404 on removing an absent label counts as done; create answers 422 already_exists on a
  // repeat and must be read as success). Then extend `expectedRecords` with the labels on
  // the seeded issues. The matrix below picks new entries up unchanged.
]

export function rawInputsFor(shape: Shape, maxRetries: number, over: RawInputs = {}): RawInputs {
  const base =
    shape === 'single'
      ? singleDeployment(emulator.url)
      : wholeCluster(emulator.url, shape === 'sync' ? 'sync' : 'job')
  return { ...base, 'max-retries': String(maxRetries), ...over }
}

export interface Expected {
  what: string
  /** The matching records in the emulator's state. */
  found: () => Array<{ id: number }>
  /** Whether the run's outputs name this record (by id) or, for a job, its completion. */
  inOutputs: (outputs: Record<string, string>, id: number | undefined) => boolean
  /** The endpoint that writes it. */
  endpoint: string
}

export const idsIn = (csv: string | undefined) => (csv ?? '').split(',').filter(Boolean).map(Number)

export function expectedRecords(shape: Shape): Expected[] {
  const deployments = () => emulator.state.deploymentRecords[ORG] ?? []
  if (shape === 'single') {
    return [
      {
        what: 'storage record',
        endpoint: ENDPOINTS[0]?.path ?? '',
        found: () =>
          (emulator.state.storageRecords[ORG] ?? []).filter(
            r => r.digest === DIGEST && r.registry_url === 'https://ghcr.io'
          ),
        inOutputs: (o, id) => idsIn(o['storage-record-ids']).includes(id ?? -1)
      },
      {
        what: 'deployment record',
        endpoint: ENDPOINTS[1]?.path ?? '',
        found: () =>
          deployments().filter(
            r =>
              r.digest === DIGEST &&
              r.logical_environment === 'production' &&
              r.physical_environment === 'eu-west-1' &&
              r.cluster === 'prod-eu-1' &&
              r.deployment_name === 'web'
          ),
        inOutputs: (o, id) => idsIn(o['deployment-record-ids']).includes(id ?? -1)
      }
    ]
  }
  return CLUSTER_ITEMS.map(item => ({
    what: `cluster deployment ${item.deployment_name}`,
    endpoint: shape === 'sync' ? CLUSTER_PATH : `${CLUSTER_PATH}/jobs`,
    found: () =>
      deployments().filter(
        r =>
          r.cluster === 'prod-eu-2' &&
          r.deployment_name === item.deployment_name &&
          r.digest === item.digest
      ),
    // A job answers with its id and status, not the records.
    inOutputs: (o, id) =>
      shape === 'sync'
        ? idsIn(o['deployment-record-ids']).includes(id ?? -1)
        : o['job-status'] === 'completed' && o['job-id'] !== ''
  }))
}

// ---------------------------------------------------------------------------------------------
// Faults

export interface FaultCase {
  name: string
  /** The service handled the request before the fault: the write exists even if retries run out. */
  committed?: boolean
  /** Sent, then no answer or a broken connection: the client cannot know whether it was applied. */
  lostAfterSend?: boolean
  /** An emulator fault, built when the case starts (some name a time). */
  fault?: (clock: Clock) => Fault
  /** Lose the answer after the service committed the write (injected in the dispatcher). */
  loseAnswer?: boolean
  requestTimeoutMs?: number
  /** A redirect is followed, not retried: one injection, one extra attempt. */
  redirect?: boolean
  /** Checks on the sleeps (the client's waits) of a surviving case. */
  waits?: (sleeps: number[]) => void
  /** A rate limit: its waits have their own budget (MAX_RATE_LIMIT_WAITS), not `max-retries`. */
  rateLimit?: boolean
}

export const RATE_LIMIT_MESSAGE =
  'You have exceeded a secondary rate limit. Please wait a few minutes.'

export const FAULTS: FaultCase[] = [
  ...[500, 502, 503, 504].map(status => ({
    name: `${status}`,
    fault: (): Fault => ({ kind: 'status', status })
  })),
  { name: 'connection reset', lostAfterSend: true, fault: () => ({ kind: 'reset' }) },
  {
    name: 'no answer (cut by the per-request timeout)',
    lostAfterSend: true,
    fault: () => ({ kind: 'hang' }),
    requestTimeoutMs: HANG_TIMEOUT_MS
  },
  { name: 'truncated body', lostAfterSend: true, fault: () => ({ kind: 'truncate' }) },
  {
    name: '429 with retry-after',
    rateLimit: true,
    fault: () => ({
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '7' },
      body: { message: 'API rate limit exceeded' }
    }),
    waits: sleeps => expect(sleeps.filter(s => s === 7000)).toHaveLength(MAX_RETRIES)
  },
  {
    name: '403 secondary limit without headers',
    rateLimit: true,
    fault: () => ({ kind: 'status', status: 403, body: { message: RATE_LIMIT_MESSAGE } }),
    // At least a minute, doubling per repeat.
    waits: sleeps =>
      expect(sleeps.filter(s => s >= UNTIMED_RATE_LIMIT_WAIT_MS)).toEqual([
        UNTIMED_RATE_LIMIT_WAIT_MS,
        2 * UNTIMED_RATE_LIMIT_WAIT_MS
      ])
  },
  {
    name: '403 primary limit with x-ratelimit-reset',
    rateLimit: true,
    fault: clock => ({
      kind: 'status',
      status: 403,
      headers: {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Math.ceil(clock.now() / 1000) + 40)
      },
      body: { message: 'API rate limit exceeded for installation ID 1.' }
    }),
    // Until the reset (40 s away, less the time spent) plus the margin: far from the backoff.
    waits: sleeps => {
      const first = sleeps.find(s => s > 30_000) ?? 0
      expect(first).toBeGreaterThan(38_000)
      expect(first).toBeLessThanOrEqual(41_000 + RESET_MARGIN_MS)
    }
  },
  ...([301, 302, 307, 308] as const).map(status => ({
    name: `redirect ${status}`,
    redirect: true,
    fault: (): Fault => ({ kind: 'redirect', status, location: '' })
  })),
  {
    name: '503 with retry-after',
    fault: () => ({ kind: 'status', status: 503, headers: { 'retry-after': '5' } }),
    waits: sleeps => expect(sleeps.filter(s => s === 5000)).toHaveLength(MAX_RETRIES)
  },
  { name: 'answer lost after the write was committed', loseAnswer: true, lostAfterSend: true },
  {
    name: 'answer lost after the service handled the write (emulator)',
    committed: true,
    lostAfterSend: true,
    fault: () => ({ kind: 'lose-answer' })
  }
]

/** Redirect targets the same route under the Enterprise-style `/api/v3` prefix. */
export function concreteFault(fc: FaultCase, clock: Clock, endpoint: Endpoint): Fault | undefined {
  const fault = fc.fault?.(clock)
  if (fault?.kind === 'redirect')
    return { ...fault, location: `${emulator.url}/api/v3${endpoint.path}` }
  return fault
}

/** The emulator's requests that reached this endpoint (the redirect target included). */
export const toEndpoint = (requests: RecordedRequest[], endpoint: Endpoint) =>
  requests.filter(
    r => r.method === 'POST' && (r.path === endpoint.path || r.path === `/api/v3${endpoint.path}`)
  )
