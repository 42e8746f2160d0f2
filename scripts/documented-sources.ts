/**
 * Where users copy the action from, read as they find it: every workflow in examples/, every
 * YAML block of README.md and docs/*.md that uses the action (a whole workflow, a list of steps or
 * one step), and their blocks for pipelines outside Actions that run the command line. A block that names
 * the action and cannot be read is an error, never skipped. scripts/documented-jobs.ts stages
 * each job for a run.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { commandWords, flagsOf, pipelineOf, type Pipeline } from './documented-pipelines.js'
import { documentationFiles } from './docs-check.js'
import { projectRoot } from './run-action.js'

export interface DocumentedJob {
  /** where a user finds it: `examples/promote-with-labels.yml` or `docs/cluster.md: Record a whole cluster` */
  source: string
  /** the first event of the workflow's `on:`; `push` for a documentation block that shows none */
  eventName: string
  /** the step's `with:`, unevaluated, as the user copies it */
  with: Record<string, string>
  /** an `actions/checkout` step before ours, and its `fetch-depth` (1 unless given) */
  checkout?: { fetchDepth: number }
  /**
   * a pipeline outside GitHub Actions that runs the command line (docs/command-line.md,
   * "Outside GitHub Actions"); `with` then holds its flags as written, unexpanded
   */
  pipeline?: Pipeline
  /** the first combination of the job's `strategy.matrix` (`${{ matrix.* }}`), when it has one */
  matrix?: Record<string, unknown>
  /** a push of tags only (`on: push: tags:` and no branches): the run's ref is a release tag */
  tagPush?: boolean
  /**
   * a reusable workflow's `on: workflow_call: inputs:`, each with its default when it declares
   * one (`${{ inputs.* }}`)
   */
  callInputs?: Record<string, string | undefined>
}

/** One workflow or snippet that shows the action, as a user copies it. */
export interface DocumentedSource {
  source: string
  /** the YAML as written */
  text: string
  /** a whole workflow, a list of steps, or a single step */
  shape: 'workflow' | 'steps' | 'step'
  document: unknown
}

interface Step {
  uses?: string
  with?: Record<string, unknown>
}

/** A block that uses the action (`uses: OWNER/record-deployment@v1`), not the package `record-deployment@1`. */
const USES_THE_ACTION = /\/record-deployment@/
const isOurs = (step: Step) => /(^|\/)record-deployment@/.test(step.uses ?? '')

/**
 * Every workflow and snippet that shows the action: examples/*.yml and *.yaml first, then
 * the blocks of README.md and docs/*.md in order. A block that names `OWNER/record-deployment@` and cannot be read as
 * YAML (another fence, not a workflow, a list of steps or a step) is an error, never skipped.
 */
export function documentedSources(root = projectRoot()): DocumentedSource[] {
  const sources: DocumentedSource[] = []
  const folder = join(root, 'examples')
  for (const file of readdirSync(folder)
    .filter(f => /\.ya?ml$/.test(f))
    .sort()) {
    sources.push(sourceOf(`examples/${file}`, readFileSync(join(folder, file), 'utf8')))
  }
  for (const { source, fence, body } of readmeBlocks(root)) {
    if (!USES_THE_ACTION.test(body)) continue
    if (!/^ya?ml$/.test(fence))
      throw new Error(
        `${source}: a block that uses the action is fenced \`${fence}\`; fence it \`yaml\` ` +
          'so that the example table runs it and the workflow parser reads it'
      )
    sources.push(sourceOf(source, body))
  }
  return sources
}

const runsTheCommandLine = (body: string) =>
  !USES_THE_ACTION.test(body) && /\brecord-deployment(@[\w.-]+)?\s+--/.test(body)
const isShell = (fence: string) => /^(sh|bash|shell|console)$/.test(fence)

/** The documentation's pipelines that run the command line (`record-deployment --...`), in order. */
export function documentedPipelines(
  root = projectRoot()
): Array<{ source: string; pipeline: Pipeline }> {
  return readmeBlocks(root)
    .filter(({ fence, body }) => runsTheCommandLine(body) && !isShell(fence))
    .map(({ source, fence, body }) => ({ source, pipeline: pipelineOf(source, fence, body) }))
}

