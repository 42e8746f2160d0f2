/*
 * Every request the action sends, checked against GitHub's published OpenAPI description
 * (see openapi.ts for how its 3.0 schemas are read), and every answer the emulator gives to the
 * artifact and label operations checked against the description's response schemas, so that the
 * emulator cannot drift from the service it stands in for.
 *
 * The bundled action runs as a process, as the runner starts it (scripts/run-action.ts), for the
 * four record jobs, a dry run and the label work against an emulator answering in the full
 * shapes; the same jobs also run in process (src/step/run.ts) against an emulator answering in the
 * shapes of the description's examples (storage records without `id`, `created`, ...).
 *
 * Where the description contradicts its own examples, the example wins: a storage record's
 * `path` is typed `format: uri` while its example is the relative path
 * `com/github/bar/libfoo-1.2.3`, so `path` is checked as a URI reference; and the deployment
 * record's example says `created` where its schema names only `created_at`, so the answers may
 * carry `created`.
 */
import { DIGEST, TOKEN, withEmulator } from '../../__fixtures__/emulator.js'
import { MemoryLog } from '../../__fixtures__/memory-log.js'
import { ScaledClock } from '../../__fixtures__/scaled-clock.js'
import type { AnswerShape, Emulator, RecordedRequest, SeedData } from '../../emulator/index.js'
import { runAction } from '../../scripts/run-action.js'
import { parseInputs, type RawInputs } from '../../src/step/parse-inputs.js'
import { run } from '../../src/step/run.js'
import { checkRequest, Description, type Operation, type Problem } from './openapi.js'

const description = new Description()

const sha = (n: number) => n.toString(16).padStart(2, '0').repeat(20)
const DIGEST_2 = 'sha256:' + 'fedcba9876543210'.repeat(4)
const SEED: SeedData = {
  labels: { 'acme/web': [{ name: 'deployed', color: 'ededed' }, { name: 'staging' }] },
  pulls: {
    'acme/web': [
      {
        number: 12,
        merged: true,
        body: 'Fixes #20',
        labels: ['staging'],
        files: ['web/retry.ts', 'api/old.ts => api/retry.ts']
      },
      { number: 14, merged: true, files: ['api/pool.ts'] },
      { number: 16, merged: true, head_ref: 'cache', files: ['web/cache.ts'] },
      // A release squash-merged from develop, carrying #31: its commits are read.
      {
        number: 30,
        merged: true,
        head_ref: 'develop',
        commits: [sha(10)],
        files: ['web/search.ts']
      },
      { number: 31, merged: true, base_ref: 'develop', files: ['web/search.ts'] }
    ]
  },
  issues: { 'acme/web': [{ number: 20, title: 'Broken retries' }] },
  commits: {
    'acme/web': [
      { sha: sha(1), message: 'Start' },
      { sha: sha(2), message: 'Add retries (#12)', pulls: [12] },
      // A merge-commit pull request: its branch commit is its own unless others were merged
      // into that branch, which discovery asks the pull request list.
      { sha: sha(6), message: 'Cache the index', pulls: [16] },
      // A commit the merge button made on that branch: it shows another pull request.
      {
        sha: sha(8),
        message: 'Apply suggestions from code review',
        parents: [sha(6)],
        pulls: [16],
        committer: 'noreply@github.com'
      },
      {
        sha: sha(7),
        message: 'Merge pull request #16 from acme/cache',
        parents: [sha(2), sha(8)],
        pulls: [16]
      },
      { sha: sha(3), message: 'Tune the pool', pulls: [14] },
      { sha: sha(10), message: 'Add search (#31)', parents: [sha(1)], pulls: [31] },
      {
        sha: sha(9),
        message: 'Release 2.0 (#30)\n\n* Add search (#31)',
        parents: [sha(3)],
        pulls: [30]
      }
    ]
  },
  // A tag push without `since` lists the tags to find the previous release.
  tags: { 'acme/web': { 'v1.0.0': sha(1), 'v2.0.0': sha(9) } }
}

/** The jobs, as the inputs a workflow would give the step. */
const JOBS: Record<string, RawInputs> = {
  'deployment and storage record': {
    digest: `ghcr.io/acme/web@${DIGEST}`,
    version: '2.0.0',
    environment: 'production',
    'physical-environment': 'eu-west-1',
    cluster: 'prod-eu-1',
    tags: 'team=web',
    'runtime-risks': 'internet-exposed',
    'registry-url': 'https://ghcr.io',
    'artifact-url': 'https://ghcr.io/acme/web',
    'registry-repository': 'acme/web',
    'storage-path': 'acme/web/2.0.0'
  },
  'dry run': {
    digest: `ghcr.io/acme/web@${DIGEST}`,
    environment: 'production',
    'registry-url': 'https://ghcr.io',
    'dry-run': 'true'
  },
  'cluster set': {
    cluster: 'prod-eu-1',
    environment: 'production',
    'physical-environment': 'eu-west-1',
    'cluster-mode': 'sync',
    'partial-success': 'true',
    deployments: JSON.stringify([
      { name: 'ghcr.io/acme/api', digest: DIGEST, deployment_name: 'prod-api' },
      { name: 'ghcr.io/acme/web', digest: DIGEST_2, deployment_name: 'prod-web', version: '2.0.0' }
    ])
  },
  'cluster job': {
    cluster: 'prod-eu-2',
    environment: 'production',
    'cluster-mode': 'job',
    deployments: JSON.stringify([
      { name: 'ghcr.io/acme/api', digest: DIGEST, deployment_name: 'prod-api' }
    ])
  },
  labels: {
    labels: 'deployed,production',
    'remove-labels': 'staging',
    'label-color': '0e8a16',
    'label-description': 'Shipped to production',
    'pull-requests': 'auto',
    since: sha(1),
    'label-linked-issues': 'true'
  },
  // One service of a monorepo: without the history, each pull request's files are listed.
  'labels by paths': { labels: 'deployed', since: sha(1), paths: 'web/**, !web/**/*.md' },
  // Numbers given: each issue is read, for its labels and `merged_at` (discovery's answers carry
  // them for `auto`).
  'labels by number': { labels: 'deployed', 'pull-requests': '12' }
}

