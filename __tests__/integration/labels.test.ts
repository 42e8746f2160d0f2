// Over 300 lines: the label job's writes, reads and failures against one seeded emulator.
import { emulatorClient, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import type { Emulator, SeedData } from '../../emulator/index.js'
import type { ServiceClient } from '../../src/client/client.js'
import { applyLabels, type LabelRunResult } from '../../src/labels/apply.js'
import type { DiscoveryContext } from '../../src/labels/discover.js'
import type { LabelInputs } from '../../src/labels/inputs.js'

const REPO = 'acme/web'
const R = '/repos/acme/web'
const SHA = 'c'.repeat(40)

let emulator: Emulator
let client: ServiceClient
let log: MemoryLog
beforeAll(async () => {
  emulator = await withEmulator()
})
afterAll(async () => emulator.close())
beforeEach(() => {
  emulator.reset()
  log = new MemoryLog()
  client = emulatorClient(emulator, log)
})
afterEach(async () => client.close())

const dispatch: DiscoveryContext = {
  eventName: 'workflow_dispatch',
  payload: {},
  sha: SHA,
  ref: 'refs/heads/main',
  owner: 'acme',
  repo: 'web'
}

function apply(
  inputs: Partial<LabelInputs>,
  options: { dryRun?: boolean; discovery?: DiscoveryContext } = {}
): Promise<LabelRunResult> {
  return applyLabels(client, {
    owner: 'acme',
    repo: 'web',
    inputs: {
      labels: ['deployed:production'],
      removeLabels: [],
      pullRequests: [12],
      labelLinkedIssues: false,
      ...inputs
    },
    discovery: options.discovery ?? dispatch,
    dryRun: options.dryRun ?? false,
    log
  })
}

const seed = (data: SeedData) => emulator.seed(data)
const labelsOn = (n: number) => emulator.state.issues[REPO]?.find(i => i.number === n)?.labels
const writes = () => writesOf(emulator.requests).map(w => `${w.method} ${w.path}`)
const colorOf = (name: string) =>
  emulator.state.labels[REPO]?.find(l => l.name.toLowerCase() === name.toLowerCase())

test('one POST with all labels per target (the add endpoint), one DELETE per present remove-label', async () => {
  seed({
    labels: { [REPO]: [{ name: 'keep', color: '123456' }] },
    pulls: { [REPO]: [{ number: 12, labels: ['keep', 'deployed:staging', 'deployed:canary'] }] }
  })
  // The canary label goes away between the read and the DELETE: its 404 is fine, and the label
  // is reported as already gone, not removed: this run did not take it off (issue 22). The fault
  // stands in for that other hand, so the emulator's own state still lists the label below.
  emulator.addFault({
    method: 'DELETE',
    path: `${R}/issues/12/labels/deployed:canary`,
    fault: { kind: 'status', status: 404, body: { message: 'Label does not exist' } }
  })

  const result = await apply({
    labels: ['deployed:production', 'rolled-out'],
    removeLabels: ['deployed:staging', 'deployed:canary', 'never-there']
  })

  expect(result.failures).toEqual([])
  const targetCalls = emulator.requests.filter(r => r.path.startsWith(`${R}/issues/12`))
  // its labels read (the issue's answer carries them) before any write
  expect(`${targetCalls[0]?.method} ${targetCalls[0]?.path}`).toBe(`GET ${R}/issues/12`)
  expect(writes()).toEqual([
    `POST ${R}/issues/12/labels`,
    `DELETE ${R}/issues/12/labels/deployed%3Astaging`,
    `DELETE ${R}/issues/12/labels/deployed%3Acanary`
  ])
  expect(writesOf(emulator.requests)[0]?.body).toEqual({
    labels: ['deployed:production', 'rolled-out']
  })
  expect(result.labeled).toEqual([
    {
      number: 12,
      added: ['deployed:production', 'rolled-out'],
      removed: ['deployed:staging'],
      gone: ['deployed:canary']
    }
  ])
  // Labels others set stay (no replace); the add endpoint created the missing labels.
  expect(labelsOn(12)).toEqual(['keep', 'deployed:canary', 'deployed:production', 'rolled-out'])
  expect(colorOf('rolled-out')?.color).toBe('ededed')
})

test('names match case-insensitively: no write when every label is there, DELETE as spelled', async () => {
  seed({
    pulls: {
      [REPO]: [
        { number: 12, labels: ['Deployed:Production'] },
        { number: 14, labels: ['DEPLOYED:PRODUCTION', 'Deployed:Staging'] }
      ]
    }
  })

  const result = await apply({
    labels: ['deployed:production'],
    removeLabels: ['deployed:staging', 'deployed:canary'],
    pullRequests: [12, 14]
  })

  expect(result.failures).toEqual([])
  expect(writes()).toEqual([`DELETE ${R}/issues/14/labels/Deployed%3AStaging`])
  expect(result.labeled).toEqual([
    { number: 12, added: [], removed: [] },
    { number: 14, added: [], removed: ['Deployed:Staging'] }
  ])
  expect(log.text()).toMatch(/#12: already labeled/)
})

test('label names are percent-encoded in every path: team/web, a b, emoji, %', async () => {
  const names = ['team/web', 'a b', '🚀 shipped', '100%']
  seed({
    labels: { [REPO]: names.map(name => ({ name, color: '0e8a16' })) },
    pulls: { [REPO]: [{ number: 12, labels: ['old/web %'] }] }
  })

  const result = await apply({ labels: names, removeLabels: ['old/web %'], color: '0e8a16' })

  expect(result.failures).toEqual([])
  const reads = emulator.requests.filter(r => r.method === 'GET' && r.path.includes('/labels/'))
  expect(reads.map(r => [r.path, r.status])).toEqual([
    [`${R}/labels/team%2Fweb`, 200],
    [`${R}/labels/a%20b`, 200],
    [`${R}/labels/%F0%9F%9A%80%20shipped`, 200],
    [`${R}/labels/100%25`, 200]
  ])
  expect(writes()).toEqual([
    `POST ${R}/issues/12/labels`,
    `DELETE ${R}/issues/12/labels/old%2Fweb%20%25`
  ])
  expect(labelsOn(12)).toEqual(names)
})

test('ensuring labels: create when missing, nothing when equal, update only what differs', async () => {
  seed({
    labels: {
      [REPO]: [
        { name: 'Deployed:Same', color: '0E8A16', description: 'Shipped' },
        { name: 'deployed:other', color: 'fbca04', description: 'Shipped' }
      ]
    }
  })

  const result = await apply({
    labels: ['deployed:new', 'deployed:same', 'deployed:other'],
    color: '0e8a16',
    description: 'Shipped',
    pullRequests: 'none'
  })

  expect(result.failures).toEqual([])
  const sent = writesOf(emulator.requests)
  expect(sent.map(w => [w.method, w.path, w.body])).toEqual([
    ['POST', `${R}/labels`, { name: 'deployed:new', color: '0e8a16', description: 'Shipped' }],
    ['PATCH', `${R}/labels/deployed%3Aother`, { color: '0e8a16' }]
  ])
  expect(colorOf('deployed:new')).toMatchObject({ color: '0e8a16', description: 'Shipped' })
  expect(colorOf('deployed:other')?.color).toBe('0e8a16')
  expect(result.done).toEqual([
    'created label deployed:new',
    'updated the color of label deployed:other'
  ])
})

test('a 422 already_exists on create (someone else was faster) counts as success', async () => {
  seed({ labels: { [REPO]: [{ name: 'deployed:production', color: '0e8a16' }] } })
  // The read misses the label that another run is creating right now.
  emulator.addFault({
    method: 'GET',
    path: `${R}/labels/deployed:production`,
    fault: { kind: 'status', status: 404, body: { message: 'Not Found' } }
  })

  const result = await apply({ color: '0e8a16', pullRequests: 'none' })

  const create = emulator.requests.find(r => r.method === 'POST')
  expect(create?.status).toBe(422)
  expect(result.failures).toEqual([])
  expect(result.done).toEqual(['label deployed:production exists (created meanwhile)'])
})

test('a failing target does not stop the others; failures name each target', async () => {
  seed({
    pulls: {
      [REPO]: [{ number: 12 }, { number: 13, locked: true }, { number: 15, deleted: true }]
    },
    issues: { [REPO]: [{ number: 14 }] }
  })

  const result = await apply({ pullRequests: [12, 13, 15, 99, 14] })

  expect(result.labeled.map(l => l.number)).toEqual([12, 14])
  expect(result.failures.map(f => f.what)).toEqual([
    'issue or pull request #13',
    'issue or pull request #15',
    'issue or pull request #99'
  ])
  // Each in its own words: none of these is a missing permission.
  expect(result.failures[0]?.message).toMatch(
    /403.*locked[\s\S]*The conversation of #13 of acme\/web is locked/
  )
  expect(result.failures[1]?.message).toMatch(/410[\s\S]*Issue #15 of acme\/web was deleted/)
  expect(result.failures[2]?.message).toMatch(
    /404[\s\S]*There is no issue or pull request #99 of acme\/web/
  )
  for (const failure of result.failures) expect(failure.message).not.toMatch(/permission/)
  expect(labelsOn(12)).toEqual(['deployed:production'])
  expect(labelsOn(14)).toEqual(['deployed:production'])
})

test('a failure that would repeat for every request stops the remaining targets', async () => {
  seed({ pulls: { [REPO]: [12, 13, 14].map(number => ({ number, labels: [] })) } })
  emulator.addFault({
    method: 'GET',
    path: `${R}/issues/12`,
    fault: { kind: 'status', status: 401, body: { message: 'Bad credentials' } }
  })

  const result = await apply({ pullRequests: [12, 13, 14] })

  expect(writes()).toEqual([])
  expect(result.failures).toEqual([
    {
      what: 'issue or pull request #12',
      message: expect.stringMatching(/401/),
      fatal: true,
      // what to do, for the job summary
      hint: expect.stringMatching(/The token was refused/),
      // the call that failed, for the `failed` output
      request: {
        method: 'GET',
        path: `${R}/issues/12`,
        status: 401,
        requestId: expect.stringMatching(/^EMU:/)
      }
    },
    {
      what: 'issue or pull request #13',
      message: expect.stringMatching(/^not attempted/),
      notSent: true
    },
    {
      what: 'issue or pull request #14',
      message: expect.stringMatching(/^not attempted/),
      notSent: true
    }
  ])
  expect(emulator.requests).toHaveLength(1)
})

test('dry run reads, plans and prints the label writes without sending any', async () => {
  seed({
    labels: { [REPO]: [{ name: 'deployed:staging', color: 'fbca04' }] },
    pulls: {
      [REPO]: [
        { number: 12, labels: ['deployed:staging'] },
        { number: 14, labels: ['deployed:production'] }
      ]
    }
  })

  const result = await apply(
    {
      labels: ['deployed:production', 'rolled-out'],
      removeLabels: ['deployed:staging'],
      color: '0e8a16',
      pullRequests: [12, 14]
    },
    { dryRun: true }
  )

  expect(writes()).toEqual([])
  expect(emulator.requests.map(r => `${r.method} ${r.path}`)).toEqual([
    `GET ${R}/labels/deployed%3Aproduction`,
    `GET ${R}/labels/rolled-out`,
    `GET ${R}/issues/12`,
    `GET ${R}/issues/14`
  ])
  const both = ['deployed:production', 'rolled-out']
  // `labels`: what the job summary says each would do (only the labels a target lacks are added)
  const on = (n: number) => `issue or pull request #${n}`
  expect(result.preview).toEqual([
    // seeding made deployed:production with the default color
    {
      method: 'PATCH',
      path: `${R}/labels/deployed%3Aproduction`,
      body: { color: '0e8a16' },
      labels: { action: 'update', names: ['deployed:production'] }
    },
    {
      method: 'POST',
      path: `${R}/labels`,
      body: { name: 'rolled-out', color: '0e8a16' },
      labels: { action: 'create', names: ['rolled-out'] }
    },
    {
      method: 'POST',
      path: `${R}/issues/12/labels`,
      body: { labels: both },
      labels: { action: 'add', names: both, target: on(12) }
    },
    {
      method: 'DELETE',
      path: `${R}/issues/12/labels/deployed%3Astaging`,
      body: undefined,
      labels: { action: 'remove', names: ['deployed:staging'], target: on(12) }
    },
    {
      method: 'POST',
      path: `${R}/issues/14/labels`,
      body: { labels: both },
      labels: { action: 'add', names: ['rolled-out'], target: on(14) }
    }
  ])
  expect(result.labeled).toEqual([])
  expect(result.failures).toEqual([])
  expect(log.text()).toContain(`Dry run: would POST ${R}/issues/12/labels`)
  expect(labelsOn(12)).toEqual(['deployed:staging'])
})

test('label-linked-issues also labels the issues the pull request closes', async () => {
  seed({
    issues: { [REPO]: [{ number: 7 }, { number: 8 }, { number: 9 }] },
    pulls: {
      [REPO]: [
        {
          number: 12,
          labels: ['deployed:production'],
          body: 'Fixes #7, closes acme/web#8, fixes other/repo#9, resolves #13. See #9.'
        },
        { number: 13 }
      ]
    }
  })
  const event: DiscoveryContext = {
    ...dispatch,
    eventName: 'pull_request',
    payload: { number: 12, pull_request: { number: 12, base: { repo: { full_name: REPO } } } }
  }

  const result = await apply(
    { pullRequests: 'auto', labelLinkedIssues: true },
    { discovery: event }
  )

  expect(result.failures).toEqual([])
  expect(result.labeled.map(l => l.number)).toEqual([12, 7, 8])
  expect(writes()).toEqual([`POST ${R}/issues/7/labels`, `POST ${R}/issues/8/labels`])
  expect(labelsOn(9)).toEqual([])
  expect(labelsOn(13)).toEqual([])
  expect(log.text()).toMatch(/#12 closes #7 and #8/)
  expect(log.text()).toMatch(/#13 \(named by #12\) is a pull request/)
})
