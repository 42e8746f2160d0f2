/**
 * The jobs the project documents, read from where users copy them: every workflow in examples/
 * and every YAML block of README.md that uses the action. Each is staged the way a run of that
 * workflow would meet the action: its event, the checkout its steps make, the files a step before
 * it writes, the values of `${{ steps.* }}` / `${{ vars.* }}`, so that the step's `with:` goes
 * through the launcher exactly as written. Used by the example table (tests) and the demo.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parse } from 'yaml'
import { demoSeed, sha as fakeSha, type SeedData } from '../emulator/index.js'
import { deriveItems, DEFAULT_DEPLOYMENT_NAME_TEMPLATE } from '../src/cluster/kubernetes/derive.js'
import { readObjects } from '../src/cluster/kubernetes/inputs.js'
import { syntheticObjects, writeKubectlList } from './kubectl-list.js'
import { evaluate, projectRoot, type ExpressionContext, type RunContext } from './run-action.js'

export interface DocumentedJob {
  /** where a user finds it: `examples/promote-with-labels.yml` or `README.md: Record a whole cluster` */
  source: string
  /** the first event of the workflow's `on:`; `push` for a README block that shows none */
  eventName: string
  /** the step's `with:`, unevaluated, as the user copies it */
  with: Record<string, string>
  /** an `actions/checkout` step before ours, and its `fetch-depth` (1 unless given) */
  checkout?: { fetchDepth: number }
}

interface Step {
  uses?: string
  with?: Record<string, unknown>
}

const isOurs = (step: Step) => /(^|\/)record-deployment@/.test(step.uses ?? '')