const runnerEnv = (emulator: Emulator) => ({
  GITHUB_REPOSITORY: 'acme/web',
  GITHUB_API_URL: emulator.url,
  GITHUB_SHA: sha(3),
  GITHUB_EVENT_NAME: 'workflow_dispatch'
})

/** Operations whose answers the emulator shapes in full, checked with unknown fields refused. */
const ANSWERS_CHECKED = /^(orgs\/.*artifact|orgs\/.*cluster|issues\/.*label|repos\/list-deployment)/

/** The contradictions named at the top, resolved as the examples show. */
function adjustAnswer(schema: Record<string, unknown>): Record<string, unknown> {
  const text = JSON.stringify(schema)
  if (!text.includes('artifact-deployment-record')) return schema
  const record = description.resolve({ $ref: '#/components/schemas/artifact-deployment-record' })
  const properties = record['properties'] as Record<string, unknown>
  const patched = { ...record, properties: { ...properties, created: { type: 'string' } } }
  return JSON.parse(
    text.replace(
      /\{"\$ref":"#\/components\/schemas\/artifact-deployment-record"\}/g,
      JSON.stringify(patched)
    )
  ) as Record<string, unknown>
}

function adjust(op: Operation, schema: Record<string, unknown>) {
  if (op.operationId !== 'orgs/create-artifact-storage-record') return schema
  const properties = schema['properties'] as Record<string, Record<string, unknown>>
  return {
    ...schema,
    properties: { ...properties, path: { ...properties['path'], format: 'uri-reference' } }
  }
}

let full: Emulator
let examples: Emulator
beforeAll(async () => {
  const options = { seed: SEED, jobStepMs: 20, pollIntervalSeconds: 1 }
  full = await withEmulator({ ...options, answers: 'full' })
  examples = await withEmulator({ ...options, answers: 'examples' })
})
afterAll(async () => Promise.all([full.close(), examples.close()]))

const seen: Array<{ shape: AnswerShape; request: RecordedRequest }> = []

/** The first storage write's answer is lost after the service saved it: the step then reads the storage list. */
const loseStorageAnswer = (emulator: Emulator) =>
  emulator.addFault({
    method: 'POST',
    path: '/orgs/acme/artifacts/metadata/storage-record',
    fault: { kind: 'lose-answer' }
  })

/**
 * The first label write waits out a rate limit: the target's labels are read again (the issue's
 * label list) before the write is sent again.
 */
const rateLimitFirstLabelWrite = (emulator: Emulator) =>
  emulator.addFault({
    method: 'POST',
    path: '/repos/acme/web/issues/12/labels',
    fault: { kind: 'status', status: 429, headers: { 'retry-after': '1' } }
  })

test('the bundled action, started as the runner starts it, does each job', async () => {
  loseStorageAnswer(full)
  rateLimitFirstLabelWrite(full)
  const runs = await Promise.all(
    Object.entries(JOBS).map(async ([name, inputs]) => {
      const result = await runAction(
        { token: TOKEN, ...(inputs as Record<string, string>) },
        runnerEnv(full)
      )
      return { name, code: result.code, stderr: result.stderr }
    })
  )
  expect(runs).toEqual(Object.keys(JOBS).map(name => ({ name, code: 0, stderr: '' })))
  seen.push(...full.requests.map(request => ({ shape: 'full' as const, request })))
})

test('a tag push without `since`, the bundled action: the previous release from the tag list, a squash-merged release read', async () => {
  full.reset()
  const env = {
    ...runnerEnv(full),
    GITHUB_EVENT_NAME: 'push',
    GITHUB_REF: 'refs/tags/v2.0.0',
    GITHUB_SHA: sha(9)
  }
  const result = await runAction({ token: TOKEN, labels: 'deployed', 'dry-run': 'true' }, env)
  expect(result.code).toBe(0)
  expect(result.stdout).toContain('previous release v1.0.0 by version order')
  expect(full.requests.map(r => r.path)).toEqual(
    expect.arrayContaining(['/repos/acme/web/tags', '/repos/acme/web/pulls/30/commits'])
  )
  expect(result.stdout).toContain('the commits of #30 (squash-merged from a branch')
  expect(result.stdout).toMatch(/Dry run: would POST \S+\/issues\/31\/labels/)
  seen.push(...full.requests.map(request => ({ shape: 'full' as const, request })))
})

