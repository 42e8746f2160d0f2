/**
 * What the security*.test.ts files share: the fast-check seed, the secrets, the emulators (the
 * service and another origin) and a ServiceClient on the service with no retries.
 */
import fc from 'fast-check'
import { TOKEN, withEmulator } from './emulator.js'
import { FakeClock } from './fake-clock.js'
import type { Emulator } from '../emulator/index.js'
import { ServiceClient } from '../src/client/client.js'

// A fixed seed keeps CI reproducible: a failure names its counterexample and happens again.
// Set FC_SEED to explore other corners locally.
fc.configureGlobal({ seed: Number(process.env['FC_SEED'] ?? 20261122) })

export const SECRET = 'ghs_' + 'S3cr3tT0k3n'.repeat(3)
export const ENV_SECRET = 'ghs_' + 'EnvT0k3nValue'.repeat(3)

export let emulator: Emulator
/** A second service at another origin (redirect targets). */
export let other: Emulator
/** Starts both emulators for the test file and resets them before each test. */
export function useSecurityEmulators(): void {
  beforeAll(async () => {
    emulator = await withEmulator({
      tokens: { [TOKEN]: { permissions: 'all' }, [SECRET]: { permissions: 'all' } }
    })
    other = await withEmulator()
  })
  afterAll(async () => {
    await emulator.close()
    await other.close()
  })
  beforeEach(() => {
    emulator.reset()
    other.reset()
  })
}

export const client = (over: { token?: string; baseUrl?: string } = {}) =>
  new ServiceClient({
    baseUrl: over.baseUrl ?? emulator.url,
    token: over.token ?? TOKEN,
    apiVersion: '2026-03-10',
    maxRetries: 0,
    userAgent: 'reliability-test',
    clock: new FakeClock(),
    random: () => 0
  })
