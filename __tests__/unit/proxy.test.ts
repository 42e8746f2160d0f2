/**
 * The proxy rules of `src/client/proxy.ts`, over generated values: which variable a request
 * reads, how a value without a scheme is read, which NO_PROXY entries cover a host, and that
 * loopback never goes through a proxy. Expectations are written from the toolkit's and curl's
 * documented rules, not computed with the code under test. The same rules through the bundled
 * action: __tests__/integration/proxy.test.ts.
 */
import fc from 'fast-check'
import { chooseProxy, readProxySettings } from '../../src/client/proxy.js'

const choose = (target: string, env: Record<string, string | undefined>) =>
  chooseProxy(target, readProxySettings(env))

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/)
const domain = fc
  .array(label, { minLength: 1, maxLength: 3 })
  .map(labels => [...labels, 'example'].join('.'))
const port = fc.integer({ min: 1, max: 65535 })
const ipv4 = fc.tuple(
  fc.integer({ min: 1, max: 223 }),
  fc.nat(255),
  fc.nat(255),
  fc.integer({ min: 1, max: 254 })
)
const proxyHost = fc.oneof(
  domain,
  ipv4.filter(([a]) => a !== 127).map(parts => parts.join('.')),
  fc.constantFrom('[fd00::5]', '[2001:db8::1]')
)
const secret = fc.string({ minLength: 1, maxLength: 12, unit: 'binary-ascii' })
const blanks = fc.constantFrom('', ' ', '  ', '\t')

