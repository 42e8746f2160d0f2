import type { FaultRule } from './faults.js'
import type { LimitOptions, Limits } from './limits.js'
import type { AnswerShape, TokenGrant } from './http.js'
import type { SeedData } from './seed.js'
import type { EmulatorState } from './state.js'

export type { Fault, FaultRule } from './faults.js'
export type { AnswerShape, TokenGrant } from './http.js'
export type { LimitOptions } from './limits.js'
export type * from './seed.js'
export type * from './state.js'

export interface EmulatorOptions {
  host?: string
  port?: number
  tokens?: Record<string, TokenGrant>
  orgs?: string[]
  repos?: string[]
  apiVersions?: string[]
  attestedDigests?: 'any' | string[]
  jobStepMs?: number
  pollIntervalSeconds?: number
  /** the response shapes, `full` unless told (see AnswerShape); both conform to the description */
  answers?: AnswerShape
  minWriteGapMs?: number
  /** GitHub's documented rate limits, enforced on a scaled clock (limits.ts); none unless given */
  limits?: LimitOptions
  /** data applied at start and again on every reset() */
  seed?: SeedData
  /** called once per recorded request, when its response finished or its socket closed */
  onRequest?: (request: RecordedRequest) => void
}

export interface RecordedRequest {
  seq: number
  method: string
  url: string
  path: string
  headers: Record<string, string>
  body: unknown
  arrivedAt: number
  /** 0 until the response finished or the socket closed */
  finishedAt: number
  status: number
  /** the JSON body of the response (undefined for none, the text when it is not JSON) */
  response?: unknown
  fault?: string
}

export interface Emulator {
  url: string
  requests: RecordedRequest[]
  addFault(rule: FaultRule): void
  clearFaults(): void
  state: EmulatorState
  seed(data: SeedData): void
  reset(): void
  close(): Promise<void>
  /** the documented limits, when `limits` was given: their clock and the refusals they gave */
  limits?: Limits
}
