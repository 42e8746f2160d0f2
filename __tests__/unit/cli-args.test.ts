/** The command line's flags (src/cli/args.ts) over generated command lines, as users type them. */
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { editDistance, parseCliArgs } from '../../src/cli/args.js'
import { splitNames } from '../../src/shared/text.js'
import { splitPatterns } from '../../src/labels/paths.js'

const declared = Object.entries(
  (
    parse(readFileSync(new URL('../../action.yml', import.meta.url), 'utf8')) as {
      inputs: Record<string, { description: string; default?: string }>
    }
  ).inputs
).map(([name, spec]) => ({ name, description: spec.description, default: spec.default }))
const switches = declared.filter(i => i.default === 'true' || i.default === 'false')
const valued = declared.filter(i => !switches.includes(i))

/** One flag as typed: `--name value`, `--name=value`, or a bare switch. */
const flag = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(...valued.map(i => i.name)),
      fc.string({ minLength: 1 }).filter(v => !v.startsWith('--') && v.trim() !== ''),
      fc.boolean()
    )
    .map(([name, value, equals]) => ({
      name,
      value,
      argv: equals ? [`--${name}=${value}`] : [`--${name}`, value]
    })),
  fc
    .tuple(fc.constantFrom(...switches.map(i => i.name)), fc.constantFrom('true', 'false', ''))
    .map(([name, value]) => ({
      name,
      value: value || 'true',
      argv: value ? [`--${name}`, value] : [`--${name}`]
    }))
)

test('every input given once, in any form and order, arrives as typed, with no problem', () => {
  fc.assert(
    fc.property(fc.uniqueArray(flag, { selector: f => f.name, maxLength: 12 }), flags => {
      const args = parseCliArgs(
        flags.flatMap(f => f.argv),
        declared
      )
      expect(args.problems).toEqual([])
      expect(args.raw).toEqual(Object.fromEntries(flags.map(f => [f.name, f.value])))
    })
  )
})

test('unknown flags, stray words and missing values are each named, their values never shown, and the rest still read', () => {
  const known = [...declared.map(i => i.name), 'help', 'debug', 'version']
  fc.assert(
    fc.property(
      fc
        .stringMatching(/^[a-z][a-z0-9]{2,10}$/)
        .filter(
          n =>
            !known.some(
              name => name.startsWith(n) || n.startsWith(name) || editDistance(n, name) <= 3
            )
        ),
      fc.stringMatching(/^[a-z0-9]{6,12}$/).map(v => `z9${v}`),
      fc.stringMatching(/^[a-z0-9]{6,12}$/).map(v => `z9${v}`),
      (unknown, value, stray) => {
        const args = parseCliArgs(
          ['--environment', 'production', `--${unknown}`, value, '--dry-run', stray, '--cluster'],
          declared
        )
        expect(args.raw).toEqual({ environment: 'production', 'dry-run': 'true' })
        expect(args.problems).toEqual([
          `unknown flag \`--${unknown}\` (its value not shown)`,
          'unexpected argument 6 (after `--dry-run`), not shown: every value goes after its flag',
          '`--cluster` needs a value (`--cluster VALUE` or `--cluster=VALUE`)'
        ])
        expect(args.problems.join('\n')).not.toContain(value)
        expect(args.problems.join('\n')).not.toContain(stray)
      }
    )
  )
})

test('an unknown flag is named with the nearest known one: another case, a prefix, a longer name, a typo', () => {
  const near = (flag: string) => parseCliArgs([flag], declared).problems[0]
  expect(near('--Environment=qa')).toBe(
    'unknown flag `--Environment` (its value not shown) (did you mean `--environment`?)'
  )
  expect(near('--env')).toBe('unknown flag `--env` (did you mean `--environment`?)')
  expect(near('--github-token')).toBe('unknown flag `--github-token` (did you mean `--token`?)')
  expect(near('--tokn')).toBe('unknown flag `--tokn` (did you mean `--token`?)')
  expect(near('--clustr')).toBe('unknown flag `--clustr` (did you mean `--cluster`?)')
  expect(near('--zzzzzz')).toBe('unknown flag `--zzzzzz`')
  expect(near('--' + 'a'.repeat(100_000))).toBe('an unknown flag of 100002 characters, not shown')
})

