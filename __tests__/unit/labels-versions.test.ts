/** Release tags in version order: which tags name versions, semver's order, the previous release. */
import {
  compareVersions,
  parseVersion,
  previousRelease,
  type Version
} from '../../src/labels/versions.js'

const v = (name: string) => parseVersion(name) as Version

test('tags of the forms v1.2.3, 1.2.3, app-v1.2.3, v6.1 and 2022.06.22.1 name versions; others do not', () => {
  expect(v('v1.2.3')).toMatchObject({ prefix: 'v', core: [1, 2, 3], pre: [] })
  expect(v('1.2.3')).toMatchObject({ prefix: '', core: [1, 2, 3] })
  expect(v('app-v10.0.1-rc.2+build.7')).toMatchObject({
    prefix: 'app-v',
    core: [10, 0, 1],
    pre: ['rc', 2]
  })
  expect(v('api2-v1.0.0').prefix).toBe('api2-v')
  expect(v('v6.1')).toMatchObject({ prefix: 'v', core: [6, 1], pre: [] })
  expect(v('2022.06.22.1')).toMatchObject({ prefix: '', core: [2022, 6, 22, 1] })
  // A pre-release straight after the numbers, as Python projects and jq tag.
  expect(v('jq-1.7rc1')).toMatchObject({ prefix: 'jq-', core: [1, 7], pre: ['rc1'] })
  expect(v('2024.9.0b2')).toMatchObject({ prefix: '', core: [2024, 9, 0], pre: ['b2'] })
  for (const name of [
    'v1',
    'nightly',
    'v1.2.3.4.5',
    'v1.2.3-',
    'release-3.x',
    '1.2.3-beta..1',
    '1.2.3_1'
  ])
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

const previous = (current: string, tags: string[]) => previousRelease(v(current), tags)?.name

test('the previous release: the highest version below, among tags of the same prefix', () => {
  const tags = ['v3.18.5', 'v3.18.6', 'v3.19.0', 'v3.20.0-dev', 'dev-v3.18.9', 'app-v3.18.8']
  expect(previous('v3.19.0', [...tags, 'nightly'])).toBe('v3.18.6')
  expect(previous('v3.18.6', tags)).toBe('v3.18.5')
  expect(previous('v3.18.5', tags)).toBeUndefined()
  expect(previous('app-v3.19.0', tags)).toBe('app-v3.18.8')
  // A pre-release starts at the highest tag below it, pre-release or final.
  expect(previous('v3.21.0-rc.1', tags)).toBe('v3.20.0-dev')
})

test('a final release starts at the previous final release, its release candidates skipped', () => {
  const tags = ['v4.19.0', 'v5.0.0-beta.2', 'v5.0.0-beta.3', 'v5.0.0-rc.1', 'v5.0.0', 'v3.20.0-dev']
  expect(previousRelease(v('v5.0.0'), tags)).toEqual({
    name: 'v4.19.0',
    skipped: ['v5.0.0-beta.2', 'v5.0.0-beta.3', 'v5.0.0-rc.1'],
    notVersions: []
  })
  // A pre-release: the highest tag below it, pre-release or final.
  expect(previous('v5.0.0-rc.1', tags)).toBe('v5.0.0-beta.3')
  expect(previous('v5.0.0-beta.2', tags)).toBe('v4.19.0')
  // The next final skips nothing it need not: v5.0.0 is final.
  expect(previousRelease(v('v5.0.1'), tags)).toEqual({
    name: 'v5.0.0',
    skipped: [],
    notVersions: []
  })
  // Only pre-releases: none is a final release below a final one.
  expect(previous('v1.0.0', ['v1.0.0-rc.1', 'v1.0.0-rc.2'])).toBeUndefined()
  // rc2 before rc10, as projects that tag rc1 ... rc10 mean.
  expect(previous('v2.0.0-rc10', ['v2.0.0-rc2', 'v2.0.0-rc9', 'v1.9.0'])).toBe('v2.0.0-rc9')
})

test('two-number tags are versions: v6.1 is 6.1.0; date tags order by their fourth number', () => {
  const tags = ['v6.0.5', 'v6.0.6', 'v6.1', 'v6.1.1', 'v5.18.4', 'v6.0']
  expect(previous('v6.1.1', tags)).toBe('v6.1')
  expect(previous('v6.1.2', tags)).toBe('v6.1.1')
  expect(previous('v6.0.1', tags)).toBe('v6.0')
  expect(previous('v6.2', tags)).toBe('v6.1.1')
  // v6.1 and v6.1.0 are one version: the one that writes more numbers (tauri-v2.0.0, not tauri-v2.0).
  expect(previous('v6.2.0', ['v6.1', 'v6.1.0'])).toBe('v6.1.0')
  expect(previous('tauri-v2.0.1', ['tauri-v2.0', 'tauri-v2.0.0'])).toBe('tauri-v2.0.0')
  // jq and esphome: finals skip the release candidates written without a `-`.
  expect(previousRelease(v('jq-1.7'), ['jq-1.6', 'jq-1.7rc1', 'jq-1.7rc2'])).toEqual({
    name: 'jq-1.6',
    skipped: ['jq-1.7rc1', 'jq-1.7rc2'],
    notVersions: []
  })
  expect(previous('2024.9.0b2', ['2024.8.3', '2024.9.0b1'])).toBe('2024.9.0b1')
  const dates = ['2022.06.21', '2022.06.22', '2022.06.22.1', '2022.06.22.2']
  expect(previous('2022.06.22.1', dates)).toBe('2022.06.22')
  expect(previous('2022.06.22.2', dates)).toBe('2022.06.22.1')
  expect(previous('2022.06.23', dates)).toBe('2022.06.22.2')
})

test('tags passed over as no version that sort between the two releases are named', () => {
  const tags = ['v6.0.6', 'v6.1.0.0.1', 'v6.0.x', 'v7.0.0.0.0', 'v5.x', 'nightly', 'app-v6.0.9.9.9']
  expect(previousRelease(v('v6.1.1'), tags)).toEqual({
    name: 'v6.0.6',
    skipped: [],
    notVersions: ['v6.0.x', 'v6.1.0.0.1']
  })
  // `v6.1-final` is a version: 6.1.0 with a pre-release part, skipped by a final release.
  expect(previousRelease(v('v6.1.1'), ['v6.0.6', 'v6.1-final'])?.skipped).toEqual(['v6.1-final'])
})

test('a `v` before the numbers is optional: one form, whichever tags carry it (expressjs/express)', () => {
  const tags = ['v5.0.0-beta.1', '5.0.0-beta.2', 'v5.0.0-beta.3', '4.22.0', 'v4.22.1', 'app-4.0.0']
  expect(previous('v5.0.0-beta.3', tags)).toBe('5.0.0-beta.2')
  expect(previous('5.0.0-beta.2', tags)).toBe('v5.0.0-beta.1')
  expect(previous('v4.22.1', tags)).toBe('4.22.0')
  expect(previous('V4.22.2', tags)).toBe('v4.22.1')
  expect(previous('app-v4.1.0', tags)).toBe('app-4.0.0')
  expect(previous('dev-4.1.0', tags)).toBeUndefined()
})
