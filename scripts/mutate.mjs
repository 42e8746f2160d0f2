// `npm run mutate -- --seed N --count 40`: a sample of operator mutants of the core files, each
// run against the tests that can see it; prints the score and the mutants no test killed.
// Not part of `npm test` (docs/development.md: Mutation sample). Over 300 lines: the mutants, the
// test selection and the runner are one tool's steps, each beside its reason.
//
// - The mutants: `&&`/`||`, `<`/`<=`, `>`/`>=`, `===`/`!==`, `true`/`false`, `+ n`/`- n`, found
//   in TypeScript's syntax tree (never in a comment, a string or a type), sampled with the seed.
// - Each runs in a scratch copy of the checkout (its files as they are now, node_modules linked):
//   the working tree is never written, so a Ctrl-C leaves nothing to restore.
// - The tests: the files under TEST_DIRS whose imports reach the mutated file (the import graph,
//   relative imports followed), in two stages: `near` (within two imports, not running the
//   bundle: seconds) first, with --bail; only if they all pass, `far` (the rest). The bundle is
//   rebuilt in the scratch copy only for a far stage with a test that runs it (imports
//   scripts/run-action.ts or names dist/). TypeScript is transpiled, not checked, so a mutant is
//   killed by a failing test, never by a type error.
// - A mutant whose tests run past the timeout counts as killed (one that loops: the fake clock
//   never lets jest's own timeout fire), and says so: `--timeout` seconds (60) for the near stage,
//   four times that for the far one.
import { execFileSync, spawn } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { clearTimeout, setTimeout } from 'node:timers'
import { parseArgs } from 'node:util'
import ts from 'typescript'
import { isMain } from './is-main.mjs'

/** The core files the sample draws from: the one list to update when files move. */
export const CORE_FILES = [
  'src/client/retry-policy.ts',
  'src/client/pacer.ts',
  'src/client/client.ts',
  'src/cluster/state.ts',
  'src/cluster/settle-state.ts',
  'src/step/output-budget.ts',
  'src/labels/range-pulls.ts'
]

/**
 * Mutants that are the same program written another way, set aside before the sample, each with
 * its reason: by file, the trimmed source line, and the operator change.
 */
export const EQUIVALENT = [
  {
    file: 'src/step/output-budget.ts',
    line: 'if (fitted.leftOut > 0) {',
    changes: ['> -> >='],
    why: 'an output over its room never keeps every item when cut (its items counted one by one add up to at least the whole)'
  },
  {
    file: 'src/cluster/settle-state.ts',
    line: 'a.deployment_name < b.deployment_name ? -1 : a.deployment_name > b.deployment_name ? 1 : 0',
    changes: ['< -> <=', '> -> >='],
    why: 'the names sorted are the keys of a Map: never equal'
  },
  {
    file: 'src/labels/range-pulls.ts',
    line: 'if (shape.branchOf.has(sha) && !ownerOf(sha)) foundFor.set(sha, pull.number)',
    changes: ['&& -> ||'],
    why: 'foundFor is read only for merges (ownerOf), and a merge named by its subject is never looked up, so the extra entries are never read'
  }
]

const isEquivalent = m =>
  EQUIVALENT.some(
    e => e.file === m.file && e.line === m.source && e.changes.includes(`${m.from} -> ${m.to}`)
  )

/** Where the tests that import the source are (integration tests run the bundle, and wait). */
export const TEST_DIRS = ['__tests__/unit', '__tests__/reliability']

const SWAPS = {
  [ts.SyntaxKind.AmpersandAmpersandToken]: '||',
  [ts.SyntaxKind.BarBarToken]: '&&',
  [ts.SyntaxKind.LessThanToken]: '<=',
  [ts.SyntaxKind.LessThanEqualsToken]: '<',
  [ts.SyntaxKind.GreaterThanToken]: '>=',
  [ts.SyntaxKind.GreaterThanEqualsToken]: '>',
  [ts.SyntaxKind.EqualsEqualsEqualsToken]: '!==',
  [ts.SyntaxKind.ExclamationEqualsEqualsToken]: '===',
  [ts.SyntaxKind.EqualsEqualsToken]: '!=',
  [ts.SyntaxKind.ExclamationEqualsToken]: '=='
}