describe('reading a proxy value', () => {
  test('with or without http://, credentials, a port, a trailing slash and blanks: the same http proxy', () => {
    fc.assert(
      fc.property(
        fc.record({
          scheme: fc.constantFrom('', 'http://', 'HTTP://'),
          user: fc.option(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/), secret), {
            nil: undefined
          }),
          host: proxyHost,
          port: fc.option(port, { nil: undefined }),
          slash: fc.boolean(),
          pad: blanks
        }),
        ({ scheme, user, host, port, slash, pad }) => {
          const auth = user ? `${user[0]}:${encodeURIComponent(user[1])}@` : ''
          const hostPort = port === undefined ? host : `${host}:${port}`
          const value = `${pad}${scheme}${auth}${hostPort}${slash ? '/' : ''}${pad}`
          const choice = choose('https://api.github.com', { HTTPS_PROXY: value })
          expect(choice.kind).toBe('proxy')
          if (choice.kind !== 'proxy') return
          // Port 80 is http's own: a URL leaves it out.
          const shownPort = port === undefined || port === 80 ? '' : `:${port}`
          expect(choice.shown).toBe(`http://${host}${shownPort}`)
          expect(choice.variable).toBe('HTTPS_PROXY')
          const url = new URL(choice.url)
          expect(url.protocol).toBe('http:')
          if (user) {
            expect(decodeURIComponent(url.username)).toBe(user[0])
            expect(decodeURIComponent(url.password)).toBe(user[1])
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  test('an https:// proxy stays https', () => {
    const choice = choose('https://api.github.com', { https_proxy: 'https://proxy.corp:8443' })
    expect(choice).toMatchObject({ kind: 'proxy', shown: 'https://proxy.corp:8443' })
  })

  test.each(['socks5', 'socks5h', 'socks4', 'SOCKS5', 'ftp', 'pac+http'])(
    'a %s:// proxy in use is invalid, naming the variable as set, never echoing credentials',
    scheme => {
      for (const name of ['https_proxy', 'HTTPS_PROXY']) {
        const choice = choose('https://api.github.com', {
          [name]: `${scheme}://u:pw@10.0.0.5:1080`
        })
        expect(choice).toMatchObject({ kind: 'invalid', variable: name })
        if (choice.kind === 'invalid') {
          expect(choice.problem).toContain(`${scheme.toLowerCase()}://`)
          expect(choice.problem).not.toContain('pw')
        }
      }
    }
  )

  test('lower case wins over upper case; a blank one falls through to the other, as the toolkit reads them', () => {
    expect(
      choose('https://h.example', { https_proxy: 'a.corp:1', HTTPS_PROXY: 'b.corp:2' })
    ).toMatchObject({ shown: 'http://a.corp:1', variable: 'https_proxy' })
    expect(
      choose('https://h.example', { https_proxy: ' ', HTTPS_PROXY: 'b.corp:2' })
    ).toMatchObject({ shown: 'http://b.corp:2', variable: 'HTTPS_PROXY' })
    expect(choose('https://h.example', { https_proxy: '', HTTPS_PROXY: '' })).toEqual({
      kind: 'direct'
    })
  })

  test('https requests read only HTTPS_PROXY, http requests only HTTP_PROXY', () => {
    const env = { HTTP_PROXY: 'plain.corp:3128' }
    expect(choose('https://h.example', env)).toEqual({ kind: 'direct' })
    expect(choose('http://h.example', env)).toMatchObject({ shown: 'http://plain.corp:3128' })
    expect(choose('http://h.example', { HTTPS_PROXY: 'tls.corp:3128' })).toEqual({
      kind: 'direct'
    })
  })
})

describe('NO_PROXY', () => {
  const proxied = { HTTPS_PROXY: 'proxy.corp:3128' }

  test('an entry covers its domain and every name under it, however it is written', () => {
    fc.assert(
      fc.property(
        domain,
        fc.array(label, { maxLength: 2 }),
        fc.constantFrom('', '.', '*.'),
        fc.boolean(),
        blanks,
        fc.array(domain, { maxLength: 2 }),
        (d, sub, prefix, upper, pad, others) => {
          const host = [...sub, d].join('.')
          let entry = `${prefix}${d}`
          if (upper) entry = entry.toUpperCase()
          const list = [
            ...others.filter(o => !`.${host}`.endsWith(`.${o}`)),
            `${pad}${entry}${pad}`
          ]
          const env = { ...proxied, NO_PROXY: list.join(',') }
          expect(choose(`https://${host}`, env)).toEqual({ kind: 'direct' })
          expect(choose(`https://${host}:8443/api/v3`, env)).toEqual({ kind: 'direct' })
        }
      ),
      { numRuns: 300 }
    )
  })

  test('an entry does not cover a name that only ends with the same letters, nor its parent', () => {
    fc.assert(
      fc.property(domain, label, (d, extra) => {
        const env = { ...proxied, no_proxy: `${extra}.${d}` }
        expect(choose(`https://${d}`, env).kind).toBe('proxy')
        expect(choose(`https://x${extra}.${d}`, env).kind).toBe('proxy')
      })
    )
  })

  test('an entry with a port covers that port only (443 when the URL names none)', () => {
    fc.assert(
      fc.property(domain, port, (d, p) => {
        const env = { ...proxied, NO_PROXY: `${d}:${p}` }
        expect(choose(`https://api.${d}:${p}`, env)).toEqual({ kind: 'direct' })
        expect(choose(`https://api.${d}:${p === 1 ? 2 : p - 1}`, env).kind).toBe('proxy')
      })
    )
    expect(choose('https://api.github.com', { ...proxied, NO_PROXY: 'github.com:443' })).toEqual({
      kind: 'direct'
    })
  })

  test('IPv6 entries, bracketed or not, with or without a port', () => {
    for (const entry of ['fd00::1', '[fd00::1]', '[fd00::1]:8443', ' [FD00::1] ']) {
      expect(choose('https://[fd00::1]:8443', { ...proxied, NO_PROXY: entry })).toEqual({
        kind: 'direct'
      })
    }
    expect(choose('https://[fd00::2]:8443', { ...proxied, NO_PROXY: 'fd00::1' }).kind).toBe('proxy')
  })

  test('`*` covers every host; an empty NO_PROXY covers none', () => {
    fc.assert(
      fc.property(fc.oneof(domain, proxyHost), host => {
        expect(choose(`https://${host}`, { ...proxied, NO_PROXY: '*' })).toEqual({
          kind: 'direct'
        })
        expect(choose(`https://${host}`, { ...proxied, NO_PROXY: ' , ' }).kind).toBe('proxy')
      })
    )
  })

  test('a covered host goes direct even when the proxy value is unusable', () => {
    expect(
      choose('https://api.corp.example', {
        HTTPS_PROXY: 'socks5://p:1080',
        NO_PROXY: 'corp.example'
      })
    ).toEqual({ kind: 'direct' })
  })
})

test('loopback is never proxied: localhost, 127.0.0.0/8 and ::1, whatever the variables say', () => {
  const loopback = fc.oneof(
    fc.constantFrom('localhost', 'LOCALHOST', 'api.localhost', '[::1]', '[0:0:0:0:0:0:0:1]'),
    fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `127.${a}.${b}.${c}`)
  )
  fc.assert(
    fc.property(
      loopback,
      fc.option(port, { nil: undefined }),
      fc.constantFrom('http', 'https'),
      fc.constantFrom('proxy.corp:3128', 'socks5://p:1080', 'http://u:p@10.0.0.5:3128/'),
      (host, p, scheme, value) => {
        const target = `${scheme}://${host}${p === undefined ? '' : `:${p}`}/`
        const env = { HTTPS_PROXY: value, HTTP_PROXY: value, https_proxy: value, http_proxy: value }
        expect(choose(target, env)).toEqual({ kind: 'direct' })
      }
    ),
    { numRuns: 200 }
  )
})
