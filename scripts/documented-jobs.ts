// Over 300 lines on purpose: one staged world per run (history, event, files, step outputs and
// variables, pipeline variables, the seed with the history's shas) read together.
/**
 * The jobs the project documents (scripts/documented-sources.ts reads them), each staged the way a
 * run of that workflow would meet the action: its event, the checkout its steps make, the files a
 * step before it writes, the values of `${{ steps.* }}` / `${{ vars.* }}`, so that the step's
 * `with:` goes through the launcher exactly as written; a pipeline outside Actions gets the
 * variables its system sets. Used by the example table (tests) and the demo.
 */
import { execFileSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { demoSeed, sha as fakeSha, type SeedData } from '../emulator/index.js'
import type { DocumentedJob } from './documented-sources.js'
import type { Pipeline } from './documented-pipelines.js'
import { syntheticObjects, writeKubectlList } from './kubectl-list.js'
import type { ExpressionContext, RunContext } from './run-action.js'

export {
  asWorkflow,
  commandLineSnippets,
  documentedJobs,
  documentedPipelines,
  documentedSources,
  type DocumentedJob,
  type DocumentedSource
} from './documented-sources.js'

export const REPOSITORY = 'acme/web'
export const RELEASE_TAG = 'v1.1.0'
/** What the release shipped: #12-#14, and #11 that #12 fixes. */
export const SHIPPED_PULLS = [12, 13, 14]
export const LINKED_ISSUES = [11]

/** The digest a build step of the staged run outputs, and the image it pushed. */
export const BUILT_DIGEST = 'sha256:' + '5f1c0de5'.repeat(8)
export const BUILT_IMAGE = 'ghcr.io/acme/web'

export interface StagedJob {
  context: Partial<RunContext>
  /**
   * the workflow's other contexts for the step's `with:` (`steps`, `vars`, `secrets`, `env`),
   * evaluated by the launcher with its `github` and `runner` (`runAction`'s `expressions`)
   */
  expressions: ExpressionContext
  /** the emulator's data: the repository, its labels, pull requests and the history */
  seed: SeedData
  /** the items a step before ours wrote to `deployments-file`, if the step reads one */
  deploymentsFile?: ClusterItem[]
  /**
   * for `kubernetes-file`: the number of workloads of the synthetic cluster whose kubectl output
   * was written there (`syntheticObjects` of scripts/kubectl-list.ts)
   */
  kubectlWorkloads?: number
  /**
   * for a pipeline outside Actions: the variables its system gives the script (the commit, the
   * environment, what an earlier job passed on, the secrets) and the service's URL
   */
  variables?: Record<string, string>
}

export interface ClusterItem {
  name: string
  digest: string
  deployment_name: string
  version?: string
}

/** A real git repository with the staged history, cloned by every staged run that checks out. */
export interface Origin {
  dir: string
  shas: History
}

/** Makes the origin repository in `dir` (once; staged runs clone it). */
export async function makeOrigin(dir: string): Promise<Origin> {
  return { dir, shas: await makeHistory(dir) }
}

/**
 * Prepares `workspace` (an empty folder) for one run of `job`: a clone of the origin's history as
 * deep as the example's checkout asks (none without a checkout), the deployments file or the
 * kubectl output of `clusterSize` workloads when the step reads one, and the run's context.
 */
export async function stageJob(
  job: DocumentedJob,
  workspace: string,
  run: { token: string; apiUrl: string; clusterSize?: number; origin?: Origin }
): Promise<StagedJob> {
  const origin =
    run.origin ??
    (await makeOrigin(join(workspace, '..', `${workspace.split('/').pop() ?? 'w'}-origin`)))
  const shas = origin.shas
  if (job.checkout) {
    const depth = job.checkout.fetchDepth > 0 ? ['--depth', String(job.checkout.fetchDepth)] : []
    git(join(workspace, '..'), ['clone', '-q', ...depth, `file://${origin.dir}`, workspace])
  } else {
    await mkdir(workspace, { recursive: true })
  }

  const event = eventOf(job.eventName, shas, job.tagPush)
  const context: Partial<RunContext> = {
    token: run.token,
    apiUrl: run.apiUrl,
    repository: REPOSITORY,
    eventName: job.eventName,
    event: event.payload,
    sha: shas.c3,
    ref: event.ref,
    workspace
  }

  const staged: StagedJob = {
    context,
    expressions: {
      steps: stepOutputsFor(job),
      vars: varsFor(job),
      secrets: {},
      env: {},
      ...(job.matrix ? { matrix: job.matrix } : {}),
      ...(job.callInputs ? { inputs: inputsFor(job, job.callInputs) } : {})
    },
    seed: seedWith(shas)
  }
  const file = job.with['deployments-file']
  if (file) {
    staged.deploymentsFile = clusterOf(run.clusterSize ?? 3)
    await writeFile(join(workspace, file), JSON.stringify(staged.deploymentsFile))
  }
  const kubernetesFile = job.with['kubernetes-file']
  if (kubernetesFile) {
    staged.kubectlWorkloads = run.clusterSize ?? 3
    writeKubectlList(join(workspace, kubernetesFile), syntheticObjects(staged.kubectlWorkloads))
  }
  if (job.pipeline) staged.variables = pipelineVariables(job.pipeline, workspace, shas, run)
  return staged
}

/**
 * What each system sets for a job's script, as its documentation names them, with the values of
 * the staged run; the secrets the example names hold the token; `GITHUB_API_URL` points at the
 * emulator. `IMAGE_DIGEST` is what the example says an earlier job or stage passed on. A variable
 * the script uses and nobody sets fails the run (bash -u).
 */
function pipelineVariables(
  pipeline: Pipeline,
  workspace: string,
  shas: History,
  run: { token: string; apiUrl: string }
): Record<string, string> {
  const system: Record<Pipeline['kind'], Record<string, string>> = {
    'GitLab CI': {
      CI: 'true',
      GITLAB_CI: 'true',
      CI_COMMIT_SHA: shas.c3,
      CI_COMMIT_TAG: RELEASE_TAG,
      CI_COMMIT_REF_NAME: RELEASE_TAG,
      CI_PIPELINE_ID: '4242',
      CI_JOB_ID: '7',
      CI_PROJECT_DIR: workspace,
      ...(pipeline.environment ? { CI_ENVIRONMENT_NAME: pipeline.environment } : {}),
      IMAGE_DIGEST: BUILT_DIGEST
    },
    Jenkins: {
      BUILD_NUMBER: '7',
      BUILD_ID: '7',
      JOB_NAME: 'web',
      WORKSPACE: workspace,
      GIT_COMMIT: shas.c3,
      IMAGE_DIGEST: BUILT_DIGEST
    },
    'Argo CD hook': { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }
  }
  return {
    ...system[pipeline.kind],
    ...Object.fromEntries(pipeline.secrets.map(name => [name, run.token])),
    GITHUB_API_URL: run.apiUrl
  }
}

/** `${{ steps.<id>.outputs.<name> }}` a step before ours gives: a build step's digest. */
function stepOutputsFor(job: DocumentedJob): Record<string, { outputs: Record<string, string> }> {
  const steps: Record<string, { outputs: Record<string, string> }> = {}
  for (const [, id, output] of namesIn(job, /\bsteps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
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
  for (const [, name] of namesIn(job, /\bvars\.([\w-]+)/g)) {
    vars[name as string] = valueNamed(name as string, job)
  }
  return vars
}

/** The matches of `pattern` inside the `${{ }}` expressions of the step's `with:`. */
function namesIn(job: DocumentedJob, pattern: RegExp): RegExpMatchArray[] {
  const found: RegExpMatchArray[] = []
  for (const value of Object.values(job.with)) {
    for (const [, expression] of value.matchAll(/\$\{\{(.*?)\}\}/gs))
      found.push(...(expression ?? '').matchAll(pattern))
  }
  return found
}

/**
 * `${{ inputs.* }}` of a reusable workflow, as a caller passes them: each input's default, else a
 * value by its name (a digest or an image).
 */
function inputsFor(
  job: DocumentedJob,
  declared: Record<string, string | undefined>
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(declared).map(([name, fallback]) => [name, fallback ?? valueNamed(name, job)])
  )
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
  shas: History,
  tagPush = false
): { payload: Record<string, unknown>; ref: string } {
  const repository = { full_name: REPOSITORY, name: 'web', owner: { login: 'acme' } }
  switch (eventName) {
    case 'push':
      // a workflow on tags alone: the release tag's push (a new ref: no commit before it)
      if (tagPush)
        return {
          ref: `refs/tags/${RELEASE_TAG}`,
          payload: {
            ref: `refs/tags/${RELEASE_TAG}`,
            before: '0'.repeat(40),
            after: shas.c3,
            created: true,
            commits: [],
            repository
          }
        }
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

/** Distinct workloads of a cluster, as the README's kubectl | jq step writes them. */
function clusterOf(size: number): ClusterItem[] {
  return Array.from({ length: size }, (_, i) => ({
    name: `ghcr.io/acme/service-${i % 17}`,
    digest: 'sha256:' + (i + 1).toString(16).padStart(8, '0').repeat(8),
    deployment_name: `apps-service-${i}-app`,
    version: `1.${i % 5}.0`
  }))
}

export type History = Record<'c0' | 'c1' | 'c2' | 'c3', string>

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
    // Under web/: the monorepo examples' `paths: web/**` takes every shipped pull request in.
    await mkdir(join(dir, 'web'), { recursive: true })
    await writeFile(join(dir, 'web', 'CHANGES'), `${name}\n`, { flag: 'a' })
    git(dir, ['add', 'web/CHANGES'])
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
  for (const deployments of Object.values(seed.deployments ?? {})) {
    for (const deployment of deployments) deployment.sha = swap(deployment.sha)
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
