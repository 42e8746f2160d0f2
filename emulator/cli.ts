import { createHash } from 'node:crypto'
import { startEmulator, type RecordedRequest, type SeedData } from './server.js'

const TOKEN = 'test-token'

function sha(text: string): string {
  return createHash('sha1').update(text).digest('hex')
}

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

/** A small history: three merged pull requests between tag v1.0.0 and main. */
function demoSeed(): SeedData {
  const commits = [
    { sha: sha('c0'), message: 'Initial release' },
    { sha: sha('c1'), message: 'Merge pull request #12 from acme/feature-12\n\nAdd health check' },
    { sha: sha('c2'), message: 'Cache static assets (#13)' },
    { sha: sha('c3'), message: 'Tune connection pool', pulls: [14] }
  ]
  const head = commits[commits.length - 1]?.sha ?? ''
  return {
    labels: {
      'acme/web': [
        { name: 'deployed:staging', color: 'fbca04', description: 'Deployed to staging' },
        { name: 'deployed:production', color: '0e8a16', description: 'Deployed to production' },
        { name: 'bug', color: 'd73a4a', default: true }
      ]
    },
    issues: { 'acme/web': [{ number: 11, title: 'Health endpoint missing', labels: ['bug'] }] },
    pulls: {
      'acme/web': [
        { number: 12, title: 'Add health check', body: 'Fixes #11', head_sha: sha('h12') },
        { number: 13, title: 'Cache static assets', head_sha: sha('h13') },
        { number: 14, title: 'Tune connection pool', head_sha: sha('h14') }
      ]
    },
    commits: { 'acme/web': commits },
    refs: { 'acme/web': { 'v1.0.0': sha('c0'), main: head } }
  }
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
}

main().catch(error => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
