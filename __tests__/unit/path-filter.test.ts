/**
 * The `paths` matcher against the examples of GitHub's filter-pattern cheat sheet ("Patterns to
 * match file paths", workflow syntax for `on.push.paths`): each row's pattern matches the files
 * the table lists, and a few it must not.
 */
import {
  firstIncluded,
  parsePaths,
  pathIncluded,
  splitPatterns,
  type PathFilter
} from '../../src/labels/paths.js'

const filterOf = (value: string): PathFilter => {
  const { filter, problems } = parsePaths(value)
  expect(problems).toEqual([])
  if (!filter) throw new Error(`no filter from ${value}`)
  return filter
}
const matches = (value: string, file: string) => pathIncluded(filterOf(value), file)

describe("GitHub's cheat sheet for paths", () => {
  // [patterns (one per line), files that match, files that do not]
  const rows: [string, string[], string[]][] = [
    ['*', ['README.md', 'server.rb', '.gitignore'], ['docs/README.md', 'a/b']],
    ['*.jsx?', ['page.js', 'page.jsx'], ['page.jsxx', 'page.ts', 'src/page.js']],
    ['**', ['all/the/files.md', 'README.md', '.github/workflows/ci.yml'], []],
    ['*.js', ['app.js', 'index.js'], ['js/index.js', 'app.jsx']],
    ['**.js', ['index.js', 'js/index.js', 'src/js/app.js'], ['index.jsx', 'js/index.ts']],
    ['docs/*', ['docs/README.md', 'docs/file.txt'], ['docs/mona/octocat.txt', 'README.md']],
    ['docs/**', ['docs/README.md', 'docs/mona/octocat.txt', 'docs/.hidden'], ['doc/x', 'a/docs/x']],
    [
      'docs/**/*.md',
      ['docs/README.md', 'docs/mona/hello-world.md', 'docs/a/markdown/file.md'],
      ['docs/a/file.txt', 'README.md']
    ],
    [
      '**/docs/**',
      ['docs/hello.md', 'dir/docs/my-file.txt', 'space/docs/plan/space.doc'],
      ['documents/x', 'dir/mydocs/x']
    ],
    ['**/README.md', ['README.md', 'js/README.md'], ['README.markdown', 'js/READMEmd']],
    ['**/*src/**', ['a/src/app.js', 'my-src/code/js/app.js'], ['src.js', 'a/source/x']],
    ['**/*-post.md', ['my-post.md', 'path/their-post.md'], ['post.md', 'path/post.md']],
    [
      '**/migrate-*.sql',
      ['migrate-10909.sql', 'db/migrate-v1.0.sql', 'db/sept/migrate-v1.sql'],
      ['db/migrate.sql', 'migrate-1.sqlite']
    ],
    ["'*.md'\n!README.md", ['hello.md'], ['README.md', 'docs/hello.md']],
    ['*.md\n!README.md\nREADME*', ['hello.md', 'README.md', 'README.doc'], ['docs/hello.md']],
    // The branch examples' characters, in paths: a class, and `+` repeating what is before it.
    ['[CB]at/*', ['Cat/x', 'Bat/x'], ['cat/x', 'Hat/x']],
    ['v[0-9a-f].txt', ['v1.txt', 'va.txt'], ['vg.txt', 'v10.txt']],
    ['ab+c.txt', ['abc.txt', 'abbbc.txt'], ['ac.txt']]
  ]
  test.each(rows)('%j', (patterns, yes, no) => {
    // The cheat sheet quotes patterns in YAML; the input holds them bare.
    const value = patterns.replace(/'/g, '')
    for (const file of yes) expect([file, matches(value, file)]).toEqual([file, true])
    for (const file of no) expect([file, matches(value, file)]).toEqual([file, false])
  })
})

test('! order: a later pattern overrides an earlier one, either way', () => {
  const web = filterOf('web/**\n!web/docs/**\nweb/docs/api.md')
  expect(pathIncluded(web, 'web/src/app.ts')).toBe(true)
  expect(pathIncluded(web, 'web/docs/guide.md')).toBe(false)
  expect(pathIncluded(web, 'web/docs/api.md')).toBe(true)
  // The same patterns the other way round: the exclusion comes last and wins.
  const reversed = filterOf('web/docs/api.md\n!web/docs/**\nweb/**')
  expect(pathIncluded(reversed, 'web/docs/guide.md')).toBe(true)
  const excludedLast = filterOf('web/docs/api.md, web/**, !web/docs/**')
  expect(pathIncluded(excludedLast, 'web/docs/api.md')).toBe(false)
  expect(pathIncluded(excludedLast, 'web/index.ts')).toBe(true)
})

test('** and dotfiles: dots are ordinary characters', () => {
  expect(matches('web/**', 'web/.env')).toBe(true)
  expect(matches('web/**', 'web/.config/app/.rc')).toBe(true)
  expect(matches('**', '.github/workflows/deploy.yml')).toBe(true)
  expect(matches('.github/**', '.github/CODEOWNERS')).toBe(true)
  expect(matches('*', '.gitignore')).toBe(true)
  expect(matches('web/*', 'web/.env')).toBe(true)
  expect(matches('web/**', 'webapp/index.ts')).toBe(false)
  expect(matches('web/**', 'web')).toBe(false)
  // Case counts, as in git.
  expect(matches('web/**', 'Web/index.ts')).toBe(false)
})

test('a pull request counts when one of its files is in', () => {
  const filter = filterOf('web/**, !web/**/*.md')
  expect(firstIncluded(filter, ['api/x.ts', 'web/README.md', 'web/app.ts'])).toBe('web/app.ts')
  expect(firstIncluded(filter, ['api/x.ts', 'web/README.md'])).toBeUndefined()
  expect(firstIncluded(filter, [])).toBeUndefined()
})

test('escapes and regular-expression characters are the characters themselves', () => {
  expect(matches('a\\*b', 'a*b')).toBe(true)
  expect(matches('a\\*b', 'axb')).toBe(false)
  expect(matches('a\\?b', 'a?b')).toBe(true)
  expect(matches('f(1).txt', 'f(1).txt')).toBe(true)
  expect(matches('f(1).txt', 'f(1)xtxt')).toBe(false)
  expect(matches('a|b', 'a')).toBe(false)
  expect(matches('$x^', '$x^')).toBe(true)
  expect(matches('a/{b}', 'a/{b}')).toBe(true)
  expect(matches('été/**', 'été/x')).toBe(true)
  expect(matches('x!y', 'x!y')).toBe(true)
})

test('the list is split as `labels` is, order kept and nothing merged', () => {
  expect(splitPatterns('web/**, !web/docs/**,web/**')).toEqual(['web/**', '!web/docs/**', 'web/**'])
  expect(splitPatterns('web/**\n  !web/a,b/**  \n\nweb/**\n')).toEqual([
    'web/**',
    '!web/a,b/**',
    'web/**'
  ])
  expect(splitPatterns('a\\,b, c')).toEqual(['a,b', 'c'])
  expect(parsePaths('  ')).toEqual({ problems: [] })
})

test('bad patterns are each named, with what to write instead', () => {
  const { filter, problems } = parsePaths(
    [
      'web/[a-',
      '!',
      '/web/**',
      'web/',
      '?x',
      'a**+',
      'x[]',
      'x[!a]',
      'x[a-Z]',
      'x[/]',
      'tail\\'
    ].join('\n')
  )
  expect(filter).toBeUndefined()
  expect(problems).toEqual([
    '`web/[a-` has a `[` without its `]` (`\\[` is the character itself)',
    '`!` is `!` and nothing after it: name the paths to leave out',
    "`/web/**` starts with `/` or `./`: patterns start at the repository's root without it (`web/**`)",
    "`web/` ends with `/`, which no file does: a folder's files are `web/**`",
    '`?x` has `?` after no character: `?` makes the character before it optional (`\\?` is the character itself)',
    '`a**+` has `+` after no character: `+` makes the character before it repeat (`\\+` is the character itself)',
    '`x[]` has an empty `[]`: list the characters one place may be, like `[0-9]`',
    "`x[!a]` has a negated class `[!...]`, which GitHub's patterns do not have: list the characters that match",
    '`x[a-Z]` has the range `a-Z`: a range goes up within a-z, A-Z or 0-9',
    '`x[/]` has a `/` inside `[...]`: one place in a name is never a `/`',
    '`tail\\` ends with a lone `\\`: `\\` takes the character after it as it is'
  ])
  expect(parsePaths('!web/**, !api/**').problems).toEqual([
    'holds only `!` patterns, which match nothing on their own: give the paths that count first ' +
      '(`web/**`), then the ones to leave out (`!web/docs/**`)'
  ])
  expect(parsePaths('web/\u0007x').problems).toEqual(['`web/\u0007x` holds control characters'])
})

test('YAML written into the value is named, not matched as characters: list items, quotes, comments, braces', () => {
  // `on.push.paths` is a YAML list of quoted patterns; pasted into `paths: |` the dashes, quotes
  // and comments would be characters of the patterns, which then match no file.
  const { filter, problems } = parsePaths(
    [
      "- 'web/**'",
      "'!web/**/*.md'",
      '"api/**"',
      'web/** # the web service',
      '# billing',
      'web/{a',
      'b}/**'
    ].join('\n')
  )
  expect(filter).toBeUndefined()
  expect(problems).toEqual([
    "`- 'web/**'` starts with `- `, a YAML list item: in `paths` give one pattern a line, without `- ` or quotes (`\\-` is the character itself)",
    "`'!web/**/*.md'` is in quotes, which are characters of the pattern here: write it without them (`!web/**/*.md`)",
    '`"api/**"` is in quotes, which are characters of the pattern here: write it without them (`api/**`)',
    '`web/** # the web service` has a `#` after a space, which starts no comment inside the value: leave the comment out (`\\#` is the character itself)',
    '`# billing` starts with `#`, which starts no comment inside the value: leave the comment out (`\\#` is the character itself)',
    '`web/{a` has braces, which are no alternatives in these patterns (and a comma on one line splits it): one pattern for each (`web/a/**, web/b/**`); `\\{` is the character itself',
    '`b}/**` has braces, which are no alternatives in these patterns (and a comma on one line splits it): one pattern for each (`web/a/**, web/b/**`); `\\}` is the character itself'
  ])
  // On a line of its own the comma stays, and the braces would be characters.
  expect(parsePaths('web/{a,b}/**\napi/**').problems).toEqual([
    '`web/{a,b}/**` has braces, which are no alternatives in these patterns (and a comma on one line splits it): one pattern for each (`web/a/**, web/b/**`); `\\{` is the character itself'
  ])
  // The characters themselves, escaped, or where they cannot be YAML.
  expect(matches("\\- 'x'", "- 'x'")).toBe(true)
  expect(matches('notes/\\#1 draft.md', 'notes/#1 draft.md')).toBe(true)
  expect(matches('notes/#1.md', 'notes/#1.md')).toBe(true)
  expect(matches("it's/**", "it's/a")).toBe(true)
  expect(matches('a/\\{b', 'a/{b')).toBe(true)
})

test("a pull request's file names cannot make matching slow: no backtracking over `**`", () => {
  // A backtracking regular expression tries every split of the name between the `**`: with
  // these, each file took seconds to hours (this test then ran past its time). The automaton
  // reads each character once per state; the results are those of the patterns.
  const crafted = [
    ['**/src/**/test/**/*.ts', 'src/test/'.repeat(400) + 'x', false],
    ['**/src/**/test/**/*.ts', 'src/test/'.repeat(400) + 'x.ts', true],
    ['**a**a**a**b', 'a'.repeat(2000), false],
    ['**a**a**a**b', 'a'.repeat(2000) + 'b', true],
    ['**/docs/**/*.md', 'docs/'.repeat(800) + 'x', false]
  ] as const
  for (const [pattern, file, result] of crafted)
    expect([pattern, matches(pattern, file)]).toEqual([pattern, result])
})

test('a value of only separators is named: it is not the same as no `paths`, which counts every pull request', () => {
  expect(parsePaths(' , ').problems).toEqual([
    'holds no pattern, only separators: give the paths that count (`web/**`), or leave `paths` out'
  ])
  expect(parsePaths('\n,\n').problems).toHaveLength(1)
  expect(parsePaths('')).toEqual({ problems: [] })
})
