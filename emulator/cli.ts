import { fileURLToPath } from 'node:url'
import { demoSeed, startEmulator, type LimitOptions, type RecordedRequest } from './index.js'
import { scaledClockEnv } from './limits.js'

const TOKEN = 'test-token'

function parsePort(argv: string[], env: NodeJS.ProcessEnv): number {
  const index = argv.findIndex(arg => arg === '--port' || arg.startsWith('--port='))
  const arg = index < 0 ? undefined : argv[index]
  const fromArgs = arg?.includes('=') ? arg.slice('--port='.length) : argv[index + 1]
  const raw = index >= 0 ? fromArgs : env.EMULATOR_PORT
  if (raw === undefined || raw === '') return 8787
  const port = Number(raw)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`invalid port '${raw}' (use --port N or EMULATOR_PORT)`)
  return port
}

/**
 * `--limits` enforces GitHub's documented rate limits (limits.ts); `--clock-scale N` runs their
 * clock N times faster (then start the action with the printed SCALED_CLOCK and NODE_OPTIONS);
 * `--requests-per-hour N`: 1000 is a workflow's GITHUB_TOKEN, 5000 (the default) a user's token.
 */
function parseLimits(argv: string[]): LimitOptions | undefined {
  const value = (flag: string) => {
    const index = argv.findIndex(arg => arg === flag || arg.startsWith(`${flag}=`))
    if (index < 0) return undefined
    const arg = argv[index] as string
    const raw = arg.includes('=') ? arg.slice(flag.length + 1) : argv[index + 1]
    const n = Number(raw)
    if (!Number.isFinite(n) || n <= 0)
      throw new Error(`invalid ${flag} '${raw}' (a number above 0)`)
    return n
  }
  const clockScale = value('--clock-scale')
  const requestsPerHour = value('--requests-per-hour')
  if (!argv.includes('--limits') && clockScale === undefined && requestsPerHour === undefined)
    return undefined
  return {
    ...(clockScale !== undefined ? { clockScale } : {}),
    ...(requestsPerHour !== undefined ? { requestsPerHour } : {}),
    ...(argv.includes('--no-retry-after') ? { secondarySignal: 'none' as const } : {})
  }
}

function logLine(request: RecordedRequest): void {
  const ms = (request.finishedAt - request.arrivedAt).toFixed(1)
  const status = request.fault && request.status === 0 ? request.fault : String(request.status)
  console.log(`${request.method} ${request.path} ${status} ${ms}ms`)
}

async function main(): Promise<void> {
  const port = parsePort(process.argv.slice(2), process.env)
  const limits = parseLimits(process.argv.slice(2))
  const emulator = await startEmulator({
    ...(limits ? { limits } : {}),
    host: '127.0.0.1',
    port,
    tokens: { [TOKEN]: { permissions: 'all' } },
    orgs: ['acme'],
    repos: ['acme/web'],
    seed: demoSeed(),
    onRequest: logLine
  })
  console.log(`GitHub API emulator listening on ${emulator.url}`)
  console.log(`token: ${TOKEN}  (org acme, repository acme/web)`)
  console.log('try:')
  console.log(
    `  curl -s -H 'Authorization: Bearer ${TOKEN}' -H 'X-GitHub-Api-Version: 2026-03-10' ${emulator.url}/repos/acme/web/labels`
  )
  console.log(
    `control: GET ${emulator.url}/_emulator/requests, POST /_emulator/faults, POST /_emulator/reset`
  )
  if (emulator.limits) {
    const { scale } = emulator.limits
    console.log(
      `GitHub's documented rate limits are enforced (80 writes a minute, 500 an hour, ` +
        `${limits?.requestsPerHour ?? 5000} requests an hour)${scale !== 1 ? `, on a clock ${scale} times faster` : ''}`
    )
    if (scale !== 1) {
      // From the source tree (tsx) or build/emulator/: the preload stays in emulator/.
      const here = fileURLToPath(new URL('.', import.meta.url))
      const preload = here.replace(/build[\\/]emulator[\\/]?$/, 'emulator/') + 'scaled-clock.mjs'
      const env = scaledClockEnv(preload, emulator.limits)
      console.log('run the action on that clock with:')
      for (const [name, value] of Object.entries(env)) console.log(`  export ${name}='${value}'`)
    }
  }

  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    console.log(`${signal}: stopping`)
    emulator.close().then(
      () => process.exit(0),
      error => {
        console.error(error)
        process.exit(1)
      }
    )
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGHUP', () => stop('SIGHUP'))
  // It stops with whoever started it: `npm run emulator` killed by its pid (even with SIGKILL,
  // which npm cannot pass on) must not leave it listening. An orphan gets a new parent.
  const parent = process.ppid
  setInterval(() => {
    if (process.ppid !== parent) stop(`its parent (pid ${parent}) exited`)
  }, 250).unref()
}

main().catch(error => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
