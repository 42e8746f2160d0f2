// ServiceClient: redirects, pagination, and the link and URL readers.
import { API, setup, TOKEN } from '../../__fixtures__/service-client.js'
import { MAX_REDIRECTS } from '../../src/client/client.js'
import { nextLink, splitUrl } from '../../src/client/wire.js'
import { ServiceError } from '../../src/client/errors.js'

describe('redirects', () => {
  test('307 is followed with method and body; not remembered', async () => {
    const { client, on, seen } = setup()
    on(
      'POST',
      '/old',
      { status: 307, headers: { location: '/new' } },
      { status: 307, headers: { location: '/new' } }
    )
    on('POST', '/new', { status: 200, body: { ok: 1 } }, { status: 200, body: { ok: 2 } })
    await client.request('POST', '/old', { body: { a: 1 } })
    await client.request('POST', '/old', { body: { a: 1 } })
    expect(seen.map(s => `${s.method} ${s.path} ${s.body}`)).toEqual([
      'POST /old {"a":1}',
      'POST /new {"a":1}',
      'POST /old {"a":1}',
      'POST /new {"a":1}'
    ])
  })

  test.each([301, 308])('%i is remembered for the rest of the run', async status => {
    const { client, on, seen } = setup()
    on('GET', '/old', { status, headers: { location: `${API}/new` } })
    on('GET', '/new', { status: 200, body: {} }, { status: 200, body: {} })
    await client.request('GET', '/old')
    await client.request('GET', '/old')
    expect(seen.map(s => s.path)).toEqual(['/old', '/new', '/new'])
  })

  test('Authorization is not sent to another origin', async () => {
    const { client, on, seen } = setup()
    on('POST', '/w', { status: 308, headers: { location: 'https://elsewhere.example.test/w' } })
    on('POST', 'https://elsewhere.example.test/w', { status: 200, body: {} })
    await client.request('POST', '/w', { body: {} })
    expect(seen[0]?.headers['authorization']).toBe(`Bearer ${TOKEN}`)
    expect(seen[1]?.headers['authorization']).toBeUndefined()
  })

  test('a 404 after a remembered redirect to another origin still names the redirect, and is fatal', async () => {
    const { client, on } = setup()
    const other = 'https://elsewhere.example.test'
    on('GET', '/r', { status: 301, headers: { location: `${other}/r` } })
    on(
      'GET',
      `${other}/r`,
      { status: 200, body: {} },
      { status: 404, body: { message: 'Not Found' } }
    )
    await client.request('GET', '/r')
    const error = (await client.request('GET', '/r').catch(e => e)) as ServiceError
    expect(error.fatal).toBe(true)
    expect(error.hint).toContain(`A redirect led to ${other}, another origin than \`api-url\``)
    expect(error.hint).not.toMatch(/needs the permission/)
  })

  test(`more than ${MAX_REDIRECTS} redirects is an error`, async () => {
    const { client, on } = setup()
    for (let i = 0; i <= MAX_REDIRECTS; i++)
      on('GET', `/r${i}`, { status: 302, headers: { location: `/r${i + 1}` } })
    await expect(client.request('GET', '/r0')).rejects.toThrow(/more than 5 redirects/)
  })

  test('303 is followed as a GET without the body', async () => {
    const { client, on, seen } = setup()
    on('POST', '/w', { status: 303, headers: { location: '/answer/1' } })
    on('GET', '/answer/1', { status: 200, body: { id: 1 } })
    const response = await client.request('POST', '/w', { body: { a: 1 } })
    expect(response.body).toEqual({ id: 1 })
    expect(seen.map(s => `${s.method} ${s.path} ${s.body ?? ''}`)).toEqual([
      'POST /w {"a":1}',
      'GET /answer/1 '
    ])
  })

  test.each([
    ['no location', {}, /redirect 302 without a location to follow/],
    ['an empty location', { location: ' ' }, /redirect 302 without a location to follow/],
    [
      'a location that is no http URL',
      { location: 'ftp://x/y' },
      /not an http\(s\) URL: "ftp:\/\/x\/y"/
    ]
  ])('a redirect with %s says so', async (_n, headers, expected) => {
    const { client, on, seen } = setup()
    on('POST', '/w', { status: 302, headers })
    const error = (await client.request('POST', '/w', { body: {} }).catch(e => e)) as ServiceError
    expect(error.message).toMatch(expected)
    expect(seen).toHaveLength(1)
  })
})

describe('pagination', () => {
  test('a page of 300k items does not overflow the stack', async () => {
    const { client, on } = setup()
    const page = Array.from({ length: 300_000 }, (_, i) => i)
    on('GET', '/big', { status: 200, body: page })
    const items = await client.paginate('/big', body => body as number[])
    expect(items).toHaveLength(300_000)
  })

  test('a next link pointing at itself or at a page read before ends the list', async () => {
    const { client, on, seen } = setup()
    on('GET', '/self', { status: 200, body: [1], headers: { link: `<${API}/self>; rel="next"` } })
    expect(await client.paginate('/self', body => body as number[])).toEqual([1])
    on('GET', '/a', { status: 200, body: [1], headers: { link: `<${API}/b>; rel="next"` } })
    on('GET', '/b', { status: 200, body: [2], headers: { link: `<${API}/a>; rel="next"` } })
    expect(await client.paginate('/a', body => body as number[])).toEqual([1, 2])
    expect(seen.map(s => s.path)).toEqual(['/self', '/a', '/b'])
  })

  test('a next link on another origin is read without the token', async () => {
    const { client, on, seen } = setup()
    on('GET', '/items', {
      status: 200,
      body: [1],
      headers: { link: '<https://elsewhere.example.test/items?page=2>; rel="next"' }
    })
    on('GET', 'https://elsewhere.example.test/items?page=2', { status: 200, body: [2] })
    expect(await client.paginate('/items', body => body as number[])).toEqual([1, 2])
    expect(seen[0]?.headers['authorization']).toBe(`Bearer ${TOKEN}`)
    expect(seen[1]?.headers['authorization']).toBeUndefined()
  })
})

