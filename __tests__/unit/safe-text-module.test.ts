/**
 * Issue 38: one module decides what text is safe (src/shared/untrusted.ts). Which characters are
 * control characters is written there once, and read by the log's escapes, the names' refusals
 * and the binary-file guess; whether a file looks like YAML is decided there once, and read by the
 * messages about `deployments-file` / `state-file` (text.ts) and about `kubernetes-file`
 * (sniff.ts), which therefore say the same of the same file.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { notJsonHint } from '../../src/cluster/kubernetes/sniff.js'
import { notJsonReason } from '../../src/shared/text.js'
import {
  hasControlCharacters,
  looksBinary,
  looksLikeYaml,
  showControls
} from '../../src/shared/untrusted.js'
import { projectRoot } from '../../scripts/run-action.js'

const SRC = join(projectRoot(), 'src')

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : []
  )
}

test('no module but untrusted.ts writes a class of control characters or a YAML pattern', () => {
  const patterns = [
    /\\u00[0-9a-f]{2}-\\u00[0-9a-f]{2}/i, // a range of control characters in a pattern
    /\\x[01][0-9a-f]-\\x/i,
    /<\s*0x20\b/, // a code compared with the first character that is not C0
    /%YAML/ // a YAML document marker in a pattern
  ]
  const found = sources(SRC)
    .filter(path => relative(SRC, path) !== 'shared/untrusted.ts')
    .flatMap(path =>
      readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          patterns.some(p => p.test(line))
            ? [`${relative(SRC, path)}:${i + 1}: ${line.trim()}`]
            : []
        )
    )
  expect(found).toEqual([])
})

describe('YAML is detected once: the state and deployments files and kubernetes-file say the same', () => {
  const yamlOf = (text: string) => ({
    text: notJsonReason(text, new Error('Unexpected token')).includes('it looks like YAML'),
    kubernetes: notJsonHint(Buffer.from(text))?.startsWith('is YAML') ?? false
  })
  test.each([
    ['kubectl -o yaml', 'apiVersion: v1\nkind: List\n', true],
    ['a document marker', '---\nitems: []\n', true],
    ['a list', '- name: web\n', true],
    ['comment lines first', '# the cluster\n# hourly\napiVersion: v1\n', true],
    ['a key without a space after its colon', 'token:abc123\n', false],
    ['a URL', 'https://example.com/x\n', false],
    ['a shell script', '#!/bin/sh\necho hi\n', false],
    ['JSON', '{"a": 1}', false]
  ])('%s', (_what, text, yaml) => {
    expect(looksLikeYaml(text)).toBe(yaml)
    expect(yamlOf(text)).toEqual({ text: yaml, kubernetes: yaml })
  })
})

test('control characters are one list: what a name refuses the log escapes, and binary is a subset', () => {
  const refused: string[] = []
  for (let code = 0; code <= 0x3000; code++) {
    const char = String.fromCharCode(code)
    if (hasControlCharacters(char)) {
      refused.push(char)
      expect(showControls(char)).not.toBe(char)
    }
    if (looksBinary(char)) expect(hasControlCharacters(char)).toBe(true)
  }
  expect(refused).toHaveLength(0x20 + 1) // C0 and DEL
  expect(['\t', '\n', '\v', '\f', '\r', '\u007f'].filter(looksBinary)).toEqual([])
  expect(hasControlCharacters('a\tb\nc', '\t\n')).toBe(false)
  expect(hasControlCharacters('a\tb\rc', '\t\n')).toBe(true)
})
