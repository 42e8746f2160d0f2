/** `--node` of the demo and the bench (scripts/node24.ts): relative paths, and bad ones said plainly. */
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { chooseNode } from '../../scripts/node24.js'

let dir: string
const initCwd = process.env['INIT_CWD']
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-deployment-node-'))
  await symlink(process.execPath, join(dir, 'node'))
  await writeFile(join(dir, 'not-executable'), '')
})
afterAll(async () => {
  process.env['INIT_CWD'] = initCwd
  await rm(dir, { recursive: true, force: true })
})

test('a relative --node is read from where npm was started (INIT_CWD), not from the workspace', () => {
  process.env['INIT_CWD'] = dir
  expect(chooseNode('./node')).toEqual({ path: join(dir, 'node'), version: process.version })
  process.env['INIT_CWD'] = join(dir, 'sub')
  expect(chooseNode('../node').path).toBe(join(dir, 'node'))
})

test('a path that is no Node says so, with the path it was read as', () => {
  process.env['INIT_CWD'] = dir
  expect(() => chooseNode('nope/node')).toThrow(
    `--node nope/node: there is no such file (read as ${join(dir, 'nope/node')})`
  )
  expect(() => chooseNode('.')).toThrow(/^--node \.: it is a directory; give the node binary/)
  expect(() => chooseNode('not-executable')).toThrow(/^--node not-executable: it is not executable/)
  expect(() => chooseNode(relative(dir, '/bin/true'))).toThrow(/is not Node/)
})
