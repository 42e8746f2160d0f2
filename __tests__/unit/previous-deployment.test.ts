/**
 * `since: previous-deployment`: which deployment of the environment the range starts at (the
 * newest whose latest status is `success`, this run's own and the event's skipped, or the one
 * their success made `inactive`), the capped reads, what happens without one, the known limits,
 * and the word's parsing.
 */
import { setup, API } from '../../__fixtures__/service-client.js'
import {
  DEPLOYMENTS_PER_PAGE,
  MAX_DEPLOYMENT_PAGES,
  namesRun,
  previousDeployment,
  type DeploymentStart
} from '../../src/labels/previous-deployment.js'
import { isSafeRef, parseLabelInputs } from '../../src/labels/inputs.js'
import { InputError, parseInputs, type RawInputs } from '../../src/step/parse-inputs.js'

const LIST = `/repos/acme/web/deployments?environment=production&per_page=${DEPLOYMENTS_PER_PAGE}`
const RUN = '4242'
const sha = (n: number) => n.toString(16).padStart(40, '0')
const runUrl = (run: string) => `https://github.com/acme/web/actions/runs/${run}/job/9`

interface Fake {
  id: number
  sha?: string
  /** newest first, as the service lists them */
  states: string[]
  run?: string
}

/** Answers the list (pages of `pageSize`, `next` links) and each deployment's statuses once. */
function world(deployments: Fake[], pageSize = DEPLOYMENTS_PER_PAGE) {
  const t = setup()
  const pages = Math.max(1, Math.ceil(deployments.length / pageSize))
  for (let page = 1; page <= pages; page++) {
    const path = page === 1 ? LIST : `${LIST}&page=${page}`
    const next = page < pages ? `<${API}${LIST}&page=${page + 1}>; rel="next"` : undefined
    t.on('GET', path, {
      status: 200,
      body: deployments.slice((page - 1) * pageSize, page * pageSize).map(d => ({
        id: d.id,
        sha: d.sha ?? sha(d.id),
        ref: 'main',
        created_at: '2026-11-20T10:00:00Z',
        payload: {},
        creator: null
      })),
      ...(next ? { headers: { link: next } } : {})
    })
  }
  for (const d of deployments) {
    t.on('GET', `/repos/acme/web/deployments/${d.id}/statuses?per_page=10`, {
      status: 200,
      body: d.states.map((state, i) => ({
        id: d.id * 10 + i,
        state,
        created_at: '2026-11-20T10:05:00Z',
        ...(d.run ? { log_url: runUrl(d.run), target_url: runUrl(d.run) } : {})
      }))
    })
  }
  return t
}

const start: DeploymentStart = { environment: 'production', runId: RUN }
const choose = (t: ReturnType<typeof setup>, given: Partial<DeploymentStart> = {}) =>
  previousDeployment(t.client, 'acme', 'web', 'workflow_dispatch', { ...start, ...given })

test('the newest deployment whose latest status is success; a newer failed one is passed over', async () => {
  const t = world([
    { id: 9, states: ['failure', 'in_progress'], run: '4000' },
    { id: 8, states: ['success', 'in_progress'], run: '3900' },
    { id: 7, states: ['inactive', 'success'], run: '3800' }
  ])
  const chosen = await choose(t)
  expect(chosen.base).toBe(sha(8))
  expect(chosen.warnings).toEqual([])
  expect(chosen.notes[0]).toBe(
    'workflow_dispatch: previous successful deployment of environment `production`: #8 (sha ' +
      `${sha(8).slice(0, 7)}, ref main), success at 2026-11-20T10:05:00Z, created 2026-11-20T10:00:00Z`
  )
  expect(chosen.notes[1]).toContain('passed over, newest first: #9 (sha')
  expect(chosen.notes[1]).toContain('(failure)')
  // One page of the list and the statuses of #9 and #8: #7 is never read.
  expect(t.client.counts.reads).toBe(3)
})

