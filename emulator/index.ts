// The one module the emulator's users import: starting it, its public types and the demo data.
export { startEmulator } from './server.js'
export { demoSeed, DEMO_HEAD_SHA, DEMO_TAG_SHA, sha } from './demo-seed.js'
export type * from './types.js'
