/**
 * `.ci/run`'s check of docs/development.md "Run it locally": the action's TypeScript sources (src/main.ts)
 * run under `@github/local-action` itself, the standard local runner, against the emulator, as a
 * user does from a fresh clone: `.env` made from `.env.example` (only the port changed), then
 * again with `token`, `api-url` and `repository` left out of `.env` and GITHUB_TOKEN,
 * GITHUB_API_URL and GITHUB_REPOSITORY set instead. Each run must exit 0, record the storage and
 * deployment record in the emulator and show the outputs.
 *   node build/scripts/local-action-check.js
 * local-action comes through npx, as for a user: 328 MB in npm's cache and about 15 s the first
 * time, so it is no devDependency (npm ci stays under 200 MB) and runs in CI, not in npm test.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startEmulator } from '../emulator/index.js'
import { projectRoot } from './run-action.js'

const LOCAL_ACTION = '@github/local-action@7'
const root = projectRoot()
const example = await readFile(join(root, '.env.example'), 'utf8')
const TOKEN = /^INPUT_TOKEN=(.*)$/m.exec(example)?.[1] ?? ''
const emulator = await startEmulator({ tokens: { [TOKEN]: { permissions: 'all' } } })
const scratch = await mkdtemp(join(tmpdir(), 'record-deployment-local-action-'))
const problems: string[] = []
try {
  const env = example.replaceAll('http://127.0.0.1:8787', emulator.url)
  const variants: Array<[string, string, Record<string, string>]> = [
    ['.env from .env.example', env, {}],
    [
      'token, api-url and repository from GITHUB_*',
      env.replace(/^INPUT_(TOKEN|API-URL|REPOSITORY)=.*\n/gm, ''),
      { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: emulator.url, GITHUB_REPOSITORY: 'acme/web' }
    ]
  ]
  for (const [what, text, vars] of variants) {
    emulator.reset()
    const file = join(scratch, '.env')
    await writeFile(file, text)
    // As docs/development.md says, from the checkout; --yes also lets local-action's own `npm exec tsx` fetch tsx.
    const run = await start('npx', ['--yes', LOCAL_ACTION, '.', 'src/main.ts', file], root, {
      ...process.env,
      ...vars
    })
    const writes = emulator.requests.filter(r => r.method === 'POST' && r.status === 200)
    const shown = /deployment-record-ids['"]?\s*│\s*'(\d+)'/.exec(run.output)
    const wrong = [
      run.code !== 0 && `exit code ${run.code}`,
      writes.length !== 2 && `${writes.length} records written, not 2`,
      !shown && 'no deployment-record-ids in the outputs local-action shows',
      /white space/.test(run.output) && 'a message calls an input white space'
    ].filter(Boolean)
    console.log(
      `${wrong.length === 0 ? 'ok' : 'FAILED'}: ${what}${wrong.length ? `: ${wrong.join('; ')}` : ''}`
    )
    if (wrong.length > 0) {
      console.log(run.output)
      problems.push(what)
    }
  }
} finally {
  await emulator.close()
  await rm(scratch, { recursive: true, force: true })
}
process.exitCode = problems.length > 0 ? 1 : 0

function start(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', chunk => (output += String(chunk)))
    child.stderr.on('data', chunk => (output += String(chunk)))
    child.on('error', reject)
    child.on('close', code => resolvePromise({ code, output }))
  })
}
