// `npm run bundle`: bundles src/ into dist/ with esbuild, ES modules the runner starts with Node 24:
// dist/index.js, the action, and dist/undici.js, the parts of undici the client uses (the larger
// part of what a run compiles), imported once the inputs are sound, so bad input never compiles
// it. Two files and no more: every module file costs the ES module loader a resolution, a read and
// a link, and esbuild's code splitting puts the modules two chunks share into further chunks (it
// made five files before a run's first request). What a run needs only once its inputs are sound
// (the jobs, git) is in dist/index.js but evaluated only then. Against the five chunks: a run's
// first request about 2 ms sooner, 0.66x -> 0.63x of labeler's start-to-exit, bad input as
// before (docs/performance.md). dist/licenses.txt lists every package the bundle holds, with its
// license text. Over 300 lines: the plugins, the patches of dependencies and the passes after
// esbuild are one build's steps, each beside its reason.
import { parse as parseJs } from 'acorn'
import { build } from 'esbuild'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
rmSync(dist, { recursive: true, force: true })
mkdirSync(dist)

const stub = join(root, 'scripts/stubs/actions-http-client.mjs')
/** `@actions/github` as the bundle holds it: its Context only, no Octokit (see the file). */
const githubContext = join(root, 'scripts/stubs/actions-github.mjs')
const unused = join(root, 'scripts/stubs/unused-module.mjs')

/**
 * Files that dependencies load (or bundle) for features this action never uses, each replaced
 * by a stub that fails if called: undici's HTTP/2 client (loads node:http2; the client never
 * offers h2), undici's fetch body reader (only for FormData bodies; the client sends JSON), the
 * copy of undici's HTTP parser for WebAssembly without SIMD (a fallback for CPUs without the
 * SSE4.1 / NEON instructions that every machine able to run a current Actions runner has), and
 * @actions/core's `platform` helper (starts @actions/exec and child_process on every run; the
 * action asks git through @actions/exec itself, and only when it reads a range).
 */
const UNUSED = [
  /undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/,
  /undici[\\/]lib[\\/]web[\\/]fetch[\\/]body\.js$/,
  /undici[\\/]lib[\\/]llhttp[\\/]llhttp-wasm\.js$/,
  /@actions[\\/]core[\\/]lib[\\/]platform\.js$/
]
/**
 * @actions/core imports node:crypto at start-up for one call, the random delimiter of an output
 * written at the end of the run: loading crypto is a few milliseconds of every cold start. The
 * import becomes a lookup at the moment of that call (the same module, the same randomUUID).
 */
const LAZY_CRYPTO = /@actions[\\/]core[\\/]lib[\\/]file-command\.js$/
/**
 * Text patches of dependencies, each checked to apply, for what can wait. undici loads node:http
 * at start-up for two things that can wait: `http.maxHeaderSize` when a
 * connection is made (the same value: Node's default unless --max-http-header-size is given) and
 * `IncomingMessage` when a stream is destroyed. node:http is nine modules before the first request.
 */
const LAZY_LOADS = [
  {
    file: /undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    from: "const http = require('node:http')",
    to:
      'const http = { get maxHeaderSize () { return /max-http-header-size/.test(' +
      "`${process.execArgv} ${process.env.NODE_OPTIONS ?? ''}`) ? require('node:http').maxHeaderSize : 16384 } }"
  },
  {
    file: /undici[\\/]lib[\\/]core[\\/]util\.js$/,
    from: "const { IncomingMessage } = require('node:http')",
    to: "const lazyHttp = () => require('node:http')"
  },
  {
    file: /undici[\\/]lib[\\/]core[\\/]util\.js$/,
    from: '.constructor === IncomingMessage)',
    to: '.constructor === lazyHttp().IncomingMessage)'
  },
  // undici builds a search tree of every well-known header name at start-up (hundreds of
  // inserts), used only to read the names of a response's headers: built at the first lookup.
  {
    file: /undici[\\/]lib[\\/]core[\\/]tree\.js$/,
    from:
      'const tree = new TernarySearchTree()\n\nfor (let i = 0; i < wellknownHeaderNames.length; ++i) {\n' +
      '  const key = headerNameLowerCasedRecord[wellknownHeaderNames[i]]\n  tree.insert(key, key)\n}',
    to:
      'let built = null\nconst tree = { lookup (key) { if (built === null) { built = new TernarySearchTree(); ' +
      'for (let i = 0; i < wellknownHeaderNames.length; ++i) { const k = headerNameLowerCasedRecord[wellknownHeaderNames[i]]; ' +
      'built.insert(k, k) } } return built.lookup(key) } }'
  },
  // @actions/core's summary takes fs.promises apart at start-up (fs/promises brings readline
  // along); looked up when the summary is written instead.
  {
    file: /@actions[\\/]core[\\/]lib[\\/]summary\.js$/,
    from: 'const { access, appendFile, writeFile } = promises;',
    to:
      'const access = (...a) => promises.access(...a), appendFile = (...a) => ' +
      'promises.appendFile(...a), writeFile = (...a) => promises.writeFile(...a);'
  }
]
/**
 * Node's own modules imported by ES modules (ours, @actions/*) are looked up with
 * process.getBuiltinModule instead: an `import` of one builds its ES module facade, which reads
 * every export, and node:fs's `promises` then loads fs/promises and readline at start-up.
 * The lookup gives an object whose prototype is the module (a module that is a function, such as
 * node:events, is given as it is): esbuild's interop for a CommonJS module (`__toESM`) copies each
 * of its own properties onto a new object as a getter, which for node:fs, node:os and node:path at
 * each place they are imported was 13 M instructions of every start (5% of the time to the first
 * request); through the prototype every name reads the same value, and nothing is copied.
 */
