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

test('a record without an id is refused', () => {
  expect(deploymentRecordSchema.safeParse({ digest: 'sha256:x' }).success).toBe(false)
})
