/**
 * The one image reader (src/inputs/image.ts), over image references generated from their parts:
 * registry (with a port, localhost, an IP), nested paths, tag, digest (upper- or lower-case hex),
 * tag and digest. The expectation is put together from the generated parts, never by the reader.
 * The `digest` input and the kubectl path read the same references the same way.
 */
import fc from 'fast-check'
import {
  deriveItems,
  nameAndVersion,
  type KubeObject
} from '../../src/cluster/kubernetes/derive.js'
import { parseInputs } from '../../src/step/parse-inputs.js'

fc.configureGlobal({ seed: Number(process.env['FC_SEED'] ?? 20261123) })

const lowerAlnum = fc.stringMatching(/^[a-z0-9]{1,8}$/)
const host = fc.oneof(
  fc.array(lowerAlnum, { minLength: 2, maxLength: 4 }).map(labels => labels.join('.')),
  fc.constant('localhost'),
  fc
    .tuple(
      fc.integer({ min: 1, max: 254 }),
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 1, max: 254 })
    )
    .map(parts => parts.join('.'))
)
const registry = fc.option(
  fc
    .tuple(host, fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }))
    .map(([name, port]) => (port === undefined ? name : `${name}:${port}`)),
  { nil: undefined }
)
/** A path component as the distribution spec has it: alphanumerics joined by `.`, `_`, `__` or `-`. */
const component = fc
  .array(fc.tuple(lowerAlnum, fc.constantFrom('.', '_', '__', '-', '--')), {
    minLength: 1,
    maxLength: 3
  })
  .map(parts => parts.map(([word, sep], i) => (i < parts.length - 1 ? word + sep : word)).join(''))
const path = fc.array(component, { minLength: 1, maxLength: 4 }).map(parts => parts.join('/'))
/** A tag: `[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`; the `digest` input takes the first 100 as a version. */
const tag = (max: number) =>
  fc.option(fc.stringMatching(new RegExp(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,${max - 1}}$`)), {
    nil: undefined
  })
const hex = fc
  .array(fc.constantFrom(...'0123456789abcdefABCDEF'), { minLength: 64, maxLength: 64 })
  .map(chars => chars.join(''))

const reference = (maxTag: number) =>
  fc.record({ registry, path, tag: tag(maxTag), hex: fc.option(hex, { nil: undefined }) })
type Parts = { registry?: string; path: string; tag?: string; hex?: string }
const image = (p: Parts) =>
  `${p.registry ? `${p.registry}/` : ''}${p.path}${p.tag !== undefined ? `:${p.tag}` : ''}`
const written = (p: Parts) => `${image(p)}${p.hex ? `@sha256:${p.hex}` : ''}`
const expectedName = (p: Parts) => `${p.registry ? `${p.registry}/` : ''}${p.path}`

test('the reader: the name without tag or digest, the tag as version; a port is not a tag', () => {
  fc.assert(
    fc.property(reference(128), parts => {
      expect(nameAndVersion(written(parts))).toEqual({
        name: expectedName(parts),
        ...(parts.tag !== undefined ? { version: parts.tag } : {})
      })
    }),
    { numRuns: 2000 }
  )
})

test('the `digest` input: name and version from its image, the digest lower-cased', () => {
  fc.assert(
    fc.property(reference(100), hex, (parts, digestHex) => {
      const inputs = parseInputs(
        {
          token: 't',
          repository: 'acme/web',
          digest: `${image(parts)}@sha256:${digestHex}`,
          environment: 'production'
        },
        {}
      )
      expect(inputs.artifact).toEqual({
        name: expectedName(parts),
        digest: `sha256:${digestHex.toLowerCase()}`,
        ...(parts.tag !== undefined ? { version: parts.tag } : {})
      })
      // The deployment name is the last path segment, without tag.
      expect(inputs.deployment?.deploymentName).toBe(parts.path.split('/').pop())
    }),
    { numRuns: 500 }
  )
})

test('the kubectl path reads a container image the same way', () => {
  fc.assert(
    fc.property(reference(128), hex, (parts, digestHex) => {
      const pod: KubeObject = {
        kind: 'Pod',
        namespace: 'shop',
        name: 'web-7d9f-abcde',
        owners: [{ kind: 'DaemonSet', name: 'web' }],
        annotations: [],
        pod: {
          phase: 'Running',
          created: '2026-11-23T10:00:00Z',
          containers: [{ name: 'app', image: written(parts) }],
          imageIds: { app: `${image(parts)}@sha256:${digestHex}` }
        }
      }
      const [item] = deriveItems([pod], '{{namespace}}/{{deploymentName}}/{{containerName}}').items
      expect(item).toEqual({
        name: expectedName(parts),
        ...(parts.tag !== undefined ? { version: parts.tag } : {}),
        digest: `sha256:${digestHex.toLowerCase()}`,
        deployment_name: 'shop/web/app'
      })
    }),
    { numRuns: 500 }
  )
})

test('a tag longer than a version may be is named, with what to set', () => {
  const long = 'v'.repeat(101)
  expect(() =>
    parseInputs(
      {
        token: 't',
        repository: 'acme/web',
        digest: `ghcr.io/acme/web:${long}@sha256:${'a'.repeat(64)}`,
        environment: 'production'
      },
      {}
    )
  ).toThrow(/version: is taken from the tag of `digest`, `v+`, which is not a version .*; set it/)
})
