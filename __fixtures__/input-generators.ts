/**
 * The hostile values input-properties.test.ts feeds the input parsers (fast-check arbitraries):
 * tricky strings, odd characters, JSON objects with prototype keys, deployment items of wrong
 * types. The seed is set by the test file (`fc.configureGlobal`).
 */
import fc from 'fast-check'
import { DEPLOYMENT_STATUSES, RUNTIME_RISKS } from '../src/shared/limits.js'
import { DIGEST } from './emulator.js'

export const TRICKY = [
  '',
  ' ',
  '\t',
  '\n\n',
  'true',
  'TRUE',
  'false',
  'yes',
  '0',
  '-1',
  '3.0',
  ' 3 ',
  '10',
  '11',
  '1e3',
  'NaN',
  'Infinity',
  '0x10',
  '{}',
  '[]',
  'null',
  '"x"',
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '[{"__proto__":{"polluted":"yes"}}]',
  '..',
  '.',
  '%2e%2e',
  '%2F',
  '../../etc/passwd',
  'a/b',
  'a?b=c',
  'a#b',
  'a b',
  'ünïcødé',
  '\u202eevil',
  '\ufeffbom',
  '\u0000',
  '\u001b[31m',
  '\u007f',
  'http://localhost:1',
  'http://127.0.0.1:8080/api',
  'http://[::1]:1',
  'http://localhost.evil.com',
  'http://127.0.0.1.nip.io',
  'http://evil.com',
  'https://api.github.com/',
  'https://user:pw@api.github.com',
  'https://api.github.com/?q=1',
  'javascript:alert(1)',
  'file:///etc/passwd',
  'ftp://x',
  DIGEST,
  DIGEST.toUpperCase(),
  `ghcr.io/acme/web@${DIGEST}`,
  'sha512:' + 'a'.repeat(128),
  'a'.repeat(64),
  '${{ secrets.GITHUB_TOKEN }}',
  '$(touch /tmp/pwned)',
  '`id`',
  'deployed',
  'decommissioned',
  'active',
  'eol',
  'critical-resource,internet-exposed',
  'critical-resource\ncritical-resource',
  'a=b,c=d',
  '=b',
  'a=',
  'k=v\nk=w',
  'acme/web',
  'acme/web/extra',
  '-acme/web',
  '2026-03-10',
  '2026-3-10',
  'auto',
  'sync',
  'job',
  '21600',
  '21601',
  '/etc/passwd',
  'deployments.json'
]

export const ODD_CHARS = fc.constantFrom(
  '\u0000',
  '\u0007',
  '\u001b',
  '\u007f',
  '\r',
  '\n',
  '\t',
  ' ',
  ',',
  '=',
  '/',
  '.',
  '%',
  '"',
  '{',
  '}',
  '\u2028',
  '\ufeff',
  '\u202e',
  'é',
  '😀',
  'a',
  'Z',
  '0',
  '-',
  '_'
)

/** `{"k": v, ...}` written by hand, so that `__proto__` stays an own key of the JSON text. */
export const jsonObjectText = (value: fc.Arbitrary<unknown>) =>
  fc
    .array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'),
          fc.string({ maxLength: 8 })
        ),
        value
      ),
      { maxLength: 8 }
    )
    .map(
      pairs => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`
    )

export const hostile = (valid: string) =>
  fc.oneof(
    fc.constantFrom(...TRICKY),
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ unit: ODD_CHARS, maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.jsonValue({ maxDepth: 2 }).map(v => JSON.stringify(v) ?? ''),
    jsonObjectText(fc.jsonValue({ maxDepth: 1 })),
    // Near misses of a valid value: the likeliest shape of a real mistake.
    fc
      .tuple(
        fc.string({ unit: ODD_CHARS, maxLength: 3 }),
        fc.string({ unit: ODD_CHARS, maxLength: 3 })
      )
      .map(([a, b]) => a + valid + b),
    fc.integer({ min: 0, max: Math.max(0, valid.length) }).map(n => valid.slice(0, n)),
    fc.constant(valid.toUpperCase())
  )

export const itemArbitrary = fc
  .record(
    {
      name: fc.oneof(fc.constant('ghcr.io/acme/web'), fc.jsonValue({ maxDepth: 1 })),
      digest: fc.oneof(fc.constant(DIGEST), fc.constant(DIGEST.toUpperCase()), fc.string()),
      deployment_name: fc.oneof(fc.constantFrom('web', 'api', '__proto__'), fc.string()),
      version: fc.oneof(fc.constant('1.0'), fc.jsonValue({ maxDepth: 1 })),
      status: fc.oneof(fc.constantFrom(...DEPLOYMENT_STATUSES), fc.string()),
      github_repository: fc.oneof(fc.constantFrom('web', 'acme/web', '..'), fc.string()),
      tags: fc.oneof(
        fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 7 }),
        fc.jsonValue({ maxDepth: 2 })
      ),
      runtime_risks: fc.oneof(
        fc.array(fc.constantFrom(...RUNTIME_RISKS), { maxLength: 5 }),
        fc.jsonValue({ maxDepth: 1 })
      )
    },
    { requiredKeys: [] }
  )
  .map(item => JSON.stringify(item))

/** Items as JSON text, some with `__proto__` / `constructor` as own keys (item or tags). */
export const itemText = fc.oneof(
  itemArbitrary,
  fc
    .tuple(
      fc.constantFrom('web', 'api', 'db'),
      fc.constantFrom('__proto__', 'constructor', 'prototype'),
      fc.jsonValue({ maxDepth: 2 })
    )
    .map(
      ([name, key, value]) =>
        `{"name":"n","digest":"${DIGEST}","deployment_name":"${name}",` +
        `"tags":{${JSON.stringify(key)}:${JSON.stringify(value)},"a":"b"}}`
    ),
  fc
    .constantFrom('__proto__', 'constructor')
    .map(
      key =>
        `{"name":"n","digest":"${DIGEST}","deployment_name":"x",${JSON.stringify(key)}:{"polluted":"yes"}}`
    )
)

export const deploymentsText = fc.oneof(
  fc.array(itemText, { maxLength: 6 }).map(items => `[${items.join(',')}]`),
  fc.jsonValue({ maxDepth: 3 }).map(v => JSON.stringify(v) ?? ''),
  jsonObjectText(fc.jsonValue({ maxDepth: 2 })),
  fc.string({ maxLength: 30 })
)