/** Every documented job: examples/*.yml first, then README's blocks in order. */
export function documentedJobs(root = projectRoot()): DocumentedJob[] {
  const jobs: DocumentedJob[] = []
  const folder = join(root, 'examples')
  for (const file of readdirSync(folder)
    .filter(f => /\.ya?ml$/.test(f))
    .sort()) {
    jobs.push(...jobsOf(`examples/${file}`, parse(readFileSync(join(folder, file), 'utf8'))))
  }
  let heading = 'README.md'
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const blocks = readme.split(/^```/m)
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i] ?? ''
    if (i % 2 === 0) {
      const headings = [...block.matchAll(/^#{2,3} (.+)$/gm)]
      const last = headings[headings.length - 1]?.[1]
      if (last) heading = last.trim()
      continue
    }
    if (!block.startsWith('yaml') || !/record-deployment@/.test(block)) continue
    jobs.push(...jobsOf(`README.md: ${heading}`, parse(block.slice('yaml'.length))))
  }
  return jobs
}

/** A whole workflow, a job's `steps:` list, or a list of steps. */
function jobsOf(source: string, document: unknown): DocumentedJob[] {
  const workflow = document as {
    on?: unknown
    jobs?: Record<string, { steps?: Step[] }>
  }
  const eventName = firstEvent(workflow.on) ?? 'push'
  const stepLists: Step[][] = Array.isArray(document)
    ? [document as Step[]]
    : Object.values(workflow.jobs ?? {}).map(job => job.steps ?? [])
  const jobs: DocumentedJob[] = []
  for (const steps of stepLists) {
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
          : {})
      })
    })
  }
  return jobs
}

function firstEvent(on: unknown): string | undefined {
  if (typeof on === 'string') return on
  if (Array.isArray(on)) return on[0] as string | undefined
  if (on && typeof on === 'object') return Object.keys(on)[0]
  return undefined
}

/** The repository every staged run is in, and its history: three pull requests since v1.0.0. */
export const REPOSITORY = 'acme/web'
export const RELEASE_TAG = 'v1.1.0'
/** What the release shipped: #12-#14, and #11 that #12 fixes. */
export const SHIPPED_PULLS = [12, 13, 14]
export const LINKED_ISSUES = [11]

/** The digest a build step of the staged run outputs, and the image it pushed. */
export const BUILT_DIGEST = 'sha256:' + '5f1c0de5'.repeat(8)
export const BUILT_IMAGE = 'ghcr.io/acme/web'

export interface StagedJob {
  /** the step's inputs, evaluated as the runner would */
  inputs: Record<string, string>
  context: Partial<RunContext>
  /** the emulator's data: the repository, its labels, pull requests and the history */
  seed: SeedData
  /**
   * the items a step before ours wrote to `deployments-file`, if it names one; for
   * `kubernetes-file`, the items the list kubectl printed gives, derived from that file
   */
  clusterItems?: ClusterItem[]
}

export interface ClusterItem {
  name: string
  digest: string
  deployment_name: string
  version?: string
}

/**
 * Prepares `workspace` (an empty folder) for one run of `job`: a git history like the one the
 * seed describes (cloned as deep as the example's checkout asks, or none without a checkout),
 * the deployments file of size `clusterSize` when the step reads one, and the run's context.
 */
export async function stageJob(
  job: DocumentedJob,
  workspace: string,
  run: { token: string; apiUrl: string; clusterSize?: number }
): Promise<StagedJob> {
  const history = join(workspace, '..', `${workspace.split('/').pop() ?? 'w'}-origin`)
  const shas = await makeHistory(history)
  if (job.checkout) {
    const depth = job.checkout.fetchDepth > 0 ? ['--depth', String(job.checkout.fetchDepth)] : []
    git(join(workspace, '..'), ['clone', '-q', ...depth, `file://${history}`, workspace])
  } else {
    await mkdir(workspace, { recursive: true })
  }

  const head = shas.c3
  const event = eventOf(job.eventName, shas)
  const context: Partial<RunContext> = {
    token: run.token,
    apiUrl: run.apiUrl,
    repository: REPOSITORY,
    eventName: job.eventName,
    event: event.payload,
    sha: head,
    ref: event.ref,
    workspace
  }

  let clusterItems: ClusterItem[] | undefined
  const file = job.with['deployments-file']
  if (file) {
    clusterItems = clusterOf(run.clusterSize ?? 3)
    await writeFile(join(workspace, file), JSON.stringify(clusterItems))
  }
  const kubernetesFile = job.with['kubernetes-file']
  if (kubernetesFile) clusterItems = writeKubectlOutput(job, join(workspace, kubernetesFile), run)

  const expressions: ExpressionContext = {
    github: {
      repository: REPOSITORY,
      repository_owner: REPOSITORY.split('/')[0],
      sha: head,
      ref: event.ref,
      ref_name: event.ref.replace(/^refs\/(heads|tags)\//, ''),
      event_name: job.eventName,
      event: event.payload,
      run_id: '4242',
      run_number: '7',
      workspace
    },
    steps: stepOutputsFor(job),
    vars: varsFor(job)
  }
  const inputs = Object.fromEntries(
    Object.entries(job.with).map(([name, value]) => [name, evaluate(value, expressions)])
  )
  return { inputs, context, seed: seedWith(shas), clusterItems }
}

/** `${{ steps.<id>.outputs.<name> }}` a step before ours gives: a build step's digest. */
function stepOutputsFor(job: DocumentedJob): Record<string, { outputs: Record<string, string> }> {
  const steps: Record<string, { outputs: Record<string, string> }> = {}
  for (const [, id, output] of expressionsOf(job, /steps\.([\w-]+)\.outputs\.([\w-]+)/)) {
    steps[id as string] = {
      outputs: {
        ...steps[id as string]?.outputs,
        [output as string]: valueNamed(output as string, job)
      }
    }
  }
  return steps
}

/** `${{ vars.* }}` the repository defines: a digest or an image, by name. */
function varsFor(job: DocumentedJob): Record<string, string> {
  const vars: Record<string, string> = {}
  for (const [, name] of expressionsOf(job, /vars\.([\w-]+)/)) {
    vars[name as string] = valueNamed(name as string, job)
  }
  return vars
}

function expressionsOf(job: DocumentedJob, pattern: RegExp): RegExpMatchArray[] {
  const found: RegExpMatchArray[] = []
  for (const value of Object.values(job.with)) {
    for (const [, expression] of value.matchAll(/\$\{\{\s*(.*?)\s*\}\}/g)) {
      const match = new RegExp(`^${pattern.source}$`).exec(expression ?? '')
      if (match) found.push(match)
    }
  }
  return found
}

function valueNamed(name: string, job: DocumentedJob): string {
  if (/digest/i.test(name)) return BUILT_DIGEST
  if (/image/i.test(name)) return BUILT_IMAGE
  throw new Error(
    `${job.source} uses \`${name}\`, which the staged run cannot give: name it after what it ` +
      'holds (a digest or an image), or teach scripts/documented-jobs.ts its value'
  )
}

function eventOf(
  eventName: string,
  shas: History
): { payload: Record<string, unknown>; ref: string } {
  const repository = { full_name: REPOSITORY, name: 'web', owner: { login: 'acme' } }
  switch (eventName) {
    case 'push':
      return {
        ref: 'refs/heads/main',
        payload: {
          ref: 'refs/heads/main',
          before: shas.c0,
          after: shas.c3,
          commits: [],
          repository
        }
      }
    case 'release':
      return {
        ref: `refs/tags/${RELEASE_TAG}`,
        payload: {
          action: 'published',
          release: { tag_name: RELEASE_TAG, target_commitish: 'main', draft: false },
          repository
        }
      }
    case 'pull_request':
    case 'pull_request_target':
      return {
        ref: 'refs/pull/12/merge',
        payload: {
          action: 'closed',
          number: 12,
          pull_request: { number: 12, merged: true, base: { ref: 'main', repo: repository } },
          repository
        }
      }
    default:
      return { ref: 'refs/heads/main', payload: { ref: 'refs/heads/main', repository } }
  }
}

/**
 * What `kubectl get pods,replicasets,... -A -o json` prints for a cluster of `clusterSize`
 * workloads (Deployments mid-rollout, DaemonSets, StatefulSets, CronJobs, init containers,
 * annotations), and the items it gives under the step's namespace filters and template.
 */
function writeKubectlOutput(
  job: DocumentedJob,
  path: string,
  run: { clusterSize?: number }
): ClusterItem[] {
  writeKubectlList(path, syntheticObjects(run.clusterSize ?? 3))
  const only = listOf(job.with['namespaces'])
  const excluded = listOf(job.with['exclude-namespaces'])
  const { objects } = readObjects(path, namespace =>
    only.length > 0 ? only.includes(namespace) : !excluded.includes(namespace)
  )
  const template = job.with['deployment-name-template'] ?? DEFAULT_DEPLOYMENT_NAME_TEMPLATE
  return deriveItems(objects, template).items
}

const listOf = (value: string | undefined) =>
  (value ?? '')
    .split(/[\n,]/)
    .map(item => item.trim())
    .filter(Boolean)

/** Distinct workloads of a cluster, as the README's kubectl | jq step writes them. */
function clusterOf(size: number): ClusterItem[] {
  return Array.from({ length: size }, (_, i) => ({
    name: `ghcr.io/acme/service-${i % 17}`,
    digest: 'sha256:' + (i + 1).toString(16).padStart(8, '0').repeat(8),
    deployment_name: `apps-service-${i}-app`,
    version: `1.${i % 5}.0`
  }))
}

type History = Record<'c0' | 'c1' | 'c2' | 'c3', string>

/**
 * A real git repository with the history `demoSeed()` describes (v1.0.0, then #12 merged, #13
 * squashed, and #14's commit that names no pull request), tagged v1.0.0 and RELEASE_TAG.
 */
async function makeHistory(dir: string): Promise<History> {
  await mkdir(dir, { recursive: true })
  git(dir, ['init', '-q', '-b', 'main'])
  const messages = {
    c0: 'Initial release',
    c1: 'Merge pull request #12 from acme/feature-12\n\nAdd health check',
    c2: 'Cache static assets (#13)',
    c3: 'Tune connection pool'
  }
  const shas = {} as History
  let time = 1_767_000_000
  for (const [name, message] of Object.entries(messages) as Array<[keyof History, string]>) {
    await writeFile(join(dir, 'CHANGES'), `${name}\n`, { flag: 'a' })
    git(dir, ['add', 'CHANGES'])
    git(dir, ['commit', '-q', '-m', message], time++)
    shas[name] = git(dir, ['rev-parse', 'HEAD']).trim()
  }
  git(dir, ['tag', 'v1.0.0', shas.c0])
  git(dir, ['tag', RELEASE_TAG, shas.c3])
  return shas
}

/** demoSeed() with the real history's shas in place of its made-up ones. */
function seedWith(shas: History): SeedData {
  const real = new Map(Object.entries(shas).map(([name, value]) => [fakeSha(name), value]))
  const seed = demoSeed()
  const swap = (value: string) => real.get(value) ?? value
  for (const commits of Object.values(seed.commits ?? {})) {
    for (const commit of commits) commit.sha = swap(commit.sha)
  }
  for (const refs of Object.values(seed.refs ?? {})) {
    for (const name of Object.keys(refs)) refs[name] = swap(refs[name] ?? '')
    refs[RELEASE_TAG] = shas.c3
  }
  return seed
}

function git(cwd: string, args: string[], time?: number): string {
  const date = time !== undefined ? `@${time} +0000` : undefined
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Octo Cat',
      GIT_AUTHOR_EMAIL: 'octocat@example.com',
      GIT_COMMITTER_NAME: 'Octo Cat',
      GIT_COMMITTER_EMAIL: 'octocat@example.com',
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: cwd,
      ...(date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {})
    }
  })
}
