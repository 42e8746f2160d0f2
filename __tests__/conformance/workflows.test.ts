/**
 * Every workflow a user copies (examples/*.yml and the blocks of README.md and docs/*.md that use the action) read by
 * GitHub's own workflow parser (`@actions/workflow-parser`, the schema and expression checks of
 * the Actions service and editor): no error. Then what the parser cannot see but a run meets:
 * every step finds what it needs from the steps before it (the registry login before a push, the
 * checkout before a script of the repository, a kubeconfig before kubectl, the step whose outputs
 * it reads), every `vars.*` / `secrets.*` is named in a comment that says what to put there, and
 * no script has an expression pasted into it (GitHub's hardening guide: values reach a script
 * through `env:`). A list of steps or a single step is parsed inside a one-job workflow.
 */
import {
  convertWorkflowTemplate,
  isBasicExpression,
  NoOperationTraceWriter,
  parseWorkflow
} from '@actions/workflow-parser'
import { asWorkflow, documentedSources } from '../../scripts/documented-jobs.js'

const sources = documentedSources()

interface Step {
  id?: string
  name?: string
  uses?: string
  run?: string
  with?: Record<string, unknown>
  env?: Record<string, unknown>
}

/** Every job's steps of a source, in order. */
function stepListsOf(document: unknown, shape: string): Step[][] {
  if (shape === 'steps') return [document as Step[]]
  if (shape === 'step') return [[document as Step]]
  const jobs = (document as { jobs?: Record<string, { steps?: Step[] }> }).jobs ?? {}
  return Object.values(jobs).map(job => job.steps ?? [])
}

const label = (step: Step) => step.name ?? step.id ?? step.uses ?? step.run?.split('\n')[0] ?? ''

/** What a step needs from the steps before it, and how to tell that one of them gives it. */
const NEEDS: Array<{
  what: string
  needs: (step: Step) => boolean
  givenBy: (before: Step) => boolean
}> = [
  {
    what: 'a registry login (docker/login-action) before pushing an image',
    needs: step =>
      (/^docker\/build-push-action@/.test(step.uses ?? '') &&
        String(step.with?.['push']) === 'true') ||
      /\bdocker (image )?push\b/.test(step.run ?? ''),
    givenBy: before => /^docker\/login-action@/.test(before.uses ?? '')
  },
  {
    what: 'a checkout (actions/checkout) before running a script of the repository',
    needs: step => /(^|[\s;&|(])\.\/[\w.-]+/.test(step.run ?? ''),
    givenBy: before => /^actions\/checkout@/.test(before.uses ?? '')
  },
  {
    what: 'a kubeconfig (written to ~/.kube/config or KUBECONFIG, or a set-context action) before kubectl',
    needs: step => /\bkubectl\b/.test(step.run ?? ''),
    givenBy: before =>
      /\.kube\/config|KUBECONFIG/.test(before.run ?? '') ||
      /(set-context|get-credentials|configure-aws-credentials)@/.test(before.uses ?? '')
  }
]

test('the documented workflows are the examples and every block of the action in README and docs/', () => {
  expect(sources.filter(s => s.source.startsWith('examples/')).length).toBeGreaterThanOrEqual(8)
  expect(sources.filter(s => /^(README\.md|docs\/)/.test(s.source)).length).toBeGreaterThanOrEqual(
    8
  )
})

describe.each(sources.map(s => [s.source, s] as const))('%s', (_name, source) => {
  const steps = stepListsOf(source.document, source.shape)

  test("passes GitHub's workflow parser", async () => {
    const parsed = parseWorkflow(
      { name: source.source, content: asWorkflow(source) },
      new NoOperationTraceWriter()
    )
    const errors = parsed.context.errors.getErrors().map(e => e.message)
    expect(errors).toEqual([])
    expect(parsed.value).toBeDefined()
    if (!parsed.value) return
    const template = await convertWorkflowTemplate(parsed.context, parsed.value)
    expect((template.errors ?? []).map(e => e.Message)).toEqual([])
    // The parser reads each run script as text or as an expression: none is an expression.
    const pasted = template.jobs.flatMap(job =>
      'steps' in job
        ? job.steps.filter(s => 'run' in s && isBasicExpression(s.run)).map(s => s.id)
        : []
    )
    expect({ 'scripts with ${{ }} in them': pasted }).toEqual({ 'scripts with ${{ }} in them': [] })
  })

  test('every step finds what it needs in the steps before it', () => {
    const missing: string[] = []
    for (const list of steps) {
      list.forEach((step, index) => {
        const before = list.slice(0, index)
        for (const need of NEEDS) {
          if (need.needs(step) && !before.some(need.givenBy))
            missing.push(`${label(step)}: ${need.what}`)
        }
        const text = JSON.stringify(step)
        for (const [, id] of text.matchAll(/\bsteps\.([\w-]+)\.outputs\b/g)) {
          const given = before.some(b => b.id === id)
          // A snippet may leave a step out, and say so in a comment naming its id.
          const named = new RegExp(`#.*\\bid: ${id}\\b`).test(source.text)
          if (!given && !named) missing.push(`${label(step)}: a step with id \`${id}\` before it`)
        }
      })
    }
    expect(missing).toEqual([])
  })

  test('every vars.* and secrets.* it uses is named in a comment that says what it holds', () => {
    const used = new Set(
      [...source.text.matchAll(/\$\{\{[^}]*?\b((?:vars|secrets)\.\w+)/g)].map(m => m[1] as string)
    )
    const comments = source.text
      .split('\n')
      .filter(line => /(^|\s)#/.test(line))
      .join('\n')
    const unexplained = [...used].filter(
      name =>
        name !== 'secrets.GITHUB_TOKEN' &&
        !new RegExp(`\\b${name.replace('.', '\\.')}\\b`).test(comments)
    )
    expect(unexplained).toEqual([])
  })
})
