/**
 * The state file's limits: the reader accepts every file the writer can write (entries and
 * bytes), the run is refused before any request when it could write more, and a directory the
 * file cannot be written in is found before any request.
 */
import { chmod, mkdtemp, readdir, rm, writeFile, mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { digest, item, parsedOrProblems, range } from '../../__fixtures__/state-entries.js'
import { STATE_INPUTS } from '../../__fixtures__/state-entries.js'
import { directoryProblem } from '../../src/cluster/inputs.js'
import {
  MAX_ENTRY_BYTES,
  MAX_STATE_ENTRIES,
  MAX_STATE_FILE_BYTES,
  parseState,
  STATE_VERSION,
  stateText,
  type ClusterState
} from '../../src/cluster/state-format.js'
import { JOB_LIMIT } from '../../src/cluster/items.js'
import { planState } from '../../src/cluster/state.js'
import { writeState } from '../../src/cluster/settle-state.js'
import { Collector } from '../../src/inputs/problems.js'
import type { FileReader } from '../../src/step/parse-inputs.js'

const stateOf = (names: number[]): ClusterState => ({
  format: 'record-deployment/cluster-state',
  version: STATE_VERSION,
  cluster: 'prod-eu-1',
  logical_environment: 'production',
  deployments: names.map(item)
})

function parse(snapshot: number[], state: ClusterState, writable?: string) {
  const contents: Record<string, string> = {
    'deployments.json': JSON.stringify(snapshot.map(item)),
    'state.json': stateText(state)
  }
  const at = (path: string) => contents[path.split('/').pop() ?? ''] ?? ''
  const files: FileReader = {
    size: path => at(path).length,
    read: at,
    writable: () => writable
  }
  return parsedOrProblems({ ...STATE_INPUTS, 'allow-mass-decommission': 'true' }, files)
}

test('a state file of MAX_STATE_ENTRIES entries is read; one more is refused', () => {
  expect(MAX_STATE_ENTRIES).toBeGreaterThan(JOB_LIMIT)
  expect(parseState(stateText(stateOf(range(1, MAX_STATE_ENTRIES)))).problems).toEqual([])
  expect(parseState(stateText(stateOf(range(0, MAX_STATE_ENTRIES)))).problems).toEqual([
    `deployments: must have at most ${MAX_STATE_ENTRIES} entries`
  ])
})

test('the longest entry, every character escaped, stays under MAX_ENTRY_BYTES, so a full file stays under MAX_STATE_FILE_BYTES', () => {
  // A control character is refused in a name now (issue 33); a lone surrogate is allowed and is
  // written as the longest escape JSON has, `\ud800`: six bytes for one character.
  const escaped = (n: number) => '\ud800'.repeat(n)
  const state: ClusterState = {
    ...stateOf([]),
    deployments: [
      {
        deployment_name: escaped(256),
        name: escaped(256),
        digest: digest(1),
        version: escaped(100),
        github_repository: 'r'.repeat(100),
        workload: { namespace: escaped(253), kind: 'StatefulSet', name: escaped(253) },
        decommission_rejections: 2
      }
    ]
  }
  expect(parseState(stateText(state)).problems).toEqual([])
  const bytes = Buffer.byteLength(stateText(state)) - Buffer.byteLength(stateText(stateOf([])))
  expect(bytes).toBeGreaterThan(6 * 1000)
  expect(bytes).toBeLessThan(MAX_ENTRY_BYTES)
  expect(MAX_STATE_FILE_BYTES).toBe(MAX_STATE_ENTRIES * MAX_ENTRY_BYTES)
})

test('a run that could write more than MAX_STATE_ENTRIES is refused before any request; up to it passes', () => {
  // The state lists MAX_STATE_ENTRIES - 10 deployments in namespace `old`, which the filter now
  // leaves out (kept, not decommissioned); the snapshot brings new ones in `apps`.
  const inOld = (n: number) => ({
    ...item(n),
    workload: { namespace: 'old', kind: 'Deployment', name: `s${n}` }
  })
  const listed = range(1, MAX_STATE_ENTRIES - 10)
  const plan = (snapshot: number[]) => {
    const c = new Collector({ 'state-file': 'state.json' })
    const text = stateText({ ...stateOf([]), deployments: listed.map(inOld) })
    const result = planState(
      c,
      { GITHUB_WORKSPACE: '/work' },
      { size: () => text.length, read: () => text },
      {
        cluster: 'prod-eu-1',
        logicalEnvironment: 'production',
        items: snapshot.map(item),
        namespaceFilter: { input: 'namespaces', wanted: ns => ns === 'apps' }
      },
      { snapshotInput: 'kubernetes-file', allowMass: false }
    )
    return { filtered: result?.filtered.length, problems: c.problems }
  }
  expect(plan(range(MAX_STATE_ENTRIES, MAX_STATE_ENTRIES + 9))).toEqual({
    filtered: listed.length,
    problems: []
  })
  expect(plan(range(MAX_STATE_ENTRIES, MAX_STATE_ENTRIES + 10))).toEqual({
    filtered: undefined,
    problems: [
      {
        input: 'state-file',
        message: expect.stringContaining(
          `would list up to ${MAX_STATE_ENTRIES + 1} deployments (11 in the snapshot, ${listed.length} listed before, ${listed.length} of them kept though the snapshot lacks them); a state file lists at most ${MAX_STATE_ENTRIES}`
        )
      }
    ]
  })
})

test('an unwritable state directory is a problem of state-file, found with the inputs', () => {
  const { problems } = parse([1], stateOf([1]), '`/ro` is not writable (EROFS)')
  expect(problems).toEqual([
    {
      input: 'state-file',
      message: expect.stringContaining(
        '`state.json` cannot be written: `/ro` is not writable (EROFS)'
      )
    }
  ])
})

describe('directoryProblem', () => {
  let root: string
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'state-dir-'))
  })
  afterEach(async () => {
    await chmod(root, 0o700)
    await rm(root, { recursive: true, force: true })
  })

  test('a directory that does not exist yet under a writable one is fine', () => {
    expect(directoryProblem(join(root, 'a', 'b', 'state.json'))).toBeUndefined()
  })

  test('a file on the way is named', async () => {
    await writeFile(join(root, 'blocker'), '')
    expect(directoryProblem(join(root, 'blocker', 'sub', 'state.json'))).toBe(
      `\`${join(root, 'blocker')}\` is not a directory`
    )
  })

  test('a file name the writer cannot write (its temporary name beside it is too long) is named, not found after the request', async () => {
    // 250 characters: the name itself is allowed, `<name>.<pid>-<n>.tmp` is past 255.
    const path = join(root, 'a'.repeat(250))
    expect(directoryProblem(path)).toBe(
      `the name \`${'a'.repeat(250)}\` is too long (ENAMETOOLONG) for the temporary file the step writes beside it: shorten it`
    )
    await expect(writeState(path, stateOf([1]))).rejects.toThrow('ENAMETOOLONG')
    // One the writer can write passes, and the check leaves nothing behind.
    const fits = join(root, 'a'.repeat(200))
    expect(directoryProblem(fits)).toBeUndefined()
    expect(await readdir(root)).toEqual([])
    await writeState(fits, stateOf([1]))
    expect(await readdir(root)).toEqual(['a'.repeat(200)])
  })

  // root may write anywhere: the mode only says no to other users.
  const asRoot = process.getuid?.() === 0
  ;(asRoot ? test.skip : test)('a directory without write permission is named', async () => {
    await mkdir(join(root, 'ro'))
    await chmod(join(root, 'ro'), 0o500)
    expect(directoryProblem(join(root, 'ro', 'state.json'))).toBe(
      `the directory \`${join(root, 'ro')}\` is not writable (EACCES)`
    )
  })
})