test('`since: previous-deployment`, the bundled action: the deployments of the environment and their statuses', async () => {
  full.reset()
  const runUrl = (run: string) => `https://github.com/acme/web/actions/runs/${run}/job/7`
  full.seed({
    deployments: {
      'acme/web': [
        {
          id: 1,
          sha: sha(1),
          environment: 'production',
          statuses: [{ state: 'in_progress', log_url: runUrl('1') }, { state: 'success' }]
        },
        { id: 2, sha: sha(2), environment: 'production', statuses: [{ state: 'failure' }] },
        {
          id: 3,
          sha: sha(3),
          environment: 'production',
          statuses: [{ state: 'in_progress', log_url: runUrl('4242') }]
        }
      ]
    }
  })
  const result = await runAction(
    {
      token: TOKEN,
      labels: 'deployed',
      since: 'previous-deployment',
      environment: 'production',
      'dry-run': 'true'
    },
    runnerEnv(full)
  )
  expect(result.code).toBe(0)
  expect(result.stdout).toContain('previous successful deployment of environment `production`: #1')
  expect(full.requests.map(r => r.path)).toEqual(
    expect.arrayContaining([
      '/repos/acme/web/deployments',
      '/repos/acme/web/deployments/1/statuses'
    ])
  )
  seen.push(...full.requests.map(request => ({ shape: 'full' as const, request })))
})

test('the same jobs in process against answers shaped like the description examples', async () => {
  loseStorageAnswer(examples)
  rateLimitFirstLabelWrite(examples)
  const outcomes = await Promise.all(
    Object.entries(JOBS).map(async ([name, inputs]) => {
      const raw = { token: TOKEN, 'api-url': examples.url, repository: 'acme/web', ...inputs }
      const result = await run(parseInputs(raw, {}), {
        log: new MemoryLog(),
        clock: new ScaledClock(50),
        random: () => 0,
        event: { eventName: 'workflow_dispatch', payload: {}, sha: sha(3), ref: 'refs/heads/main' }
      })
      return { name, failures: result.failures }
    })
  )
  expect(outcomes).toEqual(Object.keys(JOBS).map(name => ({ name, failures: [] })))
  seen.push(...examples.requests.map(request => ({ shape: 'examples' as const, request })))
})

test('every request conforms to the description, and every checked answer too', () => {
  const rejected: Problem[] = []
  const operations = new Set<string>()
  let answers = 0
  for (const { shape, request } of seen) {
    const { op, problems } = checkRequest(description, request, adjust)
    rejected.push(...problems)
    if (!op) continue
    operations.add(`${op.method} ${op.template}`)
    const status = String(request.status)
    if (!status.startsWith('2') || !ANSWERS_CHECKED.test(op.operationId)) continue
    const { schema } = description.response(op, status)
    if (!schema) continue
    answers++
    const errors = description.check(
      `${op.operationId}:${status}:answer`,
      adjustAnswer(schema),
      true,
      request.response
    )
    if (errors)
      rejected.push({ where: `${shape} answer to ${request.method} ${request.url}`, errors })
  }
  console.log(
    `conformance: ${seen.length} requests checked against the description ` +
      `(${operations.size} operations), ${answers} emulator answers checked, ` +
      `${rejected.length} rejected`
  )
  expect(rejected).toEqual([])
  expect([...operations].sort()).toEqual([
    'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}',
    'GET /orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}/jobs/{job_id}',
    'GET /orgs/{org}/artifacts/{subject_digest}/metadata/deployment-records',
    'GET /orgs/{org}/artifacts/{subject_digest}/metadata/storage-records',
    'GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls',
    'GET /repos/{owner}/{repo}/compare/{basehead}',
    'GET /repos/{owner}/{repo}/deployments',
    'GET /repos/{owner}/{repo}/deployments/{deployment_id}/statuses',
    'GET /repos/{owner}/{repo}/issues/{issue_number}',
    'GET /repos/{owner}/{repo}/issues/{issue_number}/labels',
    'GET /repos/{owner}/{repo}/labels/{name}',
    'GET /repos/{owner}/{repo}/pulls',
    'GET /repos/{owner}/{repo}/pulls/{pull_number}',
    'GET /repos/{owner}/{repo}/pulls/{pull_number}/commits',
    'GET /repos/{owner}/{repo}/pulls/{pull_number}/files',
    'GET /repos/{owner}/{repo}/tags',
    'PATCH /repos/{owner}/{repo}/labels/{name}',
    'POST /orgs/{org}/artifacts/metadata/deployment-record',
    'POST /orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}',
    'POST /orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}/jobs',
    'POST /orgs/{org}/artifacts/metadata/storage-record',
    'POST /repos/{owner}/{repo}/issues/{issue_number}/labels',
    'POST /repos/{owner}/{repo}/labels'
  ])
})