test("this run's own deployment (still in progress) and a re-run's earlier successful attempt are skipped", async () => {
  const t = world([
    { id: 12, states: ['in_progress', 'queued'], run: RUN },
    { id: 11, states: ['success', 'in_progress'], run: RUN },
    { id: 10, states: ['success'], run: '4100' }
  ])
  const chosen = await choose(t)
  expect(chosen.base).toBe(sha(10))
  expect(chosen.notes[1]).toMatch(
    /#12 \(sha [0-9a-f]{7}, ref main\) \(this run's own, in_progress\)/
  )
  expect(chosen.notes[1]).toMatch(/#11 .*\(this run's own, success\)/)
  // Without the run id, the earlier attempt would be taken: the rule is what skips it.
  const without = await choose(
    world([
      { id: 12, states: ['in_progress'], run: RUN },
      { id: 11, states: ['success'], run: RUN }
    ]),
    { runId: undefined }
  )
  expect(without.base).toBe(sha(11))
})

test('failure, error, inactive, pending, queued and a deployment without statuses are all passed over', async () => {
  const t = world([
    { id: 20, states: ['error'] },
    { id: 19, states: ['inactive', 'success'] },
    { id: 18, states: [] },
    { id: 17, states: ['pending'] },
    { id: 16, states: ['queued'] },
    { id: 15, states: ['failure'] },
    { id: 14, states: ['success'] }
  ])
  const chosen = await choose(t)
  expect(chosen.base).toBe(sha(14))
  for (const why of ['error', 'inactive', 'no status', 'pending', 'queued', 'failure'])
    expect(chosen.notes[1]).toContain(`(${why})`)
})

test("once this run's own deployment succeeded (a later job), the one it made inactive is taken", async () => {
  // `deploy` (environment: production) succeeded, then this step runs in a job that `needs:` it:
  // GitHub made the previous success, #51, `inactive`; it is still the previous deployment.
  const t = world([
    { id: 52, states: ['success', 'in_progress', 'queued'], run: RUN },
    { id: 51, states: ['inactive', 'success', 'in_progress'], run: '4100' },
    { id: 50, states: ['inactive', 'success'], run: '4000' }
  ])
  const chosen = await choose(t)
  expect(chosen.base).toBe(sha(51))
  expect(chosen.warnings).toEqual([])
  expect(chosen.notes[0]).toContain('#51 (sha')
  expect(chosen.notes[0]).toContain('inactive since')
  expect(chosen.notes[1]).toMatch(/#52 .*\(this run's own, success\)/)
  expect(t.client.counts.reads).toBe(3)
  // Without a newer success of this run's own, an inactive deployment is still passed over.
  const alone = await choose(
    world([
      { id: 61, states: ['in_progress'], run: RUN },
      { id: 60, states: ['inactive', 'success'], run: '4000' },
      { id: 59, states: ['success'], run: '3900' }
    ])
  )
  expect(alone.base).toBe(sha(59))
  // An inactive one that never succeeded is passed over all the same.
  const never = await choose(
    world([
      { id: 71, states: ['success'], run: RUN },
      { id: 70, states: ['inactive', 'failure'], run: '4000' },
      { id: 69, states: ['inactive', 'success'], run: '3900' }
    ])
  )
  expect(never.base).toBe(sha(69))
})

test('a deployment_status event of a success: the deployment it made inactive is taken', async () => {
  // A tool's deployment #81 succeeded and started this run (`on: deployment_status`): GitHub
  // made #80 inactive.
  const t = world([
    { id: 81, states: ['success'] },
    { id: 80, states: ['inactive', 'success'] }
  ])
  const chosen = await choose(t, { eventDeploymentId: 81, runId: undefined })
  expect(chosen.base).toBe(sha(80))
})

test("the event's own deployment (a deployment event) is skipped without reading its statuses", async () => {
  const t = world([
    { id: 31, states: ['success'] },
    { id: 30, states: ['success'] }
  ])
  const chosen = await choose(t, { eventDeploymentId: 31 })
  expect(chosen.base).toBe(sha(30))
  expect(chosen.notes[1]).toContain("(the event's own)")
  expect(t.seen.map(s => s.path)).toEqual([
    LIST,
    '/repos/acme/web/deployments/30/statuses?per_page=10'
  ])
})

test('pages are followed newest first, and the reads stop after the cap with a warning that says so', async () => {
  const failures = Array.from({ length: 40 }, (_, i) => ({ id: 100 - i, states: ['failure'] }))
  const t = world(failures)
  const chosen = await choose(t)
  expect(chosen.base).toBeUndefined()
  const looked = MAX_DEPLOYMENT_PAGES * DEPLOYMENTS_PER_PAGE
  expect(chosen.warnings).toEqual([
    'workflow_dispatch: found no pull requests, because environment `production` of acme/web ' +
      `has no successful deployment before this run among the newest ${looked} (the first ` +
      `${MAX_DEPLOYMENT_PAGES} pages; older ones are not read): set \`since\` to the ref or sha ` +
      'to start from (a tag, or the sha the environment runs)'
  ])
  expect(t.client.counts.reads).toBe(MAX_DEPLOYMENT_PAGES + looked)
  // A success on the second page is found.
  const second = world([...failures.slice(0, 12), { id: 50, states: ['success'] }])
  expect((await choose(second)).base).toBe(sha(50))
  expect(second.client.counts.reads).toBe(2 + 13)
})

test('no previous successful deployment: a warning, no start (nothing is labeled)', async () => {
  const none = await choose(world([]))
  expect(none).toEqual({
    notes: [],
    warnings: [
      'workflow_dispatch: found no pull requests, because environment `production` of acme/web ' +
        'has no successful deployment before this run (it has none): set `since` to the ref or ' +
        'sha to start from (a tag, or the sha the environment runs)'
    ]
  })
  const onlyOwn = await choose(world([{ id: 1, states: ['in_progress'], run: RUN }]))
  expect(onlyOwn.base).toBeUndefined()
  expect(onlyOwn.warnings[0]).toContain('among its 1:')
})

test('a deployment deleted between the list and its statuses (404) is passed over, not a denied read', async () => {
  // A cleanup job deleted #91 after the list was read: the list itself was allowed.
  const t = setup()
  t.on('GET', LIST, {
    status: 200,
    body: [92, 91, 90].map(id => ({ id, sha: sha(id), ref: 'main', payload: {}, creator: null }))
  })
  t.on('GET', '/repos/acme/web/deployments/92/statuses?per_page=10', {
    status: 200,
    body: [{ id: 1, state: 'in_progress', log_url: runUrl(RUN) }]
  })
  t.on('GET', '/repos/acme/web/deployments/91/statuses?per_page=10', {
    status: 404,
    body: { message: 'Not Found' }
  })
  t.on('GET', '/repos/acme/web/deployments/90/statuses?per_page=10', {
    status: 200,
    body: [{ id: 2, state: 'success' }]
  })
  const chosen = await choose(t)
  expect(chosen.warnings).toEqual([])
  expect(chosen.base).toBe(sha(90))
  expect(chosen.notes[1]).toMatch(
    /#91 \(sha [0-9a-f]{7}, ref main\) \(gone: its statuses answer 404\)/
  )
})

test('a denied read (403) names `deployments: read`', async () => {
  const t = setup()
  t.on('GET', LIST, {
    status: 403,
    body: { message: 'Resource not accessible by integration' },
    headers: { 'x-accepted-github-permissions': 'deployments=read' }
  })
  const chosen = await choose(t)
  expect(chosen.base).toBeUndefined()
  expect(chosen.warnings).toHaveLength(1)
  expect(chosen.warnings[0]).toContain('could not be read (GET /repos/acme/web/deployments')
  expect(chosen.warnings[0]).toContain('the step needs the permission `deployments: read`')
})

test('known limit: a deploy started after this run that succeeded while it ran is newer, yet taken', async () => {
  // Run 4300 started after this one (4242) and finished first: without a `concurrency:` group
  // nothing tells it apart from an older deploy.
  const t = world([
    { id: 41, states: ['success'], run: '4300' },
    { id: 40, states: ['in_progress'], run: RUN },
    { id: 39, states: ['success'], run: '4100' }
  ])
  expect((await choose(t)).base).toBe(sha(41))
})

test('known limit: any job naming the environment records a deployment, and its success is taken', async () => {
  // #43: a pull request's `terraform plan` job (or one that only reads the environment's
  // secrets) named `environment: production` and succeeded; it deployed nothing.
  const plan = await choose(
    world([
      { id: 44, states: ['in_progress'], run: RUN },
      { id: 43, sha: sha(4300), states: ['success'], run: '4300' },
      { id: 42, states: ['success'], run: '4200' }
    ])
  )
  expect(plan.base).toBe(sha(4300))
  // #46: a tool made this run's deployment without a `log_url` naming the run, and marked it
  // `success` before the step: nothing tells it from a previous deploy.
  const tool = await choose(
    world([
      { id: 46, states: ['success'] },
      { id: 45, states: ['inactive', 'success'], run: '4100' }
    ])
  )
  expect(tool.base).toBe(sha(46))
})

test("known limit: another workflow's deploy to the same environment is the previous one", async () => {
  // The api service's workflow (run 4500) deployed production after the web service's last
  // deploy (run 4100): for web's deploy now, api's is the previous one.
  const t = world([
    { id: 47, states: ['in_progress'], run: RUN },
    { id: 46, sha: sha(4500), states: ['success'], run: '4500' },
    { id: 45, sha: sha(4100), states: ['inactive', 'success'], run: '4100' }
  ])
  expect((await choose(t)).base).toBe(sha(4500))
})

test('a status names the run by the path segment of its id, not by a prefix', () => {
  expect(namesRun({ log_url: runUrl('4242') }, '4242')).toBe(true)
  expect(namesRun({ target_url: 'https://github.com/a/b/actions/runs/4242' }, '4242')).toBe(true)
  expect(
    namesRun({ log_url: 'https://github.com/a/b/actions/runs/4242?check_suite_focus=true' }, '4242')
  ).toBe(true)
  expect(namesRun({ log_url: runUrl('42420') }, '4242')).toBe(false)
  expect(namesRun({ log_url: runUrl('14242') }, '4242')).toBe(false)
  expect(namesRun({}, '4242')).toBe(false)
})

describe('the word', () => {
  test('`previous-deployment`, in any case, is the word; a branch of that name is given as a full ref', () => {
    for (const word of ['previous-deployment', ' Previous-Deployment ']) {
      const { value, problems } = parseLabelInputs({ labels: 'deployed', since: word })
      expect(problems).toEqual([])
      expect(value?.previousDeployment).toEqual({})
      expect(value?.since).toBeUndefined()
    }
    const literal = parseLabelInputs({
      labels: 'deployed',
      since: 'refs/heads/previous-deployment'
    })
    expect(literal.value?.since).toBe('refs/heads/previous-deployment')
    expect(literal.value?.previousDeployment).toBeUndefined()
    expect(isSafeRef('refs/heads/previous-deployment')).toBe(true)
  })

  const DIGEST = 'sha256:' + 'a'.repeat(64)
  const raw: RawInputs = {
    token: 'tok',
    repository: 'acme/web',
    labels: 'deployed',
    since: 'previous-deployment'
  }
  const problemsOf = (given: RawInputs) => {
    try {
      parseInputs(given, {})
      return []
    } catch (error) {
      if (error instanceof InputError) return error.problems
      throw error
    }
  }

  test('without `environment` it is bad input naming `since` and `environment`, before any request', () => {
    expect(problemsOf(raw)).toEqual([
      {
        input: 'since',
        message:
          '`previous-deployment` starts at the previous successful deployment of `environment`, ' +
          'which is empty: set `environment` to the environment the job deploys to (its ' +
          '`environment:`), or set `since` to a ref or sha'
      }
    ])
  })

  test("the environment is the deployment record's, or, without `digest`, the labels' alone", () => {
    const withRecord = parseInputs(
      { ...raw, digest: DIGEST, name: 'ghcr.io/acme/web', environment: 'production' },
      {}
    )
    expect(withRecord.deployment?.logicalEnvironment).toBe('production')
    expect(withRecord.labels?.previousDeployment).toEqual({ environment: 'production' })
    const labelsOnly = parseInputs({ ...raw, environment: 'staging' }, {})
    expect(labelsOnly.deployment).toBeUndefined()
    expect(labelsOnly.artifact).toBeUndefined()
    expect(labelsOnly.labels?.previousDeployment).toEqual({ environment: 'staging' })
    // Without the word, `environment` still asks for a deployment record, which needs `digest`.
    expect(
      problemsOf({ ...raw, since: 'v1.0.0', environment: 'staging' }).map(p => p.input)
    ).toEqual(['digest', 'name'])
    // A bad environment is named once.
    expect(problemsOf({ ...raw, environment: 'a'.repeat(200) }).map(p => p.input)).toEqual([
      'environment'
    ])
  })
})