/**
 * The documentation's shell snippets that show the command line with placeholders (`GITHUB_TOKEN=...`),
 * not a pipeline to run: the example table names the ones it leaves to other tests.
 */
export function commandLineSnippets(root = projectRoot()): string[] {
  return readmeBlocks(root)
    .filter(({ fence, body }) => runsTheCommandLine(body) && isShell(fence))
    .map(({ source }) => source)
}

/**
 * The fenced blocks of README.md, then of each page of docs/, each named after its file and the
 * heading above it (`## A: ### B` as `docs/page.md: A: B`).
 */
function readmeBlocks(root: string): Array<{ source: string; fence: string; body: string }> {
  return documentationFiles(root).flatMap(file => blocksOf(root, file))
}

function blocksOf(
  root: string,
  file: string
): Array<{ source: string; fence: string; body: string }> {
  const found: Array<{ source: string; fence: string; body: string }> = []
  let section = ''
  let heading = ''
  // A fence may be indented (a block inside a list item) and made of ``` or ~~~: GitHub renders
  // each as a code block, so a user copies it like any other; its body loses the fence's indent.
  let open: { marker: string; indent: number; fence: string; lines: string[] } | undefined
  for (const line of readFileSync(join(root, file), 'utf8').split('\n')) {
    const fenceLine = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)/.exec(line)
    if (open) {
      if (fenceLine && fenceLine[2]?.startsWith(open.marker) && !fenceLine[3]) {
        found.push({
          source: heading ? `${file}: ${heading}` : file,
          fence: open.fence,
          body:
            open.lines
              .map(l => l.replace(new RegExp(`^ {0,${open?.indent ?? 0}}`), ''))
              .join('\n') + '\n'
        })
        open = undefined
      } else open.lines.push(line)
      continue
    }
    if (fenceLine) {
      open = {
        marker: fenceLine[2] ?? '```',
        indent: fenceLine[1]?.length ?? 0,
        fence: fenceLine[3] ?? '',
        lines: []
      }
      continue
    }
    const title = /^(#{2,4}) (.+)$/.exec(line)
    if (title) {
      if (title[1] === '##') section = heading = (title[2] ?? '').trim()
      else heading = `${section}: ${(title[2] ?? '').trim()}`
    }
  }
  return found
}

