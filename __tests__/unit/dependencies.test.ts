import { readdirSync, readFileSync } from 'node:fs'
import { parse } from 'yaml'

const root = new URL('../../', import.meta.url)
const read = (path: string) => readFileSync(new URL(path, root), 'utf8')
const pkg = JSON.parse(read('package.json')) as {
  dependencies?: Record<string, string>
  devDependencies: Record<string, string>
}
const lock = JSON.parse(read('package-lock.json')) as {
  lockfileVersion: number
  packages: Record<string, { version?: string; integrity?: string }>
}

/**
 * The design card's packages: the five runtime ones the action and the command line are made of,
 * bundled into dist/, so the bundle runs without node_modules. They are development dependencies
 * like @vercel/ncc (the benchmark's yardstick) and jest: `npm install record-deployment` installs
 * the one package (dist/ is self-contained), not 22 more that nothing loads. Anything else in the
 * bundle needs a reason and its size in a review.
 */
const CHOSEN = ['@actions/core', '@actions/exec', '@actions/github', 'undici', 'zod']
const DEV = ['@vercel/ncc', 'jest']

test("the package installs alone: no runtime dependencies; the card's five and its dev packages are development dependencies", () => {
  expect(pkg.dependencies ?? {}).toEqual({})
  expect(pkg).not.toHaveProperty('optionalDependencies')
  expect(pkg).not.toHaveProperty('peerDependencies')
  for (const name of [...CHOSEN, ...DEV])
    expect({ name, dev: name in pkg.devDependencies }).toEqual({ name, dev: true })
})

test('undici stays on the major the @actions packages use, so the bundle holds one copy', () => {
  expect(pkg.devDependencies['undici']).toMatch(/^\^6\./)
  const copies = Object.keys(lock.packages).filter(p => p.endsWith('node_modules/undici'))
  expect(copies).toEqual(['node_modules/undici'])
})

test('TypeScript stays below 7 (ts-jest needs its JavaScript API)', () => {
  expect(pkg.devDependencies['typescript']).toMatch(/^[~^]?[56]\./)
})

test('package-lock.json pins every runtime dependency with an integrity hash', () => {
  expect(lock.lockfileVersion).toBe(3)
  for (const name of CHOSEN) {
    const entry = lock.packages[`node_modules/${name}`]
    expect({
      name,
      version: entry?.version,
      integrity: entry?.integrity?.startsWith('sha512-')
    }).toEqual({
      name,
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      integrity: true
    })
  }
})

test("the bundle holds @actions/github's Context and none of its Octokit", () => {
  const dist = new URL('dist/', root)
  const files = readdirSync(dist).filter(f => f.endsWith('.js'))
  const code = files.map(file => readFileSync(new URL(file, dist), 'utf8'))
  // Context's own words (node_modules/@actions/github/lib/context.js), in the action and the CLI.
  const context = "context.repo requires a GITHUB_REPOSITORY environment variable like 'owner/repo'"
  expect(code.filter(text => text.includes(context)).length).toBeGreaterThanOrEqual(2)
  expect(files.filter((_, i) => /octokit/i.test(code[i] ?? ''))).toEqual([])
  expect(read('dist/licenses.txt')).not.toMatch(/@octokit/)
})

test('the bundle ships the licenses of what it contains', () => {
  const licenses = read('dist/licenses.txt')
  for (const name of CHOSEN) expect(licenses).toContain(name)
})

test('Dependabot watches npm and the workflow actions, and keeps TypeScript below 7', () => {
  const config = parse(read('.github/dependabot.yml')) as {
    updates: Array<{
      'package-ecosystem': string
      ignore?: Array<{ 'dependency-name': string; versions?: string[] }>
    }>
  }
  const ecosystems = config.updates.map(u => u['package-ecosystem']).sort()
  expect(ecosystems).toEqual(['github-actions', 'npm'])
  const npm = config.updates.find(u => u['package-ecosystem'] === 'npm')
  expect(npm?.ignore).toContainEqual({ 'dependency-name': 'typescript', versions: ['>=7'] })
})

test('installing from git (npm install --global github:OWNER/record-deployment#v1, as before the npm package) runs no build', () => {
  // npm's git fetcher installs every dev dependency and builds in a temporary clone when one of
  // these scripts exists, and a global install then links to that clone, which npm deletes: the
  // command it leaves behind does not exist. dist/ is committed; nothing needs building.
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts
  const triggers = ['build', 'prepare', 'prepack', 'preinstall', 'install', 'postinstall']
  expect(triggers.filter(name => name in scripts)).toEqual([])
})