/** @typedef {{ file: string, start: number, end: number, from: string, to: string, line: number, column: number, source: string }} Mutant */

/** Every mutant of one file's text, in the order they appear. @returns {Mutant[]} */
export function mutantsOf(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  /** @type {Mutant[]} */
  const found = []
  const add = (node, to) => {
    const start = node.getStart(sf)
    const { line, character } = sf.getLineAndCharacterOfPosition(start)
    const source = (text.split('\n')[line] ?? '').trim()
    found.push({
      file,
      start,
      end: node.end,
      from: node.getText(sf),
      to,
      line: line + 1,
      column: character + 1,
      source
    })
  }
  const visit = node => {
    if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken
      const swap = SWAPS[op.kind]
      if (swap) add(op, swap)
      const numeric = ts.isNumericLiteral(node.left) || ts.isNumericLiteral(node.right)
      if (numeric && op.kind === ts.SyntaxKind.PlusToken) add(op, '-')
      if (numeric && op.kind === ts.SyntaxKind.MinusToken) add(op, '+')
    } else if (
      (node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword) &&
      !ts.isLiteralTypeNode(node.parent)
    ) {
      add(node, node.kind === ts.SyntaxKind.TrueKeyword ? 'false' : 'true')
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return found
}

/** The text with one mutant applied. */
export function applyMutant(text, m) {
  return text.slice(0, m.start) + m.to + text.slice(m.end)
}

/** A small seeded generator (mulberry32): the same seed, the same sample. */
export function seeded(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** `count` of `all`, drawn without repeats with the seed (a Fisher-Yates shuffle, then the first). */
export function sample(all, count, seed) {
  const random = seeded(seed)
  const copy = [...all]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j], copy[i]]
  }
  return copy.slice(0, count)
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g

/** The repository files `file` imports, directly or not (relative imports; `.js` read as `.ts`). */
export function importClosure(root, file, cache = new Map()) {
  const seen = new Set()
  const stack = [file]
  while (stack.length > 0) {
    const current = stack.pop()
    if (seen.has(current)) continue
    seen.add(current)
    let imports = cache.get(current)
    if (!imports) {
      imports = []
      const text = readFileSync(join(root, current), 'utf8')
      for (const match of text.matchAll(IMPORT)) {
        const target = resolveImport(root, current, match[1])
        if (target) imports.push(target)
      }
      cache.set(current, imports)
    }
    stack.push(...imports)
  }
  return seen
}

function resolveImport(root, from, spec) {
  const base = relative(root, resolve(root, dirname(from), spec))
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]
  return candidates.find(c => existsSync(join(root, c)) && !c.endsWith('/'))
}

function testFiles(root) {
  return TEST_DIRS.flatMap(dir =>
    readdirSync(join(root, dir))
      .filter(name => name.endsWith('.test.ts'))
      .map(name => `${dir}/${name}`)
  ).sort()
}

/** How many imports from `from` to `to` (1: a direct import), or undefined when none lead there. */
function distance(root, from, to, cache) {
  let frontier = [from]
  const seen = new Set(frontier)
  for (let hops = 1; frontier.length > 0; hops++) {
    const next = []
    for (const file of frontier) {
      importClosure(root, file, cache) // fills the cache with each file's imports
      for (const target of cache.get(file) ?? []) {
        if (target === to) return hops
        if (!seen.has(target)) {
          seen.add(target)
          next.push(target)
        }
      }
    }
    frontier = next
  }
  return undefined
}

