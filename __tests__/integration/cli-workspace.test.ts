// README, Command line: "Relative files (`--deployments-file`, `--kubernetes-file`) are read from
// `GITHUB_WORKSPACE`, else the current directory." cli.test.ts holds the current directory; this
// holds GITHUB_WORKSPACE, through the bundled command line (dist/cli.js) run from another
// directory, where a file of the same name holds other deployments.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'
import { projectRoot } from '../../scripts/run-action.js'

const exec = promisify(execFile)
const DIGEST = 'sha256:' + 'a'.repeat(64)
const items = (...names: string[]) =>
  names.map(n => ({ name: `ghcr.io/acme/${n}`, digest: DIGEST, deployment_name: n }))

let emulator: Emulator
let dir: string
beforeEach(async () => {
  emulator = await withEmulator()
  dir = await mkdtemp(join(tmpdir(), 'cli-workspace-'))
})
afterEach(async () => {
  await emulator.close()
  await rm(dir, { recursive: true, force: true })
})

test('a relative --deployments-file is read from GITHUB_WORKSPACE, not the current directory', async () => {
  const workspace = join(dir, 'workspace')
  const elsewhere = join(dir, 'elsewhere')
  await mkdir(workspace)
  await mkdir(elsewhere)
  await writeFile(join(workspace, 'cluster.json'), JSON.stringify(items('web', 'api')))
  await writeFile(join(elsewhere, 'cluster.json'), JSON.stringify(items('other')))
  const { stdout } = await exec(
    process.execPath,
    [
      join(projectRoot(), 'dist', 'cli.js'),
      '--deployments-file',
      'cluster.json',
      '--cluster',
      'prod-eu',
      '--environment',
      'production'
    ],
    {
      cwd: elsewhere,
      env: {
        PATH: process.env['PATH'] ?? '',
        GITHUB_TOKEN: TOKEN,
        GITHUB_API_URL: emulator.url,
        GITHUB_REPOSITORY: 'acme/web',
        GITHUB_WORKSPACE: workspace
      }
    }
  )
  const outputs = JSON.parse(stdout) as {
    'deployment-records': Array<{ deployment_name: string }>
  }
  expect(outputs['deployment-records'].map(r => r.deployment_name).sort()).toEqual(['api', 'web'])
}, 30_000)