test('a value glued to its flag (`--token"$T"`) is never quoted, not even in part: the known flag it starts with is named, with the fix', () => {
  const secret = 'ghp_R4nd0mS3cr3tV4lu3Xy7Zq9Wk2Lm5Np8Qr1St3'
  const glued = parseCliArgs(['--environment', 'p', `--token${secret}`], declared)
  expect(glued.problems).toEqual([
    `an unknown flag beginning with \`--token\` (${secret.length + 7} characters), the rest not ` +
      'shown: a value glued to `--token`? Put a space or `=` between them'
  ])
  // short, or followed by a stray word: the glued part is still not shown
  expect(parseCliArgs(['--TOKENhunter2'], declared).problems.join('\n')).not.toContain('hunter2')
  const short = parseCliArgs(['--tokenhunter2', '--dry-run', 'x'], declared)
  expect(short.problems.join('\n')).not.toContain('hunter2')
  expect(short.problems[1]).toBe(
    'unexpected argument 3 (after `--dry-run`), not shown: every value goes after its flag'
  )
  const after = parseCliArgs([`--token${secret}`, 'stray'], declared)
  expect(after.problems.join('\n')).not.toContain('ghp_')
  // not a flag name (a quote, a dot, a slash): described, not quoted
  fc.assert(
    fc.property(fc.stringMatching(/^[a-z]{2,8}[^A-Za-z0-9_=-][ -<>-~]{0,20}$/), start => {
      const name = `${start}S3cr3t`
      const args = parseCliArgs([`--${name}`], declared)
      expect(args.problems[0]).not.toContain('S3cr3t')
      expect(args.problems[0]).toContain(`${name.length + 2} characters`)
    })
  )
  // a flag-like name of its own (`--labels-file`) is still named
  expect(parseCliArgs(['--labels-file'], declared).problems).toEqual([
    'unknown flag `--labels-file`'
  ])
})

test('any input flag given an empty value is a problem naming it, and unread', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...declared.map(i => i.name).filter(n => n !== 'version')),
      fc.boolean(),
      (name, equals) => {
        const args = parseCliArgs(
          ['--environment', 'qa', ...(equals ? [`--${name}=`] : [`--${name}`, ''])],
          declared
        )
        if (name === 'environment') return
        expect(args.problems).toEqual([
          `\`--${name}\` is empty (a variable that came out empty?): give it a value, or leave the flag out`
        ])
        expect([...args.unread]).toEqual([name])
        expect(args.raw).toEqual({ environment: 'qa' })
      }
    )
  )
})

test('a repeated list flag is one item per line; a repeated single-value flag is a problem, its first value still read', () => {
  const args = parseCliArgs(
    ['--labels', 'deployed:prod', '--labels=needs review, later', '--org', 'a', '--org', 'b'],
    declared
  )
  expect(args.raw).toEqual({ labels: 'deployed:prod\nneeds review\nlater', org: 'a' })
  expect([...args.unread]).toEqual(['org'])
  expect(args.problems).toEqual(['`--org` is given 2 times; it takes one value'])
})

test('a repeated `--labels` or `--remove-labels` appends: each value is read as it is alone (`a,b` stays two labels)', () => {
  for (const name of ['labels', 'remove-labels'] as const) {
    const alone = splitNames(parseCliArgs([`--${name}`, 'deployed,prod'], declared).raw[name] ?? '')
    expect(alone).toEqual(['deployed', 'prod'])
    const repeated = parseCliArgs(
      [`--${name}`, 'deployed,prod', `--${name}`, 'extra', `--${name}`, 'a\\,b\nc, d'],
      declared
    )
    expect(repeated.problems).toEqual([])
    expect(splitNames(repeated.raw[name] ?? '')).toEqual([
      'deployed',
      'prod',
      'extra',
      'a,b',
      'c, d'
    ])
  }
})

test('a repeated `--paths` appends its patterns in order, repeats kept (a later one may undo a `!`)', () => {
  const repeated = parseCliArgs(
    ['--paths', 'web/**,!web/docs/**', '--paths', 'web/docs/api.md', '--paths', 'web/**'],
    declared
  )
  expect(repeated.problems).toEqual([])
  expect(splitPatterns(repeated.raw.paths ?? '')).toEqual([
    'web/**',
    '!web/docs/**',
    'web/docs/api.md',
    'web/**'
  ])
})

test('a value of white space alone (a blank variable, a lone `\\r`) is a problem naming its flag, like an empty one', () => {
  for (const blank of [' ', '\r', '\t', ' \r\n']) {
    for (const argv of [
      ['--environment', blank, '--digest', 'sha256:x'],
      [`--environment=${blank}`, '--digest', 'sha256:x']
    ]) {
      const args = parseCliArgs(argv, declared)
      expect({ argv, raw: args.raw, unread: [...args.unread] }).toEqual({
        argv,
        raw: { digest: 'sha256:x' },
        unread: ['environment']
      })
      expect(args.problems).toEqual([
        '`--environment` is only white space (a variable that came out blank, or a line end `\\r` ' +
          'from a Windows file?): give it a value, or leave the flag out'
      ])
    }
  }
  const version = parseCliArgs(['--version', '\r', '--environment', 'p'], declared)
  expect(version.raw).toEqual({ environment: 'p' })
  expect([...version.unread]).toEqual(['version'])
})

