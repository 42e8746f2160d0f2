import {
  startEmulator,
  type Emulator,
  type EmulatorOptions,
  type RecordedRequest
} from '../emulator/index.js'
import { MemoryLog } from './memory-log.js'
import { ServiceClient } from '../src/client/client.js'

export const TOKEN = 'test-token'
export const DIGEST = 'sha256:' + '0123456789abcdef'.repeat(4)

export async function withEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ tokens: { [TOKEN]: { permissions: 'all' } }, ...options })
}

/** A ServiceClient on the emulator as the tests use it: no retries, random() = 0, a MemoryLog. */
export const emulatorClient = (emulator: Emulator, log = new MemoryLog()): ServiceClient =>
  new ServiceClient({
    baseUrl: emulator.url,
    token: TOKEN,
    apiVersion: '2026-03-10',
    maxRetries: 0,
    userAgent: 'record-deployment-test',
    random: () => 0,
    log
  })

/** The inputs of a run recording ghcr.io/acme/web@DIGEST (acme/web) in production on `emulator`. */
export const recordInputs = (emulator: Emulator, over: Record<string, string> = {}) => ({
  token: TOKEN,
  'api-url': emulator.url,
  repository: 'acme/web',
  digest: DIGEST,
  name: 'ghcr.io/acme/web',
  environment: 'production',
  ...over
})

/** The inputs of a label run (`labels: deployed:production`) for acme/web on `emulator`. */
export const labelInputs = (emulator: Emulator, over: Record<string, string> = {}) => ({
  token: TOKEN,
  'api-url': emulator.url,
  repository: 'acme/web',
  labels: 'deployed:production',
  ...over
})

export const writesOf = (requests: RecordedRequest[]) =>
  requests.filter(r => ['POST', 'PATCH', 'PUT', 'DELETE'].includes(r.method))

/** The shortest time between one write finishing and the next one arriving, as the server saw it. */
export function smallestWriteGap(requests: RecordedRequest[]): number {
  const writes = writesOf(requests)
  let smallest = Infinity
  for (let i = 1; i < writes.length; i++) {
    smallest = Math.min(smallest, (writes[i]?.arrivedAt ?? 0) - (writes[i - 1]?.finishedAt ?? 0))
  }
  return smallest
}
