import { encodeSegment, path, withQuery } from '../../src/client/paths.js'

test.each([
  ['a/b', 'a%2Fb'],
  ['deployed:production', 'deployed%3Aproduction'],
  ['a b', 'a%20b'],
  ['100%', '100%25'],
  ['?x#y', '%3Fx%23y'],
  ['🚀 shipped', '%F0%9F%9A%80%20shipped'],
  ['.', '%2E'],
  ['..', '%2E%2E'],
  ['v1.2', 'v1.2'],
  ['%2e%2e', '%252e%252e']
])('segment %j is %s', (value, encoded) => {
  expect(encodeSegment(value)).toBe(encoded)
})

test('each value is one segment of the path', () => {
  expect(path`/repos/${'acme'}/${'web'}/labels/${'team/web'}`).toBe(
    '/repos/acme/web/labels/team%2Fweb'
  )
  expect(path`/repos/${'acme'}/${'..'}/issues/${12}/labels`).toBe(
    '/repos/acme/%2E%2E/issues/12/labels'
  )
})

test('an empty segment is refused rather than collapsing the path', () => {
  expect(() => path`/repos/${''}/x`).toThrow(/empty/)
})

test('query values are encoded', () => {
  expect(withQuery('/x', { per_page: 100, q: 'a&b', skip: undefined })).toBe(
    '/x?per_page=100&q=a%26b'
  )
  expect(withQuery('/x?a=1', { b: 2 })).toBe('/x?a=1&b=2')
})
