import { startEmulator, type Emulator } from '../../emulator/index.js'
import { call } from './helpers.js'

const R = '/repos/acme/web'
const names = (labels: Array<{ name: string }>) => labels.map(label => label.name)

describe('labels', () => {
  let emulator: Emulator

  beforeAll(async () => {
    emulator = await startEmulator()
  })
  afterAll(() => emulator.close())
  beforeEach(() => {
    emulator.reset()
    emulator.seed({
      labels: { 'acme/web': [{ name: 'Bug', color: 'D73A4A', description: 'broken' }] },
      issues: {
        'acme/web': [
          { number: 1, labels: ['bug'] },
          { number: 2, locked: true },
          { number: 3, deleted: true },
          { number: 5, milestone: 1, labels: ['Bug'] }
        ]
      },
      pulls: { 'acme/web': [{ number: 4, title: 'Ship it' }] }
    })
  })

  describe('repository labels', () => {
    test('create answers 201 with the label; color defaults to ededed', async () => {
      const created = await call(emulator, 'POST', `${R}/labels`, {
        name: 'deployed:staging',
        color: '0E8A16',
        description: 'On staging'
      })
      expect(created.status).toBe(201)
      expect(created.json).toEqual({
        id: expect.any(Number),
        node_id: expect.any(String),
        url: `${emulator.url}${R}/labels/deployed%3Astaging`,
        name: 'deployed:staging',
        description: 'On staging',
        color: '0e8a16',
        default: false
      })
      const plain = await call(emulator, 'POST', `${R}/labels`, { name: 'plain' })
      expect(plain.json).toMatchObject({ color: 'ededed', description: null })
    })

    test('an existing name, in any case, is already_exists', async () => {
      const answer = await call(emulator, 'POST', `${R}/labels`, { name: 'BUG', color: 'ffffff' })
      expect(answer.status).toBe(422)
      expect(answer.json.errors).toEqual([
        { resource: 'Label', code: 'already_exists', field: 'name' }
      ])
    })

    test.each([
      [{ color: 'ffffff' }, 'name', 'missing_field'],
      [{ name: 'x', color: '#ffffff' }, 'color', 'invalid'],
      [{ name: 'x', color: 'fff' }, 'color', 'invalid'],
      [{ name: 'x', description: 'd'.repeat(101) }, 'description', 'invalid']
    ])('create %j is 422 on %s', async (body, field, code) => {
      const answer = await call(emulator, 'POST', `${R}/labels`, body)
      expect(answer.status).toBe(422)
      expect(answer.json.errors).toContainEqual(expect.objectContaining({ field, code }))
    })

    test('get, update and delete look names up case-insensitively', async () => {
      const got = await call(emulator, 'GET', `${R}/labels/BUG`)
      expect(got.json.name).toBe('Bug')
      const updated = await call(emulator, 'PATCH', `${R}/labels/bug`, {
        new_name: 'defect',
        color: '000000',
        description: 'still broken'
      })
      expect(updated.status).toBe(200)
      expect(updated.json).toMatchObject({ name: 'defect', color: '000000' })
      expect(emulator.state.issues['acme/web']?.[0]?.labels).toEqual(['defect'])
      expect((await call(emulator, 'GET', `${R}/labels/bug`)).status).toBe(404)
      const deleted = await call(emulator, 'DELETE', `${R}/labels/Defect`)
      expect(deleted.status).toBe(204)
      expect(deleted.json).toBeUndefined()
      expect(emulator.state.issues['acme/web']?.[0]?.labels).toEqual([])
      expect((await call(emulator, 'DELETE', `${R}/labels/defect`)).status).toBe(404)
    })

    test('path parameters are percent-decoded once', async () => {
      await call(emulator, 'POST', `${R}/labels`, { name: 'a/b' })
      await call(emulator, 'POST', `${R}/labels`, { name: 'x%y' })
      const slash = await call(emulator, 'GET', `${R}/labels/a%2Fb`)
      expect(slash.status).toBe(200)
      expect(slash.json.name).toBe('a/b')
      expect(slash.json.url).toBe(`${emulator.url}${R}/labels/a%2Fb`)
      expect((await call(emulator, 'GET', `${R}/labels/a/b`)).status).toBe(404)
      expect((await call(emulator, 'GET', `${R}/labels/x%25y`)).json.name).toBe('x%y')
      const spaced = await call(emulator, 'POST', `${R}/issues/1/labels`, {
        labels: ['deployed: prod']
      })
      expect(names(spaced.json)).toContain('deployed: prod')
      expect(
        (await call(emulator, 'DELETE', `${R}/issues/1/labels/deployed%3A%20prod`)).status
      ).toBe(200)
    })

    test('lists paginate with link headers', async () => {
      for (let i = 0; i < 4; i++) await call(emulator, 'POST', `${R}/labels`, { name: `l${i}` })
      const page = await call(emulator, 'GET', `${R}/labels?per_page=2&page=2`)
      expect(names(page.json)).toEqual(['l1', 'l2'])
      const link = page.headers.get('link') ?? ''
      expect(link).toContain(`<${emulator.url}${R}/labels?per_page=2&page=3>; rel="next"`)
      expect(link).toContain('rel="first"')
      const capped = await call(emulator, 'GET', `${R}/labels?per_page=500`)
      expect(capped.json).toHaveLength(5)
    })
  })

  describe('issue labels', () => {
    test('add creates missing labels and keeps the repository spelling', async () => {
      const answer = await call(emulator, 'POST', `${R}/issues/1/labels`, {
        labels: ['BUG', 'deployed:staging']
      })
      expect(answer.status).toBe(200)
      expect(names(answer.json)).toEqual(['Bug', 'deployed:staging'])
      const created = emulator.state.labels['acme/web']?.find(l => l.name === 'deployed:staging')
      expect(created?.color).toBe('ededed')
    })

    test('add needs at least one label', async () => {
      const empty = await call(emulator, 'POST', `${R}/issues/1/labels`, { labels: [] })
      expect(empty.status).toBe(422)
      const missing = await call(emulator, 'POST', `${R}/issues/1/labels`, {})
      expect(missing.status).toBe(422)
      expect(missing.json.errors[0]).toMatchObject({ field: 'labels', code: 'missing_field' })
    })

    test('set replaces, an empty set clears, and a bare string is one label', async () => {
      const set = await call(emulator, 'PUT', `${R}/issues/4/labels`, { labels: ['a', 'b'] })
      expect(names(set.json)).toEqual(['a', 'b'])
      const single = await call(emulator, 'PUT', `${R}/issues/4/labels`, { labels: 'c' })
      expect(names(single.json)).toEqual(['c'])
      const cleared = await call(emulator, 'PUT', `${R}/issues/4/labels`, { labels: [] })
      expect(cleared.json).toEqual([])
    })

    test('remove one answers the rest; a label the issue lacks is 404', async () => {
      await call(emulator, 'POST', `${R}/issues/1/labels`, { labels: ['two'] })
      const removed = await call(emulator, 'DELETE', `${R}/issues/1/labels/bug`)
      expect(removed.status).toBe(200)
      expect(names(removed.json)).toEqual(['two'])
      const absent = await call(emulator, 'DELETE', `${R}/issues/1/labels/bug`)
      expect(absent.status).toBe(404)
      expect(absent.json.message).toBe('Label does not exist')
    })

    test('remove all answers 204', async () => {
      const answer = await call(emulator, 'DELETE', `${R}/issues/1/labels`)
      expect(answer.status).toBe(204)
      expect(emulator.state.issues['acme/web']?.[0]?.labels).toEqual([])
    })

    test('unknown, locked and deleted issues', async () => {
      expect((await call(emulator, 'GET', `${R}/issues/99/labels`)).status).toBe(404)
      expect((await call(emulator, 'GET', `${R}/issues/x/labels`)).status).toBe(404)
      const locked = await call(emulator, 'POST', `${R}/issues/2/labels`, { labels: ['a'] })
      expect(locked.status).toBe(403)
      expect((await call(emulator, 'GET', `${R}/issues/2/labels`)).status).toBe(200)
      const deleted = await call(emulator, 'GET', `${R}/issues/3/labels`)
      expect(deleted.status).toBe(410)
      expect(deleted.json.message).toBe('This issue was deleted')
    })

    test('issue and milestone label lists', async () => {
      const issue = await call(emulator, 'GET', `${R}/issues/1/labels`)
      expect(names(issue.json)).toEqual(['Bug'])
      const milestone = await call(emulator, 'GET', `${R}/milestones/1/labels`)
      expect(names(milestone.json)).toEqual(['Bug'])
      expect((await call(emulator, 'GET', `${R}/milestones/9/labels`)).status).toBe(404)
    })
  })
})
