// The one module the emulator's users import: starting it, its public types and the demo data.
export { startEmulator } from './server.js'
export { demoSeed, DEMO_HEAD_SHA, DEMO_TAG_SHA, sha } from './demo-seed.js'
export type * from './types.js'
export { DOCUMENTED_LIMITS, Limits, scaledClockEnv } from './limits.js'

// The routing itself, for the tests that check which route a recorded path reaches.
export { matchRoute } from './router.js'
export { artifactRoutes } from './routes-artifacts.js'
export { labelRoutes } from './routes-labels.js'
