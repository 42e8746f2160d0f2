import { deploymentRecordSchema, storageRecordSchema } from '../../src/service/artifacts.js'

test('a deployment record keeps unknown fields and reads `created` as created_at', () => {
  const record = deploymentRecordSchema.parse({
    id: 7,
    created: '2026-01-01T00:00:00Z',
    new_field: { x: 1 },
    cluster: null
  })
  expect(record).toEqual({
    id: 7,
    created: '2026-01-01T00:00:00Z',
    created_at: '2026-01-01T00:00:00Z',
    new_field: { x: 1 },
    cluster: null
  })
})

test('created_at wins when both are present', () => {
  expect(deploymentRecordSchema.parse({ id: 1, created: 'a', created_at: 'b' }).created_at).toBe(
    'b'
  )
})

test('a storage record keeps unknown fields', () => {
  expect(storageRecordSchema.parse({ id: 2, status: 'active', size: 3 })).toEqual({
    id: 2,
    status: 'active',
    size: 3
  })
})

test('a record without an id, or with nulls, is read: the description requires none of its fields', () => {
  expect(deploymentRecordSchema.safeParse({ digest: 'sha256:x' }).success).toBe(true)
  expect(
    storageRecordSchema.safeParse({ name: 'a', artifact_url: null, repository: null }).success
  ).toBe(true)
})

test('an id of the wrong type is still refused by the reader (a write salvages the rest)', () => {
  expect(deploymentRecordSchema.safeParse({ id: '7' }).success).toBe(false)
})
