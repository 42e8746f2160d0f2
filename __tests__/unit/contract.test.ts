import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { INPUT_NAMES } from '../../src/step/parse-inputs.js'
import { toOutputs } from '../../src/step/report.js'
import { emptyResult } from '../../src/shared/result.js'
import { ACTION_VERSION } from '../../src/shared/version.js'

const root = new URL('../../', import.meta.url)
const action = parse(readFileSync(new URL('action.yml', root), 'utf8')) as {
  inputs: Record<string, { description?: string; default?: string }>
  outputs: Record<string, { description?: string }>
  runs: { using: string; main: string }
}
const readme = readFileSync(new URL('README.md', root), 'utf8')

/** The first-column names of README tables whose header row starts with `| <column> |`. */
function readmeTableNames(column: string): string[] {
  const names: string[] = []
  let inTable = false
  for (const line of readme.split('\n')) {
    if (new RegExp(`^\\|\\s*${column}\\s*\\|`).test(line)) inTable = true
    else if (!line.startsWith('|')) inTable = false
    else if (inTable && !/^\|[\s|:-]+$/.test(line)) {
      const cell = /^\|\s*(`[^|]+`)\s*\|/.exec(line)?.[1]
      if (cell) names.push(...cell.split(/,\s*/).map(name => name.replace(/`/g, '')))
    }
  }
  return names
}

test('action.yml runs the bundle on node24', () => {
  expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js' })
})

test('action.yml declares exactly the inputs the code reads, each described', () => {
  expect(Object.keys(action.inputs).sort()).toEqual([...INPUT_NAMES].sort())
  for (const [name, input] of Object.entries(action.inputs)) {
    expect({ name, described: (input.description ?? '').length > 10 }).toEqual({
      name,
      described: true
    })
  }
})

test("README's input table and action.yml agree", () => {
  expect(readmeTableNames('input').sort()).toEqual(Object.keys(action.inputs).sort())
})

test("README's output table, action.yml and the outputs the code sets agree", () => {
  const empty = emptyResult(false)
  const set = Object.keys(toOutputs(empty)).sort()
  expect(Object.keys(action.outputs).sort()).toEqual(set)
  expect(readmeTableNames('output').sort()).toEqual(set)
})

test('the user agent version is the package version', () => {
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string }
  expect(ACTION_VERSION).toBe(pkg.version)
})
