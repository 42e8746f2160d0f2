/** The command line's flags (src/cli/args.ts) over generated command lines, as users type them. */
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { editDistance, parseCliArgs } from '../../src/cli/args.js'

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
      fc.string({ minLength: 1 }).filter(v => !v.startsWith('--')),
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
        .filter(n => !known.some(name => name.startsWith(n) || editDistance(n, name) <= 3)),
      // a digit third, which no word of the messages has (a value like `argume` is in them)
      fc.stringMatching(/^[a-z]{2}[0-9][a-z0-9]{3,9}$/),
      fc.stringMatching(/^[a-z]{2}[0-9][a-z0-9]{3,9}$/),
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
  expect(near('--' + 'a'.repeat(100_000))).toBe(
    `unknown flag \`--${'a'.repeat(40)}...\` (100002 characters)`
  )
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
  expect(args.raw).toEqual({ labels: 'deployed:prod\nneeds review, later', org: 'a' })
  expect([...args.unread]).toEqual(['org'])
  expect(args.problems).toEqual(['`--org` is given 2 times; it takes one value'])
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
