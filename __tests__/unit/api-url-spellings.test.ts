// The spellings of an `api-url` the URL parser takes (src/inputs/connection.ts): each is read as
// the host it reaches, so a look-alike warns however it is typed, and a fully qualified name
// (`api.github.com.`) is api.github.com, not another host or an Enterprise Server.
import { isEnterpriseServer } from '../../src/client/errors.js'
import { parseInputs, type RawInputs } from '../../src/step/parse-inputs.js'

const base: RawInputs = { token: 'tok', repository: 'acme/web', labels: 'deployed' }
/** `api.github.com` with a Cyrillic `а` (U+0430) and `і` (U+0456), and its punycode */
const HOST = '\u0430p\u0456.github.com'
const PUNYCODE = new URL(`https://${HOST}`).hostname

test.each([
  [`https://${PUNYCODE}`, 'as punycode (copied from a browser bar, or written by an attacker)'],
  [`https://${PUNYCODE.toUpperCase()}/api/v3`, 'as punycode in capitals'],
  [`https:/${HOST}`, 'with one slash'],
  [`https:\\\\${HOST}`, 'with backslashes'],
  [`https://${HOST}.`, 'with the root dot']
])('a look-alike host %s warns (%s)', given => {
  const { connection } = parseInputs({ ...base, 'api-url': given }, {})
  expect(connection.apiUrl).toMatch(new RegExp(`^https://${PUNYCODE}(/api/v3)?$`))
  expect(connection.warnings).toEqual([
    `\`api-url\`: the host \`${HOST}\` mixes Latin and Cyrillic (\u0430 U+0430, \u0456 U+0456) ` +
      `letters, so it reads as another host; the token goes to ${PUNYCODE}. ` +
      'Type it in one script if that is not meant'
  ])
})

test.each([
  ['https://api.github.com.', 'https://api.github.com'],
  ['https://api.github.com./', 'https://api.github.com'],
  ['https://api.github.com%2e', 'https://api.github.com'],
  ['https://API.GitHub.com.:443/', 'https://api.github.com'],
  ['https://github.example.com./api/v3/', 'https://github.example.com/api/v3'],
  ['http://localhost.:8787', 'http://localhost:8787']
])('%s is %s', (given, apiUrl) => {
  const { connection } = parseInputs({ ...base, 'api-url': given }, {})
  expect(connection.apiUrl).toBe(apiUrl)
  expect(connection.warnings).toBeUndefined()
  expect(isEnterpriseServer(new URL(connection.apiUrl).origin)).toBe(apiUrl.includes('example.com'))
})

test('a host that is only the root dot is refused, naming api-url', () => {
  expect(() => parseInputs({ ...base, 'api-url': 'https://./' }, {})).toThrow(/api-url/)
})
