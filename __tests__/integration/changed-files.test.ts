/**
 * `paths`' files, asked directly (src/labels/changed-files.ts) of a real repository and the
 * emulator: git for the pull requests whose commits the checkout has, the service for the rest,
 * and a rename counts for the path it left.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  client,
  dir,
  emulator,
  git,
  seedCommits,
  useHistoryWorld,
  writeRepository,
  type HistoryCommit
} from '../../__fixtures__/history.js'
import { keepByPaths } from '../../src/labels/changed-files.js'
import { parsePaths, type PathFilter } from '../../src/labels/paths.js'

useHistoryWorld('changed-files')

const REPO = 'acme/shop'
const filter = (value: string): PathFilter => parsePaths(value).filter as PathFilter
const HISTORY: HistoryCommit[] = [
  { id: 'start', message: 'Start', parents: [], files: { 'web/a.ts': 'a', 'api/b.ts': 'b' } },
  { id: 'c1', message: 'Web (#1)', parents: ['start'], files: { 'web/c.ts': 'c1' } },
  { id: 'c2', message: 'API (#2)', parents: ['c1'], files: { 'api/d.ts': 'c2' } }
]
const fileReads = () => emulator.requests.filter(r => /\/pulls\/\d+\/files/.test(r.path)).length

test('git for the pull requests whose commits the checkout has, one read each for the rest', async () => {
  const repoDir = join(dir, 'mixed')
  const shas = writeRepository(repoDir, HISTORY, 'c2')
  emulator.reset()
  emulator.seed({
    pulls: { [REPO]: [{ number: 3, files: ['web/e.ts'] }] },
    commits: { [REPO]: seedCommits(HISTORY, shas) }
  })
  const outcome = await keepByPaths(
    {
      client,
      owner: 'acme',
      repo: 'shop',
      filter: filter('web/**'),
      workspace: repoDir,
      commitsOf: new Map([
        [1, new Set([shas['c1'] as string])],
        [2, new Set([shas['c2'] as string])],
        // #3's commit is not in the checkout (a branch deleted since): the service is asked.
        [3, new Set(['f'.repeat(40)])]
      ])
    },
    [1, 2, 3]
  )
  expect(outcome.numbers).toEqual([1, 3])
  expect(outcome.warnings).toEqual([])
  expect(outcome.notes).toEqual([
    'paths: #1 and #3 changed files in web/**; left out #2, which changed none ' +
      '(files read with git, 1 listed by the service: 1 read)'
  ])
  expect(fileReads()).toBe(1)
})

test('a rename counts for the path it left and the one it took', async () => {
  emulator.reset()
  emulator.seed({
    pulls: { [REPO]: [{ number: 4, files: ['web/old.ts => api/new.ts'] }] }
  })
  const ctx = { client, owner: 'acme', repo: 'shop', commitsOf: new Map() }
  expect((await keepByPaths({ ...ctx, filter: filter('web/**') }, [4])).numbers).toEqual([4])
  expect((await keepByPaths({ ...ctx, filter: filter('api/**') }, [4])).numbers).toEqual([4])
  expect((await keepByPaths({ ...ctx, filter: filter('worker/**') }, [4])).numbers).toEqual([])
})

test('with git too: a file moved from web/ to api/ counts for both', async () => {
  const moved: HistoryCommit[] = [
    ...HISTORY,
    {
      id: 'mv',
      message: 'Move (#5)',
      parents: ['c2'],
      files: { 'web/a.ts': null, 'api/a.ts': 'a' }
    }
  ]
  const repoDir = join(dir, 'moved')
  const shas = writeRepository(repoDir, moved, 'mv')
  emulator.reset()
  const ctx = {
    client,
    owner: 'acme',
    repo: 'shop',
    workspace: repoDir,
    commitsOf: new Map([[5, new Set([shas['mv'] as string])]])
  }
  expect((await keepByPaths({ ...ctx, filter: filter('web/**') }, [5])).numbers).toEqual([5])
  expect((await keepByPaths({ ...ctx, filter: filter('api/**') }, [5])).numbers).toEqual([5])
  expect((await keepByPaths({ ...ctx, filter: filter('worker/**') }, [5])).numbers).toEqual([])
  expect(fileReads()).toBe(0)
})

test('git from a folder of the checkout, with diff.relative set, still reads every path from the root', async () => {
  // The command line reads git where it is started (`web/`); `diff.relative` (a user's or the
  // repository's setting) would print paths relative to that folder and leave out the others.
  const repoDir = join(dir, 'relative')
  const shas = writeRepository(repoDir, HISTORY, 'c2')
  git(repoDir, 'reset', '-q', '--hard')
  git(repoDir, 'config', 'diff.relative', 'true')
  emulator.reset()
  const ctx = {
    client,
    owner: 'acme',
    repo: 'shop',
    workspace: join(repoDir, 'web'),
    commitsOf: new Map([
      [1, new Set([shas['c1'] as string])],
      [2, new Set([shas['c2'] as string])]
    ]),
    // an event's own pull request: base...head, with `git diff`
    event: { number: 7, base: shas['c1'] as string, head: shas['c2'] as string }
  }
  expect((await keepByPaths({ ...ctx, filter: filter('web/**') }, [1, 2, 7])).numbers).toEqual([1])
  expect((await keepByPaths({ ...ctx, filter: filter('api/**') }, [1, 2, 7])).numbers).toEqual([
    2, 7
  ])
  expect(fileReads()).toBe(0)
})

test('a folder written without /** (`web`, `!web/docs`) matches no file in it, and a warning says so', async () => {
  emulator.reset()
  emulator.seed({
    pulls: {
      [REPO]: [
        { number: 1, files: ['web/header.ts'] },
        { number: 2, files: ['web/docs/guide.md'] },
        { number: 3, files: ['web'] }
      ]
    }
  })
  const ctx = { client, owner: 'acme', repo: 'shop', commitsOf: new Map() }
  // As on.push.paths reads it: `web` is the file `web`, not the folder's files.
  const plain = await keepByPaths({ ...ctx, filter: filter('web') }, [1, 2, 3])
  expect(plain.numbers).toEqual([3])
  expect(plain.warnings).toEqual([
    'paths: `web` matches a file of that whole path only, and it is a folder (#1 changed web/header.ts): its files are `web/**`.'
  ])
  const left = await keepByPaths({ ...ctx, filter: filter('web/**\n!web/docs') }, [1, 2])
  expect(left.numbers).toEqual([1, 2])
  expect(left.warnings).toEqual([
    'paths: `!web/docs` matches a file of that whole path only, and it is a folder (#2 changed web/docs/guide.md): its files are `!web/docs/**`.'
  ])
  // A file name is the pull request's own: one line in the log.
  emulator.reset()
  emulator.seed({
    pulls: {
      [REPO]: [
        { number: 1, files: ['web/header.ts'] },
        { number: 4, files: ['api/x\n::error::forged'] }
      ]
    }
  })
  expect((await keepByPaths({ ...ctx, filter: filter('api') }, [4])).warnings).toEqual([
    'paths: `api` matches a file of that whole path only, and it is a folder (#4 changed api/x\\n::error::forged): its files are `api/**`.'
  ])
  // Written as a folder's files, no warning.
  expect((await keepByPaths({ ...ctx, filter: filter('web/**') }, [1])).warnings).toEqual([])
})

test("a signed commit's check printed by log.showSignature is not read as a file", async () => {
  // With `log.showSignature` set, git log prints what gpg says of each signed commit into its
  // output, before the commit: a signer's words would be read as a file of the commit before.
  const repoDir = join(dir, 'signed')
  const shas = writeRepository(repoDir, HISTORY, 'c2')
  git(repoDir, 'reset', '-q', '--hard')
  const gpg = join(dir, 'fake-gpg.sh')
  writeFileSync(
    gpg,
    '#!/bin/sh\ncat >/dev/null\ncase "$*" in\n' +
      '*--verify*) echo "web/forged.ts" >&2 ;;\n' +
      '*) printf -- "-----BEGIN PGP SIGNATURE-----\\n\\nAA==\\n-----END PGP SIGNATURE-----\\n"; ' +
      'printf "\\n[GNUPG:] SIG_CREATED D 1 8 00 0 X\\n" >&2 ;;\nesac\n',
    { mode: 0o755 }
  )
  git(repoDir, 'config', 'gpg.program', gpg)
  git(repoDir, 'config', 'log.showSignature', 'true')
  git(
    repoDir,
    '-c',
    'user.signingkey=X',
    'commit',
    '-q',
    '-S',
    '--allow-empty',
    '-m',
    'Signed (#9)'
  )
  emulator.reset()
  const outcome = await keepByPaths(
    {
      client,
      owner: 'acme',
      repo: 'shop',
      filter: filter('web/**'),
      workspace: repoDir,
      commitsOf: new Map([
        [2, new Set([shas['c2'] as string])],
        [9, new Set([git(repoDir, 'rev-parse', 'HEAD')])]
      ])
    },
    [2, 9]
  )
  expect(outcome.numbers).toEqual([])
  expect(fileReads()).toBe(0)
})
