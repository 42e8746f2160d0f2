/**
 * Issue 33, through the bundled action: the files the inputs name cannot hold the step (a FIFO,
 * `/dev/zero`), and their contents are never quoted in a message (a credentials file named by
 * mistake would print most of a token: the runner masks only whole secrets).
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { wholeCluster } from '../../__fixtures__/reliability.js'
import { foreignCommands } from '../../__fixtures__/runner-commands.js'
import { runAction } from '../../scripts/run-action.js'
import type { Emulator } from '../../emulator/index.js'

let emulator: Emulator
let dir: string
beforeAll(async () => {
  emulator = await withEmulator()
  dir = await mkdtemp(join(tmpdir(), 'untrusted-files-'))
  execFileSync('mkfifo', [join(dir, 'fifo')])
})
afterAll(async () => {
  await emulator.close()
  await rm(dir, { recursive: true, force: true })
})
beforeEach(() => emulator.reset())

/** The inputs of a whole cluster that read `path` as `input`. */
function clusterReading(input: string, path: string): Record<string, string> {
  const { deployments, ...cluster } = wholeCluster(emulator.url, 'sync')
  if (input === 'state-file')
    return { ...cluster, deployments, 'state-file': path, 'allow-mass-decommission': 'true' }
  return { ...cluster, [input]: path }
}

const INPUTS = ['deployments-file', 'kubernetes-file', 'state-file']

describe('a path that is not a regular file fails at once, naming it', () => {
  test.each(INPUTS.flatMap(input => [[input, 'fifo'] as const, [input, '/dev/zero'] as const]))(
    '%s at %s',
    async (input, file) => {
      const path = file === 'fifo' ? join(dir, 'fifo') : file
      const run = await runAction(clusterReading(input, path))
      expect(run.code).toBe(1)
      const kind = file === 'fifo' ? 'a named pipe \\(FIFO\\)' : 'a character device'
      expect(run.stdout).toMatch(
        new RegExp(`- ${input}: .*\`${path}\`:? is ${kind}, not a regular file`)
      )
      expect(emulator.requests).toEqual([])
    }
  )
})

describe("a file's contents are never quoted", () => {
  const secret = 'ghp_' + 'Cr3d3nt1alT0k3n'.repeat(2)
  const files: Array<[string, string]> = [
    ['a bare token', `${secret}\n`],
    ['YAML', `token: ${secret}\n`],
    ['key=value lines', `GITHUB_TOKEN=${secret}\n`],
    ['broken JSON', `{"token": "${secret}" "more": 1}`],
    ['JSON cut short', `{"token": "${secret}`],
    ['a kubectl message', `Warning: ${secret}\n{}`],
    ['JSON of another kind', `{"kind": "${secret}", "items": []}`],
    ['a repeated key', `{"${secret}": 1, "${secret}": 2, "items": []}`]
  ]
  test.each(INPUTS.flatMap(input => files.map(([what, text]) => [input, what, text] as const)))(
    '%s holding %s',
    async (input, _what, text) => {
      const path = join(dir, `credentials-${input}`)
      await writeFile(path, text)
      const run = await runAction(clusterReading(input, path))
      expect(run.code).toBe(1)
      expect(run.stdout).toMatch(new RegExp(`- ${input}: `))
      for (const part of [secret, secret.slice(4, 20), secret.slice(-16)]) {
        expect(run.stdout).not.toContain(part)
        expect(run.stderr).not.toContain(part)
      }
      expect(foreignCommands(run.stdout, [TOKEN])).toEqual([])
      expect(emulator.requests).toEqual([])
    }
  )
})