const BUILTINS = new Set(builtinModules.filter(name => !name.startsWith('_')))
const builtinLookup = {
  name: 'builtin-lookup',
  setup(build) {
    build.onResolve({ filter: /^[a-z:_/]+$/ }, args => {
      const bare = args.path.replace(/^node:/, '')
      if (args.kind !== 'import-statement' || !BUILTINS.has(bare)) return undefined
      return { path: bare, namespace: 'builtin-lookup' }
    })
    build.onLoad({ filter: /.*/, namespace: 'builtin-lookup' }, args => ({
      contents:
        `const m = process.getBuiltinModule(${JSON.stringify(`node:${args.path}`)})\n` +
        "module.exports = typeof m === 'function' ? m : Object.create(m)",
      loader: 'js'
    }))
  }
}

const leaveOutUnused = {
  name: 'leave-out-unused',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, args => {
      if (UNUSED.some(pattern => pattern.test(args.path)))
        return { contents: readFileSync(unused, 'utf8'), loader: 'js', resolveDir: dirname(unused) }
      const lazyLoads = LAZY_LOADS.filter(patch => patch.file.test(args.path))
      if (lazyLoads.length > 0) {
        let source = readFileSync(args.path, 'utf8')
        for (const { from, to } of lazyLoads) {
          if (!source.includes(from))
            throw new Error(`${args.path}: no \`${from}\`; see LAZY_LOADS`)
          source = source.replace(from, to)
        }
        return { contents: source, loader: 'js', resolveDir: dirname(args.path) }
      }
      if (LAZY_CRYPTO.test(args.path)) {
        const source = readFileSync(args.path, 'utf8')
        const lazy = source.replace(
          "import * as crypto from 'crypto';",
          "const crypto = { randomUUID: () => process.getBuiltinModule('crypto').randomUUID() };"
        )
        if (lazy === source)
          throw new Error(`${args.path}: its crypto import changed; see LAZY_CRYPTO`)
        return { contents: lazy, loader: 'js', resolveDir: dirname(args.path) }
      }
      return undefined
    })
  }
}
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  alias: {
    '@actions/http-client/lib/auth': stub,
    '@actions/http-client': stub,
    '@actions/github': githubContext,
    // undici's own invariants, `assert(value)` only: node:assert (six modules) loads when one fails.
    'node:assert': join(root, 'scripts/stubs/assert.cjs')
  },
  plugins: [leaveOutUnused, builtinLookup],
  // undici and @actions/* are CommonJS inside: what they still require() is one of Node's own
  // modules (everything else is bundled). process.getBuiltinModule gives those without loading
  // node:module for createRequire, a few milliseconds of every start.
  banner: { js: 'const require=id=>process.getBuiltinModule(id);' }
}
/** client/agent.ts's import of ./undici.js stays an import, of dist/undici.js built below. */
const undiciApart = {
  name: 'undici-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/undici\.js$/ }, args =>
      args.importer.endsWith(join('src', 'client', 'agent.ts'))
        ? { path: './undici.js', external: true }
        : undefined
    )
  }
}
const result = await build({
  ...common,
  plugins: [undiciApart, ...common.plugins],
  entryPoints: ['src/index.ts'],
  outfile: 'dist/index.js'
})
const undici = await build({
  ...common,
  entryPoints: ['src/client/undici.ts'],
  outfile: 'dist/undici.js'
})
for (const [file, output] of Object.entries(undici.metafile.outputs))
  result.metafile.outputs[file] = output
if (Object.keys(result.metafile.inputs).some(input => input.includes('node_modules/undici/')))
  throw new Error('dist/index.js holds undici: it belongs in dist/undici.js (see undiciApart)')
