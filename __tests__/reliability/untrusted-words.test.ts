/**
 * Issue 33, through the bundled action and over generated values: a pull request body costs time
 * in proportion to its length, a token a header cannot carry is an input problem, and any
 * `retry-after` / `x-ratelimit-reset` value ends in the documented words.
 */
import fc from 'fast-check'
import { labelInputs, recordInputs, TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { runAction } from '../../scripts/run-action.js'
import { decideRetry } from '../../src/client/retry-policy.js'
import { closingReferences } from '../../src/labels/references.js'
import type { Emulator } from '../../emulator/index.js'

fc.configureGlobal({ seed: Number(process.env['FC_SEED'] ?? 20261122) })

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator()
})
afterAll(async () => emulator.close())
beforeEach(() => emulator.reset())

const record = (over: Record<string, string> = {}) => runAction(recordInputs(emulator, over))

describe('deployment-name-template', () => {
  test('`{{` and 6,000 spaces with no `}}`: read at once, an unknown placeholder still named', async () => {
    const run = await runAction({
      token: TOKEN,
      'api-url': emulator.url,
      repository: 'acme/web',
      environment: 'production',
      cluster: 'prod-eu-2',
      'kubernetes-file': 'pods.json',
      'deployment-name-template': `{{bogus}}-{{namespace}}-{{${' '.repeat(6000)}x`
    })
    expect(run.code).not.toBe(0)
    expect(run.stdout).toContain('deployment-name-template: `{{bogus}}`: the placeholders are')
    expect(emulator.requests).toEqual([])
  })
})

describe('closing references', () => {
  test('"fixes" and 200,000 spaces with no `#`: read at once, the real reference still found', async () => {
    const body = `Fixes #3\n\nfixes${' '.repeat(200_000)}x`
    emulator.seed({
      issues: { 'acme/web': [{ number: 3 }] },
      pulls: { 'acme/web': [{ number: 7, body }] }
    })
    const run = await runAction(
      labelInputs(emulator, { 'pull-requests': '7', 'label-linked-issues': 'true' })
    )
    expect(run.code).toBe(0)
    expect(run.outputs['pull-requests']).toBe('7,3')
  })

  /** The pattern before issue 33, whose `\s*:?\s+` backtracked: the same matches, found slowly. */
  const before =
    /(?<![\w/-])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+(?:([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9._-]+))?#(\d+)(?![\w-])/gi
  const piece = fc.constantFrom(
    'fixes',
    'Closes',
    'resolved',
    'fix',
    ' ',
    '  ',
    '\t',
    '\n',
    ':',
    '#',
    '#12',
    '3',
    'acme/web',
    'other/repo',
    'x',
    '-',
    '/'
  )
  test('the same references as the pattern before, for any generated body', () => {
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 20 }).map(p => p.join('')),
        body => {
          const expected = [
            ...new Set(
              [...body.matchAll(before)]
                .filter(m => m[1] === undefined || `${m[1]}/${m[2]}`.toLowerCase() === 'acme/web')
                .map(m => Number(m[3]))
                .filter(n => Number.isSafeInteger(n) && n > 0)
            )
          ].sort((a, b) => a - b)
          expect(closingReferences(body, 'acme', 'web')).toEqual(expected)
        }
      ),
      { numRuns: 5000 }
    )
  })
})

describe('a token a header cannot carry', () => {
  test.each([
    ['a zero-width space', `${TOKEN}\u200b`],
    ['a non-breaking space inside', `ghs_ab\u00a0cd`],
    ['a letter outside ASCII', 'ghs_abcé'],
    ['a control character', 'ghs_ab\u0007cd']
  ])('%s: an input problem naming `token`, nothing sent', async (_what, token) => {
    const run = await record({ token })
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(
      /- token: (a token holds a character an HTTP header cannot carry|a token cannot contain white space)/
    )
    expect(run.stdout).not.toMatch(/network error|api-url/)
    expect(emulator.requests).toEqual([])
  })
})

describe('retry-after and x-ratelimit-reset', () => {
  test.each([
    ['retry-after: 99999999999999999999', 403, { 'retry-after': '99999999999999999999' }],
    ['retry-after: 1e400 on a 503', 503, { 'retry-after': '1e400' }],
    [
      'x-ratelimit-reset far off',
      403,
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '99999999999999999999' }
    ]
  ])('%s ends in the documented words', async (_what, status, headers) => {
    emulator.addFault({
      method: 'POST',
      times: 5,
      fault: { kind: 'status', status, headers, body: { message: 'slow down' } }
    })
    const run = await record({ 'max-retries': '0' })
    expect(run.code).toBe(1)
    expect(run.stdout).not.toMatch(/Invalid time value|unexpected error/)
    if (status === 403) expect(run.stdout).toMatch(/would pass the step's time budget/)
  })

  test('any generated value: a wait of a number of milliseconds, or the documented refusal', () => {
    const value = fc.oneof(
      fc.string(),
      fc.double().map(String),
      fc.bigInt().map(String),
      fc.constantFrom(
        '1e400',
        '-1',
        'Infinity',
        'NaN',
        '99999999999999999999',
        '0x10',
        'Fri, 31 Dec 275760 00:00:00 GMT'
      )
    )
    fc.assert(
      fc.property(value, value, fc.constantFrom(403, 429, 503), (after, reset, status) => {
        const headers: Record<string, string> =
          status === 503
            ? { 'retry-after': after }
            : { 'retry-after': after, 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }
        const resetOnly: Record<string, string> = {
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': reset
        }
        for (const h of [headers, resetOnly]) {
          const decision = decideRetry(
            { kind: 'response', status, headers: h, message: 'API rate limit exceeded' },
            {
              retriesMade: 0,
              maxRetries: 3,
              now: Date.now(),
              random: () => 0.5,
              untimedRateLimits: 0
            }
          )
          if (decision.retry) {
            // Any length: the client's time budget decides whether it is waited.
            expect(decision.waitMs).toBeGreaterThanOrEqual(0)
            expect(decision.reason).not.toMatch(/Invalid|NaN/)
          } else expect(decision.reason).toMatch(/not retryable|gave up after/)
        }
      }),
      { numRuns: 3000 }
    )
  })
})
