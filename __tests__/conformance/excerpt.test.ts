/**
 * The conformance tests read an excerpt of the pinned published description, not the 385 MB
 * package. Here: the excerpt is that package's, byte for byte, when the package is in this
 * checkout (node_modules or .tmp/openapi, where `node scripts/openapi-excerpt.mjs --check`
 * fetches it; CI runs that), and in any case it holds every endpoint the action calls, each
 * reference resolving inside it.
 */
import { readFileSync } from 'node:fs'
// @ts-expect-error: a plain ES module script without types
import * as script from '../../scripts/openapi-excerpt.mjs'

const { EXCERPT, TEMPLATES, VERSION, excerpt, findDescription } = script as {
  EXCERPT: string
  TEMPLATES: string[]
  VERSION: string
  excerpt: (doc: unknown) => unknown
  findDescription: () => string | undefined
}
const committed = readFileSync(EXCERPT, 'utf8')
const doc = JSON.parse(committed) as {
  'x-excerpt': { of: string }
  paths: Record<string, unknown>
}

test('the excerpt names the pinned version and holds every endpoint the action calls', () => {
  expect(doc['x-excerpt'].of).toBe(`@octokit/openapi@${VERSION} generated/api.github.com.json`)
  expect(Object.keys(doc.paths)).toEqual(TEMPLATES)
  const refs = [...committed.matchAll(/"\$ref": "#\/([^"]+)"/g)].map(m => m[1] ?? '')
  expect(refs.length).toBeGreaterThan(0)
  const unresolved = refs.filter(ref => {
    let target: unknown = doc
    for (const part of ref.split('/')) target = (target as Record<string, unknown>)?.[part]
    return target === undefined
  })
  expect(unresolved).toEqual([])
})

const description = findDescription()
;(description ? test : test.skip)(
  `the excerpt is what the pinned package publishes (${description ?? 'package not in this checkout; CI fetches it'})`,
  () => {
    const whole = JSON.parse(readFileSync(description ?? '', 'utf8')) as unknown
    expect(JSON.stringify(excerpt(whole), null, 1) + '\n').toBe(committed)
  }
)
