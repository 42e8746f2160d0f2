import { isSafeRef, parseLabelInputs, type LabelRawInputs } from '../../src/labels/inputs.js'

const parse = (raw: LabelRawInputs) => parseLabelInputs(raw)
const inputsOf = (result: ReturnType<typeof parse>) => result.problems.map(p => p.input)

test('nothing to do without labels or remove-labels; the runner defaults are fine', () => {
  expect(parse({})).toEqual({ problems: [] })
  expect(
    parse({ 'pull-requests': 'auto', 'label-linked-issues': 'false', labels: ' ', since: '' })
  ).toEqual({ problems: [] })
})

test('lists are split, trimmed and deduplicated case-insensitively; defaults filled', () => {
  const { value, problems } = parse({
    labels: 'deployed:production, Deployed:Production,team/web,,a b',
    'remove-labels': 'deployed:staging'
  })
  expect(problems).toEqual([])
  expect(value).toEqual({
    labels: ['deployed:production', 'team/web', 'a b'],
    removeLabels: ['deployed:staging'],
    pullRequests: 'auto',
    labelLinkedIssues: false
  })
})

test('label names with commas: several lines are one name per line, commas kept; \\, on one line', () => {
  const lines = parse({
    labels: 'needs review, urgent\n  deployed:production \n\nNeeds Review, Urgent'
  })
  expect(lines.problems).toEqual([])
  expect(lines.value?.labels).toEqual(['needs review, urgent', 'deployed:production'])
  const oneLine = parse({
    labels: 'needs review\\, urgent, deployed:production',
    'remove-labels': 'a\\,b'
  })
  expect(oneLine.value?.labels).toEqual(['needs review, urgent', 'deployed:production'])
  expect(oneLine.value?.removeLabels).toEqual(['a,b'])
  // One line without an escape stays comma-separated, as before.
  expect(parse({ labels: 'a, b' }).value?.labels).toEqual(['a', 'b'])
})

test('description length is counted in code points, as the service counts it', () => {
  // 100 emoji are 200 UTF-16 units: still 100 characters.
  const emoji = '🚀'.repeat(100)
  expect(parse({ labels: 'x', 'label-description': emoji }).value?.description).toBe(emoji)
  const over = parse({ labels: 'x', 'label-description': '🚀'.repeat(101) })
  expect(over.problems[0]?.message).toBe('is 101 characters long; at most 100 are allowed')
})

test('color is taken with or without # in any case and kept as 6 lower-case hex digits', () => {
  for (const color of ['0E8A16', '#0e8a16', ' #0E8a16 ']) {
    expect(parse({ labels: 'x', 'label-color': color }).value?.color).toBe('0e8a16')
  }
  for (const color of ['0e8a1', '#0e8a16f', 'green', '##0e8a16', 'fff']) {
    const result = parse({ labels: 'x', 'label-color': color })
    expect(result.value).toBeUndefined()
    expect(inputsOf(result)).toEqual(['label-color'])
  }
})

test('description: at most 100 characters, no control characters', () => {
  expect(parse({ labels: 'x', 'label-description': 'd'.repeat(100) }).value?.description).toBe(
    'd'.repeat(100)
  )
  const long = parse({ labels: 'x', 'label-description': 'd'.repeat(101) })
  expect(long.problems).toEqual([
    { input: 'label-description', message: expect.stringMatching(/101 characters.*at most 100/) }
  ])
  expect(inputsOf(parse({ labels: 'x', 'label-description': 'a\u0007b' }))).toEqual([
    'label-description'
  ])
})

test('label-color and label-description without labels are problems', () => {
  const result = parse({
    'remove-labels': 'deployed:staging',
    'label-color': '0e8a16',
    'label-description': 'Shipped'
  })
  expect(result.value).toBeUndefined()
  expect(inputsOf(result)).toEqual(['label-color', 'label-description'])
  expect(inputsOf(parse({ 'label-color': 'ededed' }))).toEqual(['label-color'])
})

test('a label both to add and to remove is a problem, whatever its case', () => {
  const result = parse({ labels: 'Deployed:Staging', 'remove-labels': 'deployed:staging' })
  expect(result.value).toBeUndefined()
  expect(result.problems).toEqual([
    { input: 'remove-labels', message: expect.stringContaining('deployed:staging') }
  ])
})