test('`-V` among other flags, `-V VALUE` or a repeated version flag is a problem, never a version print', () => {
  for (const argv of [
    ['--digest', 'sha256:x', '--environment', 'p', '-V', '1.2.3'],
    ['--digest', 'sha256:x', '--environment', 'p', '-V'],
    ['-V', '--environment', 'p'],
    ['-V', '-V'],
    ['--version', '--version'],
    ['-V', '1.2.3']
  ]) {
    const args = parseCliArgs(argv, declared)
    expect({ argv, version: args.version }).toEqual({ argv, version: false })
    expect(args.problems.length).toBeGreaterThan(0)
  }
  expect(parseCliArgs(['--environment', 'p', '-V'], declared).problems).toEqual([
    '`-V` prints this version and is given alone; among other flags nothing would be recorded: ' +
      "give the artifact's version as `--version VALUE`"
  ])
})

test('a switch takes a following true or false in any letter case, as the input reads it', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...switches.map(i => i.name)),
      fc.constantFrom('true', 'false'),
      fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
      (name, word, upper) => {
        const typed = [...word].map((ch, i) => (upper[i] ? ch.toUpperCase() : ch)).join('')
        const args = parseCliArgs([`--${name}`, typed, '--environment', 'qa'], declared)
        expect(args.problems).toEqual([])
        expect(args.raw).toEqual({ [name]: typed, environment: 'qa' })
      }
    )
  )
})

test('a flag named as a problem (no value, given twice) is reported unread, so its input is not named again', () => {
  const args = parseCliArgs(
    ['--environment', 'a', '--environment', 'b', '--name', 'web', '--cluster'],
    declared
  )
  expect(args.raw).toEqual({ name: 'web', environment: 'a' })
  expect([...args.unread].sort()).toEqual(['cluster', 'environment'])
})

test('`--version` alone (or with `--debug`) and `-V` ask for the command line version; `-h` is `--help`', () => {
  for (const argv of [['--version'], ['-V'], ['--debug', '--version'], ['--version', '--debug']]) {
    const args = parseCliArgs(argv, declared)
    expect({ argv, version: args.version, problems: args.problems, raw: args.raw }).toEqual({
      argv,
      version: true,
      problems: [],
      raw: {}
    })
  }
  expect(parseCliArgs(['-h'], declared)).toMatchObject({ help: true, version: false })
  expect(parseCliArgs(['--help'], declared)).toMatchObject({ help: true, version: false })
})

test("`--version` with a value, in either form, is the artifact's version; without one among inputs it is a problem", () => {
  for (const argv of [
    ['--environment', 'production', '--version', '1.2.3'],
    ['--version=1.2.3', '--environment', 'production']
  ]) {
    const args = parseCliArgs(argv, declared)
    expect(args).toMatchObject({ version: false, problems: [] })
    expect(args.raw).toEqual({ environment: 'production', version: '1.2.3' })
  }
  // A variable that came out empty, unquoted: the run stops instead of printing a version.
  const empty = parseCliArgs(['--version', '--environment', 'production'], declared)
  expect(empty.version).toBe(false)
  expect(empty.raw).toEqual({ environment: 'production' })
  expect([...empty.unread]).toEqual(['version'])
  expect(empty.problems).toEqual([
    '`--version` needs a value here: `--version` alone (or `-V`) prints this version; with a ' +
      "value (`--version VALUE`) it is the artifact's version, the `version` input"
  ])
})

test('`--version "$TAG"` with TAG empty (quoted, as the documented pipelines write it), or `--version=`, is a problem: the run stops instead of recording without a version', () => {
  for (const argv of [
    ['--digest', 'sha256:x', '--version', '', '--environment', 'production'],
    ['--version=', '--environment', 'production'],
    ['--version', '']
  ]) {
    const args = parseCliArgs(argv, declared)
    expect({ argv, version: args.version, unread: [...args.unread] }).toEqual({
      argv,
      version: false,
      unread: ['version']
    })
    expect(args.raw).not.toHaveProperty('version')
    expect(args.problems).toEqual([
      "`--version` is empty (a variable that came out empty?): give the artifact's version, or " +
        'leave the flag out'
    ])
  }
})