function runsBundle(root, test, cache) {
  return [...importClosure(root, test, cache)].some(
    f =>
      f === 'scripts/run-action.ts' ||
      (!f.startsWith('src/') && /['"`]dist\//.test(readFileSync(join(root, f), 'utf8')))
  )
}

/**
 * The test files that can see `file`, in two stages: `near`, the ones within two imports of it
 * that do not run the bundle (run first: they kill most mutants, in seconds), and `far`, the rest
 * (run when `near` passes); `bundle` when one of them runs the bundle.
 */
export function testsFor(root, file, cache = new Map()) {
  const near = []
  const far = []
  let bundle = false
  for (const test of testFiles(root)) {
    const hops = distance(root, test, file, cache)
    if (hops === undefined) continue
    const runs = runsBundle(root, test, cache)
    bundle ||= runs
    ;(hops <= 2 && !runs ? near : far).push(test)
  }
  return { near, far, tests: [...near, ...far], bundle }
}

/** A copy of the checkout's files as they are now (tracked and new ones), node_modules linked. */
function scratchCopy(root) {
  const dir = mkdtempSync(join(tmpdir(), 'record-deployment-mutate-'))
  const list = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: root,
      encoding: 'utf8'
    }
  )
  for (const file of list.split('\0').filter(Boolean)) {
    if (!existsSync(join(root, file))) continue // deleted in the working tree
    mkdirSync(dirname(join(dir, file)), { recursive: true })
    copyFileSync(join(root, file), join(dir, file))
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir')
  // The house config, with TypeScript transpiled and not type-checked: a type error is no kill.
  writeFileSync(
    join(dir, 'jest.mutate.config.mjs'),
    "import base from './jest.config.js'\n" +
      'export default { ...base, reporters: ["default"], maxWorkers: 2,\n' +
      "  transform: { ...base.transform, '^.+\\\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', isolatedModules: true, diagnostics: false }] } }\n"
  )
  return dir
}

/** Runs `tests` in `dir`; resolves to 'passed', 'failed' or 'timeout'. */
function runTests(dir, tests, timeoutMs, children) {
  return new Promise(resolvePromise => {
    const child = spawn(
      process.execPath,
      [
        join(dir, 'node_modules/jest/bin/jest.js'),
        '--config',
        join(dir, 'jest.mutate.config.mjs'),
        '--ci',
        '--bail',
        '--silent',
        '--runTestsByPath',
        ...tests
      ],
      {
        cwd: dir,
        env: { ...process.env, NODE_OPTIONS: '--experimental-vm-modules --no-warnings' },
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true
      }
    )
    children.add(child)
    let output = ''
    child.stderr.on('data', chunk => (output = (output + chunk).slice(-4000)))
    const timer = setTimeout(() => killGroup(child), timeoutMs)
    let timedOut = false
    timer.unref()
    child.on('exit', code => {
      timedOut = code === null
      clearTimeout(timer)
      children.delete(child)
      resolvePromise({ result: timedOut ? 'timeout' : code === 0 ? 'passed' : 'failed', output })
    })
  })
}

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL')
  } catch {
    // gone already
  }
}

function bundle(dir) {
  execFileSync(process.execPath, [join(dir, 'scripts/bundle.mjs')], { cwd: dir, stdio: 'ignore' })
}

