/**
 * One wording for what a cut list leaves out, "... and N more" (src/runner/markdown.ts), at its
 * boundary: exactly as many as are shown gives no tail, one more gives "... and 1 more"; the
 * summary's rows, the rejected deployments of an image and the kubectl warnings say it the same way.
 */
import { describeSkipped } from '../../src/cluster/rejections.js'
import { NAMED_IN_WARNING, namedList } from '../../src/cluster/kubernetes/choose.js'
import {
  andMore,
  firstRows,
  MAX_SUMMARY_ROWS,
  moreInOutput,
  namedAndMore
} from '../../src/runner/markdown.js'

const names = (n: number) => Array.from({ length: n }, (_, i) => `n${i + 1}`)

test('andMore: "... and N more", with what they are when given', () => {
  expect(andMore(4)).toBe('... and 4 more')
  expect(andMore(30, 'problems')).toBe('... and 30 more problems')
})

test('namedAndMore: as many as shown, no tail; one more, "... and 1 more"', () => {
  expect(namedAndMore(names(3), 3)).toBe('n1, n2, n3')
  expect(namedAndMore(names(4), 3)).toBe('n1, n2, n3, ... and 1 more')
  expect(namedAndMore(names(2), 3)).toBe('n1, n2')
  expect(namedAndMore(names(7), 5, '; ')).toBe('n1; n2; n3; n4; n5; ... and 2 more')
})

test('the deployments of a rejected image: three named, then "... and N more"', () => {
  const items = names(4).map(n => ({ name: 'ghcr.io/acme/web', deployment_name: n }))
  const rejected = { name: 'ghcr.io/acme/web', cause: 'not_found' } as never
  expect(describeSkipped(rejected, items.slice(0, 3))).toContain(
    'of image ghcr.io/acme/web (n1, n2, n3) was not recorded'
  )
  expect(describeSkipped(rejected, items)).toContain(
    'of image ghcr.io/acme/web (n1, n2, n3, ... and 1 more) was not recorded'
  )
})

test('a kubectl warning names NAMED_IN_WARNING, then "... and N more"', () => {
  expect(namedList(names(NAMED_IN_WARNING))).toBe(names(NAMED_IN_WARNING).join('; '))
  expect(namedList(names(NAMED_IN_WARNING + 1))).toBe(
    `${names(NAMED_IN_WARNING).join('; ')}; ... and 1 more`
  )
})

test('the summary: MAX_SUMMARY_ROWS rows whole; one more is counted, in the same words', () => {
  const line = (n: string) => `- ${n}`
  expect(firstRows(names(MAX_SUMMARY_ROWS), line)).toHaveLength(MAX_SUMMARY_ROWS)
  expect(firstRows(names(MAX_SUMMARY_ROWS + 1), line).at(-1)).toBe('- ... and 1 more in the log')
  expect(moreInOutput(MAX_SUMMARY_ROWS, 'errors')).toEqual([])
  expect(moreInOutput(MAX_SUMMARY_ROWS + 1, 'errors')).toEqual([
    '',
    '... and 1 more in the `errors` output (`truncated` counts any it could not hold).'
  ])
})