function sourceOf(source: string, text: string): DocumentedSource {
  const document: unknown = parse(text)
  const shape = Array.isArray(document)
    ? 'steps'
    : isObject(document) && 'jobs' in document
      ? 'workflow'
      : isObject(document) && 'uses' in document
        ? 'step'
        : undefined
  if (!shape) throw new Error(`${source}: neither a workflow, a list of steps nor a single step`)
  return { source, text, shape, document }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The source as a whole workflow for GitHub's parser: a list of steps or a single step goes into
 * one job of a `workflow_dispatch` workflow, indented as written (line numbers shift by 5).
 */
export function asWorkflow(source: DocumentedSource): string {
  if (source.shape === 'workflow') return source.text
  const lines = source.text.replace(/\n+$/, '').split('\n')
  const steps =
    source.shape === 'steps' ? lines : lines.map((line, i) => (i === 0 ? '- ' : '  ') + line)
  return [
    'on: workflow_dispatch',
    'jobs:',
    '  documented:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    ...steps.map(line => (line ? `      ${line}` : line))
  ].join('\n')
}

/**
 * Every documented job: each step of ours in every documented source, in their order, then each
 * pipeline that runs the command line.
 */
export function documentedJobs(root = projectRoot()): DocumentedJob[] {
  const sources = documentedSources(root)
  const steps = sources.flatMap(source => {
    const jobs = jobsOf(source)
    if (jobs.length === 0 && !callsDocumented(source, sources))
      throw new Error(
        `${source.source} has no step that uses record-deployment@ and calls no reusable ` +
          'workflow of examples/ that has one'
      )
    return jobs
  })
  const pipelines = documentedPipelines(root).map(({ source, pipeline }) => ({
    source,
    eventName: 'none',
    with: flagsOf(commandWords(pipeline.script)),
    pipeline
  }))
  return [...steps, ...pipelines]
}

/**
 * Whether every job of a workflow that has no step of ours calls a reusable workflow of
 * examples/ (`uses: ./.github/workflows/NAME.yml`, the example saved under its own name) that
 * has one: the table runs the called workflow, with its inputs' defaults (documented-jobs.ts).
 */
function callsDocumented(source: DocumentedSource, sources: DocumentedSource[]): boolean {
  if (source.shape !== 'workflow') return false
  const jobs = Object.values((source.document as { jobs?: object }).jobs ?? {}) as Array<{
    uses?: string
  }>
  const called = jobs
    .map(job => /^\.\/\.github\/workflows\/([\w.-]+\.ya?ml)$/.exec(job.uses ?? '')?.[1])
    .filter(name => name !== undefined)
  return (
    called.length > 0 &&
    called.every(name => {
      const example = sources.find(s => s.source === `examples/${name}`)
      return example !== undefined && jobsOf(example).length > 0
    })
  )
}

/** The steps of ours in a whole workflow, a job's `steps:` list, or a single step. */
function jobsOf({ source, shape, document }: DocumentedSource): DocumentedJob[] {
  const workflow = document as {
    on?: unknown
    jobs?: Record<string, { steps?: Step[]; strategy?: { matrix?: Record<string, unknown> } }>
  }
  const eventName = (shape === 'workflow' ? firstEvent(workflow.on) : undefined) ?? 'push'
  const on = (isObject(workflow.on) ? workflow.on : {}) as Record<string, unknown>
  const push = isObject(on['push']) ? on['push'] : {}
  const tagPush = eventName === 'push' && 'tags' in push && !('branches' in push)
  const call = isObject(on['workflow_call']) ? on['workflow_call'] : undefined
  const callInputs = isObject(call?.['inputs'])
    ? Object.fromEntries(
        Object.entries(call['inputs']).map(([name, spec]) => [
          name,
          isObject(spec) && spec['default'] !== undefined ? String(spec['default']) : undefined
        ])
      )
    : undefined
  const stepLists: Array<[Step[], Record<string, unknown> | undefined]> =
    shape === 'steps'
      ? [[document as Step[], undefined]]
      : shape === 'step'
        ? [[[document as Step], undefined]]
        : Object.values(workflow.jobs ?? {}).map(job => [
            job.steps ?? [],
            firstCombination(job.strategy?.matrix)
          ])
  const jobs: DocumentedJob[] = []
  for (const [steps, matrix] of stepLists) {
    steps.forEach((step, index) => {
      if (!isOurs(step)) return
      const checkout = steps.slice(0, index).find(s => /^actions\/checkout@/.test(s.uses ?? ''))
      jobs.push({
        source,
        eventName,
        with: Object.fromEntries(
          Object.entries(step.with ?? {}).map(([name, value]) => [name, String(value)])
        ),
        ...(checkout
          ? { checkout: { fetchDepth: Number(checkout.with?.['fetch-depth'] ?? 1) } }
          : {}),
        ...(matrix ? { matrix } : {}),
        ...(tagPush ? { tagPush } : {}),
        ...(callInputs ? { callInputs } : {})
      })
    })
  }
  return jobs
}

/** A matrix's first job: the first value of each list (`include` / `exclude` left aside). */
function firstCombination(matrix: Record<string, unknown> | undefined) {
  if (!matrix) return undefined
  const entries = Object.entries(matrix).filter(
    ([name]) => name !== 'include' && name !== 'exclude'
  )
  return Object.fromEntries(entries.map(([name, values]) => [name, (values as unknown[])[0]]))
}

function firstEvent(on: unknown): string | undefined {
  if (typeof on === 'string') return on
  if (Array.isArray(on)) return on[0] as string | undefined
  if (on && typeof on === 'object') return Object.keys(on)[0]
  return undefined
}

/** The repository every staged run is in, and its history: three pull requests since v1.0.0. */
