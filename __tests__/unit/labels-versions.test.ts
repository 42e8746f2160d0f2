/** Release tags in version order: which tags name versions, semver's order, the previous release. */
import {
  compareVersions,
  parseVersion,
  previousRelease,
  type Version
} from '../../src/labels/versions.js'

const v = (name: string) => parseVersion(name) as Version

test('tags of the forms v1.2.3, 1.2.3 and app-v1.2.3 name versions; others do not', () => {
  expect(v('v1.2.3')).toMatchObject({ prefix: 'v', core: [1, 2, 3], pre: [] })
  expect(v('1.2.3')).toMatchObject({ prefix: '', core: [1, 2, 3] })
  expect(v('app-v10.0.1-rc.2+build.7')).toMatchObject({
    prefix: 'app-v',
    core: [10, 0, 1],
    pre: ['rc', 2]
  })
  expect(v('api2-v1.0.0').prefix).toBe('api2-v')
  for (const name of ['v1.2', 'nightly', 'v1.2.3.4', 'v1.2.3-', 'release-3.x', '1.2.3-beta..1'])
    expect(parseVersion(name)).toBeUndefined()
})

test('semver order: pre-releases before their release, numeric identifiers before others', () => {
  const ordered = [
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-alpha.beta',
    '1.0.0-beta',
    '1.0.0-beta.2',
    '1.0.0-beta.11',
    '1.0.0-rc.1',
    '1.0.0',
    '1.0.1',
    '1.2.0',
    '1.10.0',
    '2.0.0'
  ]
  const shuffled = [...ordered].reverse()
  expect(
    shuffled
      .map(v)
      .sort(compareVersions)
      .map(x => x.name)
  ).toEqual(ordered)
  expect(compareVersions(v('1.0.0+a'), v('1.0.0+b'))).toBe(0)
})

test('the previous release: the highest version below, among tags of the same prefix', () => {
  const tags = ['v3.18.5', 'v3.18.6', 'v3.19.0', 'v3.20.0-dev', 'dev-v3.18.9', 'app-v3.18.8']
  expect(previousRelease(v('v3.19.0'), [...tags, 'nightly'])).toBe('v3.18.6')
  expect(previousRelease(v('v3.18.6'), tags)).toBe('v3.18.5')
  expect(previousRelease(v('v3.18.5'), tags)).toBeUndefined()
  expect(previousRelease(v('app-v3.19.0'), tags)).toBe('app-v3.18.8')
  // A release's previous release may be its own pre-release.
  expect(
    previousRelease(v('v5.0.0'), ['4.20.0', 'v4.19.0', 'v5.0.0-beta.3', 'v5.0.0-beta.2'])
  ).toBe('v5.0.0-beta.3')
  expect(previousRelease(v('v3.21.0'), tags)).toBe('v3.20.0-dev')
})

test('a `v` before the numbers is optional: one form, whichever tags carry it (expressjs/express)', () => {
  const tags = ['v5.0.0-beta.1', '5.0.0-beta.2', 'v5.0.0-beta.3', '4.22.0', 'v4.22.1', 'app-4.0.0']
  expect(previousRelease(v('v5.0.0-beta.3'), tags)).toBe('5.0.0-beta.2')
  expect(previousRelease(v('5.0.0-beta.2'), tags)).toBe('v5.0.0-beta.1')
  expect(previousRelease(v('v4.22.1'), tags)).toBe('4.22.0')
  expect(previousRelease(v('V4.22.2'), tags)).toBe('v4.22.1')
  expect(previousRelease(v('app-v4.1.0'), tags)).toBe('app-4.0.0')
  expect(previousRelease(v('dev-4.1.0'), tags)).toBeUndefined()
})
