/**
 * A child npm that the tests or scripts start with HOME or npm's prefix moved (the README pipeline
 * runs, the Node 24 install) keeps the user's npm configuration: a CA, a registry or a token in the
 * global or user npmrc still applies (scripts/npm-env.ts). Here each npmrc is a scratch file with
 * a harmless setting, and the child npm, given the env the pipelines use, must print both.
 */
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { pipelineEnv } from '../../scripts/documented-pipelines.js'
import { withNpmConfig } from '../../scripts/npm-env.js'
import { LOCK_FLAGS } from '../../scripts/lock.mjs'

const exec = promisify(execFile)

let dir: string
let globalconfig: string
let userconfig: string
/** `process.env` without npm's own variables: the tests set those they need */
let plain: Record<string, string>
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-deployment-npmrc-'))
  // the layout npm looks for without being told: <prefix>/etc/npmrc and $HOME/.npmrc
  await mkdir(join(dir, 'prefix/etc'), { recursive: true })
  await mkdir(join(dir, 'home'))
  globalconfig = join(dir, 'prefix/etc/npmrc')
  userconfig = join(dir, 'home/.npmrc')
  await writeFile(globalconfig, 'init-license=from-global\n')
  await writeFile(userconfig, 'init-author-name=from-user\n')
  plain = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && !/^(npm_|prefix$)/i.test(entry[0])
    )
  )
})
afterAll(() => rm(dir, { recursive: true, force: true }))

/** `npm config get <keys>` (two or more: npm prints `key=value` lines) in a scratch folder with `env`. */
async function npmConfig(env: Record<string, string>, keys: string[], args: string[] = []) {
  const cwd = join(dir, 'work')
  await mkdir(cwd, { recursive: true })
  const { stdout } = await exec('npm', ['config', 'get', ...keys, ...args], { cwd, env })
  return Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map(line => line.split('=', 2) as [string, string])
  )
}

const KEYS = ['init-license', 'init-author-name', 'prefix', 'userconfig']

test('under npm test (npm exports globalconfig and userconfig): the pipeline env keeps both files', async () => {
  const stage = join(dir, 'stage-exported')
  const parent = {
    ...plain,
    npm_config_globalconfig: globalconfig,
    npm_config_userconfig: userconfig
  }
  const seen = await npmConfig(pipelineEnv(stage, parent), KEYS)
  expect(seen).toEqual({
    'init-license': 'from-global',
    'init-author-name': 'from-user',
    // HOME and the prefix did move: without the files by path, npm would look there
    prefix: join(stage, 'npm-global'),
    userconfig
  })
})

test('outside npm (nothing exported): the files npm would read are asked of npm, then kept', async () => {
  const stage = join(dir, 'stage-asked')
  // npm's global prefix from PREFIX, its user config from HOME: the scratch ones
  const parent = { ...plain, HOME: join(dir, 'home'), PREFIX: join(dir, 'prefix') }
  const seen = await npmConfig(pipelineEnv(stage, parent), KEYS)
  expect(seen).toEqual({
    'init-license': 'from-global',
    'init-author-name': 'from-user',
    prefix: join(stage, 'npm-global'),
    userconfig
  })
})

test('settings given to the parent npm pass on; where it keeps things and which npm it is do not', async () => {
  const stage = join(dir, 'stage-settings')
  const parent = {
    ...plain,
    npm_config_globalconfig: globalconfig,
    npm_config_userconfig: userconfig,
    // as `npm --init-version=9.9.9 test` exports it, and in upper case as a shell may set it
    npm_config_init_version: '9.9.9',
    NPM_CONFIG_SIGN_GIT_TAG: 'true',
    npm_config_prefix: join(dir, 'elsewhere'),
    npm_config_local_prefix: join(dir, 'elsewhere'),
    npm_config_npm_version: '0.0.1',
    npm_config_call: 'echo not a setting'
  }
  const env = pipelineEnv(stage, parent)
  expect(Object.keys(env).filter(name => /npm_version|local_prefix|_call$/.test(name))).toEqual([])
  const seen = await npmConfig(env, ['init-version', 'sign-git-tag', 'prefix'])
  expect(seen).toEqual({
    'init-version': '9.9.9',
    'sign-git-tag': 'true',
    prefix: join(stage, 'npm-global')
  })
})

test('npm install --prefix (the Node 24 install of .ci/run) keeps the global config too', async () => {
  const parent = {
    ...plain,
    npm_config_globalconfig: globalconfig,
    npm_config_userconfig: userconfig
  }
  const moved = join(dir, 'node24')
  const seen = await npmConfig(
    withNpmConfig(parent),
    ['init-license', 'globalconfig'],
    ['--prefix', moved]
  )
  expect(seen).toEqual({ 'init-license': 'from-global', globalconfig })
  // and without it, --prefix hides the global config: what the env above prevents
  const bare = await npmConfig(plain, ['globalconfig', 'init-license'], ['--prefix', moved])
  expect(bare['globalconfig']).toBe(join(moved, 'etc/npmrc'))
  expect(bare['init-license']).not.toBe('from-global')
})

test("npm run lock's npm writes the same lock whatever the writer's npmrc says: lock format 3, no registry URL in it", async () => {
  // A registry of one package on this machine, standing for a mirror only the writer can reach.
  const integrity = `sha512-${Buffer.alloc(64, 7).toString('base64')}`
  const server = createServer((request, response) => {
    const { port } = server.address() as AddressInfo
    if (request.url !== '/tiny') return void response.writeHead(404).end('{}')
    const tarball = `http://127.0.0.1:${port}/tiny/-/tiny-1.0.0.tgz`
    response.setHeader('content-type', 'application/json')
    response.end(
      JSON.stringify({
        name: 'tiny',
        'dist-tags': { latest: '1.0.0' },
        versions: { '1.0.0': { name: 'tiny', version: '1.0.0', dist: { tarball, integrity } } }
      })
    )
  })
  await new Promise<void>(listening => server.listen(0, '127.0.0.1', listening))
  try {
    const { port } = server.address() as AddressInfo
    const project = join(dir, 'lock')
    await mkdir(project, { recursive: true })
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'p', version: '1.0.0', dependencies: { tiny: '^1.0.0' } })
    )
    // the writer's own settings, which the committed lock must not depend on
    const writer = join(dir, 'writer-npmrc')
    await writeFile(
      writer,
      `registry=http://127.0.0.1:${port}/\nomit-lockfile-registry-resolved=false\nlockfile-version=2\n`
    )
    await exec('npm', ['install', ...LOCK_FLAGS], {
      cwd: project,
      env: { ...plain, npm_config_userconfig: writer, npm_config_cache: join(dir, 'lock-cache') }
    })
    const written = JSON.parse(await readFile(join(project, 'package-lock.json'), 'utf8')) as {
      lockfileVersion: number
      packages: Record<string, Record<string, unknown>>
    }
    expect(written.lockfileVersion).toBe(3)
    expect(written.packages['node_modules/tiny']).toEqual({ version: '1.0.0', integrity })
  } finally {
    await new Promise(closed => server.close(closed))
  }
}, 60_000)