async function main() {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '1' },
      count: { type: 'string', default: '40' },
      timeout: { type: 'string', default: '60' },
      file: { type: 'string', multiple: true },
      list: { type: 'boolean', default: false }
    }
  })
  const seed = Number(values.seed)
  const count = Number(values.count)
  const timeoutMs = Number(values.timeout) * 1000
  if (!Number.isInteger(seed) || !Number.isInteger(count) || count < 1 || !(timeoutMs > 0)) {
    console.error(
      'usage: npm run mutate -- [--seed N] [--count 40] [--timeout 60] [--file src/x.ts] [--list]'
    )
    process.exit(2)
  }
  const root = join(dirname(fileURLToPath(import.meta.url)), '..')
  const files = values.file ?? CORE_FILES
  const missing = files.filter(f => !existsSync(join(root, f)))
  if (missing.length > 0) {
    console.error(
      `not found: ${missing.join(', ')} (scripts/mutate.mjs: CORE_FILES lists the core files)`
    )
    process.exit(2)
  }
  const found = files.flatMap(f => mutantsOf(f, readFileSync(join(root, f), 'utf8')))
  const all = found.filter(m => !isEquivalent(m))
  const chosen = sample(all, count, seed).sort((a, b) =>
    a.file === b.file ? a.start - b.start : a.file < b.file ? -1 : 1
  )
  console.log(
    `${all.length} mutants in ${files.length} files (${found.length - all.length} known equivalent ones ` +
      `set aside: EQUIVALENT); ${chosen.length} drawn with seed ${seed}`
  )
  if (values.list) {
    for (const m of chosen) console.log(`  ${describe(m)}`)
    return
  }

  const dir = scratchCopy(root)
  const children = new Set()
  const cleanUp = () => {
    for (const child of children) killGroup(child)
    rmSync(dir, { recursive: true, force: true })
  }
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      cleanUp()
      console.error(
        `\n${signal}: stopped; the scratch copy is removed, the checkout was never changed`
      )
      process.exit(130)
    })
  }
  try {
    const cache = new Map()
    const plans = new Map(files.map(f => [f, testsFor(dir, f, cache)]))
    // The tests must pass unmutated, else every mutant would look killed.
    const union = [...new Set([...plans.values()].flatMap(p => p.tests))]
    if ([...plans.values()].some(p => p.bundle)) bundle(dir)
    const started = Date.now()
    const baseline = await runTests(dir, union, timeoutMs * 8, children)
    if (baseline.result !== 'passed') {
      console.error(`the tests fail without a mutant (${baseline.result}):\n${baseline.output}`)
      process.exitCode = 2
      return
    }
    console.log(`baseline: ${union.length} test files pass unmutated (${seconds(started)})`)

    const survivors = []
    let killed = 0
    let timedOut = 0
    for (const [index, m] of chosen.entries()) {
      const plan = plans.get(m.file)
      const path = join(dir, m.file)
      const original = readFileSync(path, 'utf8')
      const began = Date.now()
      let outcome
      try {
        writeFileSync(path, applyMutant(original, m))
        outcome = { result: 'passed' }
        if (plan.near.length > 0) outcome = await runTests(dir, plan.near, timeoutMs, children)
        if (outcome.result === 'passed' && plan.far.length > 0) {
          if (plan.bundle) bundle(dir)
          outcome = await runTests(dir, plan.far, timeoutMs * 4, children)
          outcome.far = true
        }
      } finally {
        writeFileSync(path, original)
      }
      const result = outcome.result
      if (result === 'passed') survivors.push(m)
      else killed++
      if (result === 'timeout') timedOut++
      const word =
        result === 'passed' ? 'SURVIVED' : result === 'timeout' ? 'killed (timeout)' : 'killed'
      console.log(
        `[${String(index + 1).padStart(2)}/${chosen.length}] ${word.padEnd(16)} ${describe(m)}  (${outcome.far ? `${plan.near.length} + ${plan.far.length} test files${plan.bundle ? ', bundle rebuilt' : ''}` : `${plan.near.length} test files`}, ${seconds(began)})`
      )
    }
    const score = (100 * killed) / chosen.length
    console.log(
      `\nscore: ${killed} of ${chosen.length} mutants killed (${score.toFixed(1)}%), seed ${seed}, ${seconds(started)}` +
        (timedOut > 0 ? `; ${timedOut} by the timeout` : '')
    )
    if (survivors.length > 0) {
      console.log('survivors (no test that can see the file fails with this change):')
      for (const m of survivors) console.log(`  ${describe(m)}`)
    }
  } finally {
    cleanUp()
  }
}

function describe(m) {
  return `${m.file}:${m.line}:${m.column}  ${m.from} -> ${m.to}   ${m.source.slice(0, 90)}`
}

function seconds(since) {
  return `${Math.round((Date.now() - since) / 1000)} s`
}

if (isMain(import.meta.url)) await main()
