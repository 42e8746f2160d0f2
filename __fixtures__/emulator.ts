import {
  startEmulator,
  type Emulator,
  type EmulatorOptions,
  type RecordedRequest
} from '../emulator/index.js'

export const TOKEN = 'test-token'
export const DIGEST = 'sha256:' + '0123456789abcdef'.repeat(4)

export async function withEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ tokens: { [TOKEN]: { permissions: 'all' } }, ...options })
}

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
