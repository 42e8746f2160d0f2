import { demoSeed, startEmulator, type RecordedRequest } from './index.js'

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

function logLine(request: RecordedRequest): void {
  const ms = (request.finishedAt - request.arrivedAt).toFixed(1)
  const status = request.fault && request.status === 0 ? request.fault : String(request.status)
  console.log(`${request.method} ${request.path} ${status} ${ms}ms`)
}

async function main(): Promise<void> {
  const port = parsePort(process.argv.slice(2), process.env)
  const emulator = await startEmulator({
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