test('pagination follows the link header', async () => {
  const { client, on } = setup()
  on('GET', '/items?per_page=2', {
    status: 200,
    body: [1, 2],
    headers: {
      link: `<${API}/items?per_page=2&page=2>; rel="next", <${API}/items?per_page=2&page=2>; rel="last"`
    }
  })
  on('GET', '/items?per_page=2&page=2', {
    status: 200,
    body: [3],
    headers: { link: `<${API}/items?per_page=2&page=1>; rel="prev"` }
  })
  const items = await client.paginate('/items?per_page=2', body => body as number[])
  expect(items).toEqual([1, 2, 3])
})

test('nextLink reads rel="next" only', () => {
  expect(nextLink('<https://a/x?page=2>; rel="next", <https://a/x?page=9>; rel="last"')).toBe(
    'https://a/x?page=2'
  )
  expect(nextLink('<https://a/x?page=1>; rel="prev"')).toBeUndefined()
  expect(nextLink(undefined)).toBeUndefined()
})

test('splitUrl keeps encoded dot segments as they are', () => {
  expect(splitUrl('https://API.example.test/repos/a/%2E%2E/labels')).toEqual({
    origin: 'https://api.example.test',
    path: '/repos/a/%2E%2E/labels'
  })
})

describe('https is never left for plain http', () => {
  test.each([301, 302, 303, 307, 308])(
    'a %i from the https API to http:// is refused before anything goes there',
    async status => {
      const { client, on, seen } = setup()
      on('POST', '/w', { status, headers: { location: 'http://plain.example.test/w' } })
      on('POST', 'http://plain.example.test/w', { status: 201, body: { id: 666 } })
      on('GET', 'http://plain.example.test/w', { status: 200, body: { id: 666 } })
      const error = (await client
        .request('POST', '/w', { body: { a: 1 } })
        .catch(e => e)) as ServiceError
      expect(error).toBeInstanceOf(ServiceError)
      expect(error.fatal).toBe(true)
      expect(error.message).toContain(
        `a redirect (${status}) leads to http://plain.example.test/w, plain http where \`api-url\` is https: refused`
      )
      expect(seen.map(s => s.path)).toEqual(['/w'])
    }
  )

  test("a list's next link to http:// is refused, and the page is not read", async () => {
    const { client, on, seen } = setup()
    on('GET', '/list', {
      status: 200,
      body: [1],
      headers: { link: '<http://plain.example.test/list?page=2>; rel="next"' }
    })
    on('GET', 'http://plain.example.test/list?page=2', { status: 200, body: [2] })
    const error = (await client.paginate('/list', b => b as number[]).catch(e => e)) as ServiceError
    expect(error).toBeInstanceOf(ServiceError)
    expect(error.message).toContain(
      "the list's `next` link leads to http://plain.example.test/list, plain http where `api-url` is https: refused"
    )
    expect(seen.map(s => s.path)).toEqual(['/list'])
  })

  test('with a loopback http api-url (an emulator), a redirect to loopback http is followed', async () => {
    const base = 'http://127.0.0.1:8787'
    const { client, agent } = setup({ baseUrl: base })
    agent
      .get(base)
      .intercept({ path: '/a', method: 'GET' })
      .reply(307, '', {
        headers: { location: 'http://localhost:9999/b' }
      })
    agent
      .get('http://localhost:9999')
      .intercept({ path: '/b', method: 'GET' })
      .reply(200, '[1]', {
        headers: { 'content-type': 'application/json' }
      })
    expect((await client.request('GET', '/a')).body).toEqual([1])
  })

  test('with a loopback http api-url, a redirect to a host elsewhere over http is refused', async () => {
    const base = 'http://127.0.0.1:8787'
    const { client, agent } = setup({ baseUrl: base })
    agent
      .get(base)
      .intercept({ path: '/a', method: 'GET' })
      .reply(307, '', {
        headers: { location: 'http://plain.example.test/b' }
      })
    await expect(client.request('GET', '/a')).rejects.toThrow(
      /leads to http:\/\/plain\.example\.test\/b/
    )
  })

  test("a redirect's user:password@ and query are not in its debug line", async () => {
    const { client, on, log } = setup({ maxRetries: 0 })
    on('GET', '/r', {
      status: 302,
      headers: { location: 'https://user:hunter2@other.example.test/r?access_token=abc' }
    })
    await client.request('GET', '/r').catch(() => undefined)
    const debug = log.lines.filter(l => l.level === 'debug').map(l => l.message)
    expect(debug).toContain('GET /r: 302 redirect to https://other.example.test/r')
    expect(debug.join('\n')).not.toMatch(/hunter2|user:|abc/)
  })
})
