import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The checkout's root: the nearest folder up from here that holds action.yml (also from build/). */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'action.yml'))) {
    const parent = dirname(dir)
    if (parent === dir)
      throw new Error('action.yml not found above ' + fileURLToPath(import.meta.url))
    dir = parent
  }
  return dir
}

export const DIST_ENTRY = join(projectRoot(), 'dist', 'index.js')

export interface ActionRun {
  code: number | null
  stdout: string
  stderr: string
  outputs: Record<string, string>
  summary: string
  durationMs: number
}

/**
 * Starts the bundled action as the runner does: inputs as INPUT_<NAME> variables (hyphens kept),
 * outputs and summary through the GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files.
 */
export async function runAction(
  inputs: Record<string, string>,
  env: Record<string, string> = {},
  options: { node?: string; entry?: string } = {}
): Promise<ActionRun> {
  const dir = await mkdtemp(join(tmpdir(), 'record-deployment-'))
  const outputFile = join(dir, 'output')
  const summaryFile = join(dir, 'summary')
  await writeFile(outputFile, '')
  await writeFile(summaryFile, '')
  const childEnv: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? dir,
    RUNNER_TEMP: dir,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_ACTIONS: 'true',
    ...env
  }
  for (const [name, value] of Object.entries(inputs))
    childEnv[`INPUT_${name.toUpperCase()}`] = value
  const started = performance.now()
  try {
    const { code, stdout, stderr } = await new Promise<{
      code: number | null
      stdout: string
      stderr: string
    }>((resolve, reject) => {
      const child = spawn(options.node ?? process.execPath, [options.entry ?? DIST_ENTRY], {
        env: childEnv,
        stdio: ['ignore', 'pipe', 'pipe']
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', chunk => (stdout += String(chunk)))
      child.stderr.on('data', chunk => (stderr += String(chunk)))
      child.on('error', reject)
      child.on('close', code => resolve({ code, stdout, stderr }))
    })
    return {
      code,
      stdout,
      stderr,
      outputs: parseOutputFile(await readFile(outputFile, 'utf8')),
      summary: await readFile(summaryFile, 'utf8'),
      durationMs: performance.now() - started
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** Reads the `name<<DELIMITER ... DELIMITER` blocks that `core.setOutput` writes. */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const match = /^([^<=]+)<<(.+)$/.exec(lines[i] ?? '')
    if (!match) continue
    const [, name, delimiter] = match
    const value: string[] = []
    for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i] ?? '')
    outputs[name as string] = value.join('\n')
  }
  return outputs
}
