import { startEmulator, type Emulator } from '../../emulator/index.js'
import { call } from './helpers.js'

const R = '/repos/acme/web'
const sha = (n: number) => String(n).repeat(40).slice(0, 40)

describe('pull request discovery reads', () => {
  let emulator: Emulator

  beforeAll(async () => {
    emulator = await startEmulator({
      seed: {
        issues: { 'acme/web': [{ number: 7, title: 'Bug report' }] },
        pulls: {
          'acme/web': [
            {
              number: 8,
              title: 'Fix bug',
              body: 'Fixes #7',
              head_sha: sha(9),
              labels: ['x'],
              commits: [sha(2), sha(3), sha(4)]
            },
            { number: 9, merged: false }
          ]
        },
        commits: {
          'acme/web': [
            { sha: sha(1), message: 'start' },
            { sha: sha(2), message: 'Fix bug (#8)', pulls: [8] },
            { sha: sha(3), message: 'more' },
            { sha: sha(4), message: 'last', pulls: [8, 9], committer: 'noreply@github.com' }
          ]
        },
        refs: { 'acme/web': { 'v1.0.0': sha(1) } },
        tags: { 'acme/web': { 'v1.0.0': sha(1), 'v1.1.0': sha(4) } }
      }
    })
  })
  afterAll(() => emulator.close())

  test('a pull request drops merge_commit_sha with API version 2026-03-10', async () => {
    const current = await call(emulator, 'GET', `${R}/pulls/8`)
    expect(current.status).toBe(200)
    expect(current.json).toMatchObject({
      number: 8,
      state: 'closed',
      merged: true,
      title: 'Fix bug',
      body: 'Fixes #7',
      head: { sha: sha(9) },
      base: { ref: 'main' },
      labels: [expect.objectContaining({ name: 'x' })]
    })
    expect(typeof current.json.merged_at).toBe('string')
    expect(current.json).not.toHaveProperty('merge_commit_sha')
    const older = await call(emulator, 'GET', `${R}/pulls/8`, undefined, {
      headers: { 'x-github-api-version': '2022-11-28' }
    })
    expect(older.json.merge_commit_sha).toMatch(/^[0-9a-f]{40}$/)
    expect((await call(emulator, 'GET', `${R}/pulls/7`)).status).toBe(404)
    expect((await call(emulator, 'GET', `${R}/pulls/9`)).json).toMatchObject({
      merged: false,
      merged_at: null,
      state: 'open'
    })
  })

  test('issues carry a pull_request key only for pull requests', async () => {
    const issue = await call(emulator, 'GET', `${R}/issues/7`)
    expect(issue.json).toMatchObject({ number: 7, title: 'Bug report', state: 'open' })
    expect(issue.json).not.toHaveProperty('pull_request')
    const pull = await call(emulator, 'GET', `${R}/issues/8`)
    expect(pull.json.pull_request).toMatchObject({ url: `${emulator.url}${R}/pulls/8` })
  })

  test('commits/{sha}/pulls answers the seeded pull requests', async () => {
    const answer = await call(emulator, 'GET', `${R}/commits/${sha(4)}/pulls`)
    expect(answer.json.map((p: { number: number }) => p.number)).toEqual([8, 9])
    const short = await call(emulator, 'GET', `${R}/commits/${sha(2).slice(0, 7)}/pulls`)
    expect(short.json).toHaveLength(1)
    expect((await call(emulator, 'GET', `${R}/commits/${sha(3)}/pulls`)).json).toEqual([])
    expect((await call(emulator, 'GET', `${R}/commits/${'f'.repeat(40)}/pulls`)).status).toBe(422)
  })

  test('a pull request lists its seeded commits, paginated; the tag list names the tags', async () => {
    const first = await call(emulator, 'GET', `${R}/pulls/8/commits?per_page=2`)
    expect(first.status).toBe(200)
    expect(first.json.map((c: { sha: string }) => c.sha)).toEqual([sha(2), sha(3)])
    expect(first.headers.get('link')).toContain('page=2>; rel="next"')
    const second = await call(emulator, 'GET', `${R}/pulls/8/commits?per_page=2&page=2`)
    expect(second.json).toEqual([
      expect.objectContaining({
        sha: sha(4),
        commit: expect.objectContaining({
          committer: expect.objectContaining({ name: 'GitHub', email: 'noreply@github.com' })
        })
      })
    ])
    expect((await call(emulator, 'GET', `${R}/pulls/9/commits`)).json).toEqual([])
    expect((await call(emulator, 'GET', `${R}/pulls/7/commits`)).status).toBe(404)
    const tags = await call(emulator, 'GET', `${R}/tags`)
    expect(tags.json).toEqual([
      expect.objectContaining({ name: 'v1.1.0', commit: expect.objectContaining({ sha: sha(4) }) }),
      expect.objectContaining({ name: 'v1.0.0', commit: expect.objectContaining({ sha: sha(1) }) })
    ])
  })

  test('compare lists the commits after base up to head, paginated', async () => {
    const answer = await call(emulator, 'GET', `${R}/compare/v1.0.0...${sha(4)}?per_page=2`)
    expect(answer.status).toBe(200)
    expect(answer.json).toMatchObject({ status: 'ahead', ahead_by: 3, total_commits: 3 })
    expect(answer.json.commits).toEqual([
      expect.objectContaining({
        sha: sha(2),
        commit: expect.objectContaining({
          message: 'Fix bug (#8)',
          committer: expect.objectContaining({ name: 'Test', email: 'test@example.com' })
        })
      }),
      expect.objectContaining({ sha: sha(3) })
    ])
    expect(answer.headers.get('link')).toContain('page=2>; rel="next"')
    const page2 = await call(emulator, 'GET', `${R}/compare/v1.0.0...${sha(4)}?per_page=2&page=2`)
    expect(page2.json.commits.map((c: { sha: string }) => c.sha)).toEqual([sha(4)])
    const same = await call(emulator, 'GET', `${R}/compare/${sha(2)}...${sha(2)}`)
    expect(same.json).toMatchObject({ status: 'identical', ahead_by: 0, commits: [] })
    const behind = await call(emulator, 'GET', `${R}/compare/${sha(4)}...${sha(2)}`)
    expect(behind.json).toMatchObject({ status: 'behind', behind_by: 2 })
    expect((await call(emulator, 'GET', `${R}/compare/nope...${sha(2)}`)).status).toBe(404)
    expect((await call(emulator, 'GET', `${R}/compare/${sha(2)}`)).status).toBe(404)
  })

  test('reads need contents or pull request permissions', async () => {
    const limited = await startEmulator({ tokens: { t: { permissions: ['issues:write'] } } })
    try {
      const answer = await call(limited, 'GET', `${R}/compare/a...b`, undefined, {
        headers: { authorization: 'Bearer t' }
      })
      expect(answer.status).toBe(403)
      expect(answer.headers.get('x-accepted-github-permissions')).toBe('contents=read')
    } finally {
      await limited.close()
    }
  })
})