test('pull-requests: auto, none, or numbers; bad numbers are problems naming the item', () => {
  expect(parse({ labels: 'x', 'pull-requests': 'AUTO' }).value?.pullRequests).toBe('auto')
  expect(parse({ labels: 'x', 'pull-requests': 'none' }).value?.pullRequests).toBe('none')
  expect(parse({ labels: 'x', 'pull-requests': '12, #14\n12' }).value?.pullRequests).toEqual([
    12, 14
  ])
  for (const bad of ['0', '-3', '1.5', 'twelve', '12abc', '99999999999']) {
    const result = parse({ labels: 'x', 'pull-requests': `12, ${bad}` })
    expect(result.value).toBeUndefined()
    expect(result.problems).toEqual([
      { input: 'pull-requests', message: expect.stringContaining(`\`${bad}\``) }
    ])
  }
})

test('since must be a plain ref or sha, and only goes with pull-requests: auto', () => {
  expect(parse({ labels: 'x', since: 'v1.2.0' }).value?.since).toBe('v1.2.0')
  expect(parse({ labels: 'x', since: 'web@1.2.0' }).value?.since).toBe('web@1.2.0')
  for (const bad of ['--output=/tmp/x', 'a..b', 'v1 v2', 'HEAD~3', 'main^', 'x@{1}']) {
    expect(inputsOf(parse({ labels: 'x', since: bad }))).toEqual(['since'])
  }
  expect(inputsOf(parse({ labels: 'x', since: 'v1', 'pull-requests': '12' }))).toEqual(['since'])
})

test('label-linked-issues is a boolean', () => {
  expect(parse({ labels: 'x', 'label-linked-issues': 'TRUE' }).value?.labelLinkedIssues).toBe(true)
  expect(inputsOf(parse({ labels: 'x', 'label-linked-issues': 'yes' }))).toEqual([
    'label-linked-issues'
  ])
})

test('inputs that only make sense with labels are problems without them', () => {
  const result = parse({ 'pull-requests': '12', since: 'v1', 'label-linked-issues': 'true' })
  expect(inputsOf(result).sort()).toEqual([
    'label-linked-issues',
    'pull-requests',
    'since',
    'since'
  ])
})

test('every problem at once', () => {
  const result = parse({
    labels: 'a',
    'remove-labels': 'A',
    'label-color': 'red',
    'pull-requests': 'x'
  })
  expect(inputsOf(result).sort()).toEqual(['label-color', 'pull-requests', 'remove-labels'])
})

test('isSafeRef', () => {
  expect(isSafeRef('refs/tags/v1.0.0')).toBe(true)
  expect(isSafeRef('a'.repeat(40))).toBe(true)
  expect(isSafeRef('-x')).toBe(false)
  expect(isSafeRef('a\nb')).toBe(false)
})

test('paths: globs split like labels, order kept; each bad pattern named; only with pull-requests: auto', () => {
  const given = parse({ labels: 'deployed:web', paths: 'web/**\n!web/docs/**\nweb/docs/api.md' })
  expect(given.problems).toEqual([])
  expect(given.value?.paths?.patterns.map(p => [p.source, p.negated])).toEqual([
    ['web/**', false],
    ['!web/docs/**', true],
    ['web/docs/api.md', false]
  ])
  expect(parse({ labels: 'a', paths: 'web/**, api/**' }).value?.paths?.patterns).toHaveLength(2)
  expect(parse({ labels: 'a', paths: ' ' }).value?.paths).toBeUndefined()
  const bad = parse({ labels: 'a', paths: 'web/[a-, /api/**' })
  expect(bad.value).toBeUndefined()
  expect(bad.problems).toEqual([
    {
      input: 'paths',
      message: '`web/[a-` has a `[` without its `]` (`\\[` is the character itself)'
    },
    {
      input: 'paths',
      message:
        "`/api/**` starts with `/` or `./`: patterns start at the repository's root without it (`api/**`)"
    }
  ])
  expect(parse({ labels: 'a', 'pull-requests': '12', paths: 'web/**' }).problems).toEqual([
    { input: 'paths', message: 'only applies to `pull-requests: auto`' }
  ])
  expect(parse({ paths: 'web/**' }).problems).toEqual([
    { input: 'paths', message: 'has nothing to do without `labels` or `remove-labels`' }
  ])
})
