// An `api-url` whose host mixes look-alike scripts is a warning, as a label name that does
// (src/inputs/connection.ts, with shared/untrusted.ts's rule), logged before any request.
import { MockAgent } from 'undici'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import { parseInputs, type RawInputs } from '../../src/step/parse-inputs.js'
import { run } from '../../src/step/run.js'

const base: RawInputs = { token: 'tok', repository: 'acme/web', labels: 'deployed' }
/** `api.github.com` with a Cyrillic `а` (U+0430) and `і` (U+0456) */
const LOOKALIKE = 'https://\u0430p\u0456.github.com'
const PUNYCODE = new URL(LOOKALIKE).host

test('a host with Cyrillic letters in api.github.com warns, naming each letter and where the token goes', () => {
  expect(PUNYCODE).toMatch(/^xn--/)
  const { connection } = parseInputs({ ...base, 'api-url': LOOKALIKE }, {})
  expect(connection.apiUrl).toBe(`https://${PUNYCODE}`)
  expect(connection.warnings).toEqual([
    `\`api-url\`: the host \`\u0430p\u0456.github.com\` mixes Latin and Cyrillic (\u0430 U+0430, ` +
      `\u0456 U+0456) letters, so it reads as another host; the token goes to ${PUNYCODE}. ` +
      'Type it in one script if that is not meant'
  ])
  // GITHUB_API_URL is read the same way when the input is not given
  expect(parseInputs(base, { GITHUB_API_URL: `${LOOKALIKE}/api/v3` }).connection.warnings).toEqual([
    expect.stringContaining('mixes Latin and Cyrillic')
  ])
})

test.each([
  'https://api.github.com',
  'https://github.example.com/api/v3',
  'https://api.acme.ghe.com',
  'https://пример.рф/api/v3', // one script, not a look-alike of another name
  'http://127.0.0.1:8787'
])('%s is no warning', apiUrl => {
  expect(parseInputs({ ...base, 'api-url': apiUrl }, {}).connection.warnings).toBeUndefined()
})

test('the run logs the warning before its first request', async () => {
  const agent = new MockAgent()
  agent.disableNetConnect()
  const log = new MemoryLog()
  const inputs = parseInputs({ ...base, 'api-url': LOOKALIKE, 'pull-requests': 'none' }, {})
  await run(inputs, {
    log,
    dispatcher: agent,
    event: {
      eventName: 'push',
      payload: {},
      sha: 'a'.repeat(40),
      ref: 'refs/heads/main',
      workspace: '.'
    }
  })
  expect(log.lines[0]).toEqual({
    level: 'warning',
    message: expect.stringContaining(`\`api-url\`: the host \`\u0430p\u0456.github.com\` mixes`)
  })
})