const cli = await build({
  ...common,
  entryPoints: ['src/cli/index.ts'],
  outfile: 'dist/cli.js',
  define: { __ACTION_YML__: JSON.stringify(actionYml()) }
})
for (const [file, output] of Object.entries(cli.metafile.outputs))
  result.metafile.outputs[`cli:${file}`] = output

/** action.yml's description, inputs (description, default) and outputs, in its order. */
function actionYml() {
  const action = parse(readFileSync(join(root, 'action.yml'), 'utf8'))
  const text = value => String(value ?? '').trim()
  return {
    description: text(action.description),
    inputs: Object.entries(action.inputs ?? {}).map(([name, spec]) => ({
      name,
      description: text(spec?.description),
      ...(spec?.default === undefined ? {} : { default: String(spec.default) })
    })),
    outputs: Object.entries(action.outputs ?? {}).map(([name, spec]) => ({
      name,
      description: text(spec?.description)
    }))
  }
}

// BUNDLE_META=FILE keeps esbuild's account of what went into each output, to see what a start costs.
if (process.env.BUNDLE_META) writeFileSync(process.env.BUNDLE_META, JSON.stringify(result.metafile))
writeFileSync(join(dist, 'package.json'), '{"type":"module"}\n')

/**
 * esbuild wraps some modules in a function it calls once: each CommonJS module (undici's, the
 * larger part of what a run evaluates before its first request) at its first require, and each ES
 * module imported dynamically (the run's, once the inputs are sound) at that import. V8 compiles
 * a function lazily: it pre-parses it when the file is compiled, then parses it again in full when
 * it is first called, so for these that first pass is wasted. Wrapped in parentheses, a function
 * is compiled at once, in one pass (V8's heuristic for a function that is called right away;
 * `--max-lazy` turns it off): 3 ms less to the first request, measured in docs/performance.md.
 * The parentheses change nothing else. Found by shape in esbuild's output: a top-level
 * `var x = f((exports, module) => { ... })` or `var init_x = f(() => { ... })` (minified, the
 * parameters a module does not use are left out).
 */
function markEager(file) {
  const source = readFileSync(file, 'utf8')
  const program = parseJs(source, { ecmaVersion: 'latest', sourceType: 'module' })
  const wrappers = []
  for (const statement of program.body) {
    if (statement.type !== 'VariableDeclaration') continue
    for (const { init } of statement.declarations) {
      if (init?.type !== 'CallExpression' || init.callee.type !== 'Identifier') continue
      const [wrapped, ...rest] = init.arguments
      if (
        rest.length === 0 &&
        wrapped?.type === 'ArrowFunctionExpression' &&
        wrapped.params.length <= 2 &&
        wrapped.body.type === 'BlockStatement'
      )
        wrappers.push(wrapped)
    }
  }
  let marked = source
  for (const { start, end } of wrappers.reverse())
    marked = `${marked.slice(0, start)}(${marked.slice(start, end)})${marked.slice(end)}`
  writeFileSync(file, marked)
  return wrappers.length
}
const eager = {}
for (const file of Object.keys(result.metafile.outputs).concat(Object.keys(cli.metafile.outputs))) {
  const path = file.replace(/^cli:/, '')
  if (path.endsWith('.js') && !(path in eager)) eager[path] = markEager(join(root, path))
}
// undici is in dist/undici.js (the action's) and dist/cli.js: a change in esbuild's output that
// this no longer finds must not pass unseen.
for (const [path, count] of Object.entries(eager))
  if (/(^|\/)(undici|cli)\.js$/.test(path) && count < 20)
    throw new Error(
      `${path}: ${count} CommonJS wrappers marked eager, expected undici's (20 or more); see markEager`
    )
writeFileSync(join(dist, 'licenses.txt'), licenses(result.metafile))

/** name, license and license text of each package whose code is in the bundle, sorted by name. */
function licenses(metafile) {
  const packages = new Set()
  for (const output of Object.values(metafile.outputs)) {
    for (const input of Object.keys(output.inputs)) {
      const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)
      if (match) packages.add(match[1])
    }
  }
  const entries = [...packages].map(dir => {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'))
    const file = readdirSync(join(root, dir)).find(f => /^(licen[sc]e|copying)/i.test(f))
    const text = file ? readFileSync(join(root, dir, file), 'utf8').trim() : ''
    return { name: pkg.name, text: `${pkg.name}\n${pkg.license ?? 'UNKNOWN'}\n${text}\n` }
  })
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return entries.map(e => e.text).join('\n')
}

if (!existsSync(join(dist, 'index.js'))) throw new Error('esbuild wrote no dist/index.js')