describe('a history with merges', () => {
  let emulator: Emulator
  // main: 1 - 2 ------ 5 (merges 4); branch: 2 - 3 - 4
  beforeAll(async () => {
    emulator = await startEmulator({
      seed: {
        pulls: {
          'acme/web': [
            { number: 8, base_ref: 'develop' },
            { number: 9, base_ref: 'main', head_ref: 'develop' },
            { number: 10, base_ref: 'develop', merged: false, state: 'open' }
          ]
        },
        commits: {
          'acme/web': [
            { sha: sha(1), message: 'start' },
            { sha: sha(2), message: 'second' },
            { sha: sha(3), message: 'on the branch' },
            { sha: sha(4), message: 'more on the branch' },
            { sha: sha(5), message: 'Merge pull request #9', parents: [sha(2), sha(4)] }
          ]
        }
      }
    })
  })
  afterAll(() => emulator.close())

  test('compare lists merged branches too, each commit with its parents', async () => {
    const answer = await call(emulator, 'GET', `${R}/compare/${sha(1)}...${sha(5)}`)
    expect(answer.json).toMatchObject({ status: 'ahead', ahead_by: 4, total_commits: 4 })
    expect(
      answer.json.commits.map((c: { sha: string; parents: { sha: string }[] }) => [
        c.sha,
        c.parents.map(p => p.sha)
      ])
    ).toEqual([
      [sha(2), [sha(1)]],
      [sha(3), [sha(2)]],
      [sha(4), [sha(3)]],
      [sha(5), [sha(2), sha(4)]]
    ])
    // Head an ancestor of base: behind by the two branch commits, nothing to list.
    const diverged = await call(emulator, 'GET', `${R}/compare/${sha(4)}...${sha(2)}`)
    expect(diverged.json).toMatchObject({ status: 'behind', behind_by: 2, commits: [] })
  })

  test('compareLimit lists only the newest commits; total_commits counts all', async () => {
    emulator.seed({ compareLimit: 2 })
    const answer = await call(emulator, 'GET', `${R}/compare/${sha(1)}...${sha(5)}?per_page=100`)
    expect(answer.json.total_commits).toBe(4)
    expect(answer.json.commits.map((c: { sha: string }) => c.sha)).toEqual([sha(4), sha(5)])
    emulator.reset()
    const all = await call(emulator, 'GET', `${R}/compare/${sha(1)}...${sha(5)}`)
    expect(all.json.commits).toHaveLength(4)
  })

  test('pulls lists by state and base, newest first', async () => {
    const closed = await call(emulator, 'GET', `${R}/pulls?state=closed&base=develop`)
    expect(closed.json.map((p: { number: number }) => p.number)).toEqual([8])
    const all = await call(emulator, 'GET', `${R}/pulls?state=all`)
    expect(all.json.map((p: { number: number }) => p.number)).toEqual([10, 9, 8])
    const open = await call(emulator, 'GET', `${R}/pulls`)
    expect(open.json.map((p: { number: number }) => p.number)).toEqual([10])
  })
})
