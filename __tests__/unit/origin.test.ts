// One origin, many spellings: a `next` link or redirect that spells out the default port is
// api-url's origin (src/client/origin.ts, applied by splitUrl), and keeps the token.
import { API, setup, TOKEN } from '../../__fixtures__/service-client.js'
import { canonicalOrigin } from '../../src/client/origin.js'
import { splitUrl } from '../../src/client/wire.js'

test.each([
  ['https://api.github.com:443', 'https://api.github.com'],
  ['HTTPS://API.GitHub.com:0443', 'https://api.github.com'],
  ['http://127.0.0.1:80', 'http://127.0.0.1'],
  ['http://127.0.0.1:443', 'http://127.0.0.1:443'],
  ['https://github.example.com:8443', 'https://github.example.com:8443'],
  ['https://api.github.com:80', 'https://api.github.com:80'],
  ['http://[::1]:80', 'http://[::1]'],
  ['http://[::1]:8080', 'http://[::1]:8080'],
  // the root's dot is the same name (a resolver adds it anyway)
  ['https://api.github.com.', 'https://api.github.com'],
  ['https://API.github.com.:443', 'https://api.github.com'],
  ['https://github.example.com.:8443', 'https://github.example.com:8443']
])('%s is %s', (given, canonical) => {
  expect(canonicalOrigin(given)).toBe(canonical)
  expect(splitUrl(`${given}/repos/a/b?page=2`).origin).toBe(canonical)
})

test('a next link that spells out :443 is the same origin: page 2 goes with the token', async () => {
  const { client, on, seen } = setup()
  on('GET', '/items', {
    status: 200,
    body: [1],
    headers: { link: `<${API}:443/items?page=2>; rel="next"` }
  })
  on('GET', '/items?page=2', { status: 200, body: [2] })
  expect(await client.paginate('/items', body => body as number[])).toEqual([1, 2])
  expect(seen.map(s => [s.path, s.headers['authorization']])).toEqual([
    ['/items', `Bearer ${TOKEN}`],
    ['/items?page=2', `Bearer ${TOKEN}`]
  ])
})

test('an api-url with :443 and links without it are one origin too; a redirect to :443 keeps it', async () => {
  const { client, on, seen } = setup({ baseUrl: `${API}:443` })
  on('GET', '/list', {
    status: 200,
    body: [1],
    headers: { link: `<${API}/list?page=2>; rel="next"` }
  })
  on('GET', '/list?page=2', { status: 200, body: [2] })
  on('POST', '/w', { status: 307, headers: { location: `${API.toUpperCase()}:443/w2` } })
  on('POST', '/w2', { status: 200, body: {} })
  expect(await client.paginate('/list', body => body as number[])).toEqual([1, 2])
  await client.request('POST', '/w', { body: {} })
  expect(seen.map(s => s.headers['authorization'])).toEqual(Array(4).fill(`Bearer ${TOKEN}`))
})

test('another port is another origin: the token stays home', async () => {
  const { client, on, seen } = setup()
  on('GET', '/items', {
    status: 200,
    body: [1],
    headers: { link: `<${API}:8443/items?page=2>; rel="next"` }
  })
  on('GET', `${API}:8443/items?page=2`, { status: 200, body: [2] })
  expect(await client.paginate('/items', body => body as number[])).toEqual([1, 2])
  expect(seen.map(s => s.headers['authorization'])).toEqual([`Bearer ${TOKEN}`, undefined])
})
