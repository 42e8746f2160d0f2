/**
 * `since: previous-deployment` through the bundled action as the runner starts it: a
 * `workflow_dispatch` deploy of `main` to production in a repository without tags labels exactly
 * the pull requests merged since production's previous successful deployment (GitHub's
 * Deployments API: a newer failed deployment, a staging one and this run's own in progress
 * passed over), with the history (git) and without it (compare); the reads counted. A token
 * without `deployments: read` is told so; without the word nothing reads deployments.
 */
import { join } from 'node:path'
import { startEmulator, type SeedDeployment } from '../../emulator/index.js'
import { DIGEST } from '../../__fixtures__/emulator.js'
import {
  dir,
  emulator,
  labeled,
  runLabels,
  useDiscoveryWorld,
  warnings
} from '../../__fixtures__/discovery-run.js'
import { seedCommits, writeRepository } from '../../__fixtures__/history.js'
import { HISTORY, PULLS, REPO, RUN, runUrl } from '../../__fixtures__/deployments-history.js'
import { projectRoot, runAction } from '../../scripts/run-action.js'
import { runToEnd } from '../../__fixtures__/packed-cli.js'
import { TOKEN } from '../../__fixtures__/emulator.js'

useDiscoveryWorld('discovery-deployments')

// Production last ran m2 well; m3's deploy failed; staging runs m4; m5 is deploying now.

/** Oldest first, as GitHub created them; statuses oldest first. */
function deploymentsOf(shas: Record<string, string>): SeedDeployment[] {
  const at = (id: string) => shas[id] as string
  const states = (run: string, ...list: string[]) =>
    list.map(state => ({ state, log_url: runUrl(run) }))
  return [
    {
      id: 101,
      sha: at('m1'),
      environment: 'production',
      statuses: states('3000', 'in_progress', 'success', 'inactive')
    },
    {
      id: 102,
      sha: at('m2'),
      environment: 'production',
      created_at: '2026-11-20T10:00:00Z',
      statuses: [
        ...states('3100', 'queued', 'in_progress'),
        { state: 'success', log_url: runUrl('3100'), created_at: '2026-11-20T10:04:00Z' }
      ]
    },
    {
      id: 103,
      sha: at('m3'),
      environment: 'production',
      statuses: states('3200', 'in_progress', 'failure')
    },
    { id: 104, sha: at('m4'), environment: 'staging', statuses: states('3300', 'success') },
    // the runner's deployment for this job: in progress, its statuses name this run
    {
      id: 105,
      sha: at('m5'),
      environment: 'production',
      statuses: states(RUN, 'queued', 'in_progress')
    }
  ]
}

/** Writes the history, seeds the emulator (no tags) and returns the checkout and the shas. */
function world(name: string) {
  const repoDir = join(dir, name)
  const shas = writeRepository(repoDir, HISTORY, 'm5')
  emulator.reset()
  emulator.seed({
    pulls: { [REPO]: PULLS },
    commits: { [REPO]: seedCommits(HISTORY, shas) },
    deployments: { [REPO]: deploymentsOf(shas) }
  })
  return { repoDir, shas }
}

const dispatch = (sha: string, workspace?: string) => ({
  eventName: 'workflow_dispatch',
  event: { ref: 'refs/heads/main', inputs: {} },
  sha,
  ref: 'refs/heads/main',
  ...(workspace ? { workspace } : {})
})

const deploymentReads = () =>
  emulator.requests
    .filter(r => /\/deployments(\/|$)/.test(r.path))
    .map(r => r.url.replace(/^https?:\/\/[^/]+/, ''))

describe("a workflow_dispatch deploy without tags labels exactly what was merged since the environment's previous successful deployment", () => {
  test.each([
    ['with the history (git)', true],
    ['without it (compare)', false]
  ])('%s', async (name, withHistory) => {
    const { repoDir, shas } = world(`dispatch-${withHistory ? 'git' : 'compare'}`)
    const run = await runLabels(
      { since: 'previous-deployment', environment: 'production' },
      dispatch(shas['m5'] as string, withHistory ? repoDir : undefined)
    )
    expect(run.code).toBe(0)
    expect(warnings(run)).toEqual([])
    // From m2 (production's last success), m3's failed deploy and staging's m4 passed over.
    expect(labeled()).toEqual([3, 4, 5])
    const m2 = (shas['m2'] as string).slice(0, 7)
    expect(run.stdout).toContain(
      'workflow_dispatch: previous successful deployment of environment `production`: ' +
        `#102 (sha ${m2}, ref main), success at 2026-11-20T10:04:00Z, created 2026-11-20T10:00:00Z`
    )
    expect(run.stdout).toMatch(
      /passed over, newest first: #105 \(sha [0-9a-f]{7}, ref main\) \(this run's own, in_progress\); #103 \(sha [0-9a-f]{7}, ref main\) \(failure\)/
    )
    expect(run.stdout).toContain(withHistory ? 'read with git' : 'read with the compare endpoint')
    // One page of production's deployments, then the statuses of #105, #103 and #102: no more.
    expect(deploymentReads()).toEqual([
      `/repos/${REPO}/deployments?environment=production&per_page=10`,
      `/repos/${REPO}/deployments/105/statuses?per_page=10`,
      `/repos/${REPO}/deployments/103/statuses?per_page=10`,
      `/repos/${REPO}/deployments/102/statuses?per_page=10`
    ])
    expect(run.outputs['pull-requests']).toBe('3,4,5')
  })
})

test('a deployment event skips its own deployment, and a branch named previous-deployment is given as a full ref', async () => {
  const { repoDir, shas } = world('event')
  // The event is about #105 (say a deployment created by a tool): skipped without its statuses.
  const run = await runLabels(
    { since: 'Previous-Deployment', environment: 'production' },
    {
      ...dispatch(shas['m5'] as string, repoDir),
      eventName: 'deployment',
      event: { deployment: { id: 105, sha: shas['m5'], environment: 'production' } }
    }
  )
  expect(run.code).toBe(0)
  expect(labeled()).toEqual([3, 4, 5])
  expect(run.stdout).toContain('#105 (sha')
  expect(run.stdout).toContain("(the event's own)")
  expect(deploymentReads()).not.toContain(`/repos/${REPO}/deployments/105/statuses?per_page=10`)

  // The literal branch: a ref, no deployment read.
  const { git } = await import('../../__fixtures__/history.js')
  git(repoDir, 'branch', 'previous-deployment', shas['m3'] as string)
  emulator.reset()
  emulator.seed({ pulls: { [REPO]: PULLS }, commits: { [REPO]: seedCommits(HISTORY, shas) } })
  const literal = await runLabels(
    { since: 'refs/heads/previous-deployment' },
    dispatch(shas['m5'] as string, repoDir)
  )
  expect(literal.code).toBe(0)
  expect(labeled()).toEqual([4, 5])
  expect(deploymentReads()).toEqual([])
})

test('no previous successful deployment: a warning that says so, nothing labeled', async () => {
  const { repoDir, shas } = world('none')
  emulator.reset()
  emulator.seed({
    pulls: { [REPO]: PULLS },
    commits: { [REPO]: seedCommits(HISTORY, shas) },
    deployments: { [REPO]: deploymentsOf(shas).filter(d => d.id === 103 || d.id === 105) }
  })
  const run = await runLabels(
    { since: 'previous-deployment', environment: 'production' },
    dispatch(shas['m5'] as string, repoDir)
  )
  expect(run.code).toBe(0)
  expect(labeled()).toEqual([])
  expect(warnings(run)).toEqual([
    expect.stringContaining(
      'found no pull requests, because environment `production` of acme/web has no successful ' +
        'deployment before this run among its 2: set `since` to the ref or sha to start from'
    )
  ])
})

test('without `since`, a dispatch with `environment` reads no deployments: the nearest tag, as before', async () => {
  const { repoDir, shas } = world('default')
  const run = await runLabels(
    { digest: DIGEST, name: 'ghcr.io/acme/web', environment: 'production' },
    dispatch(shas['m5'] as string, repoDir)
  )
  expect(run.code).toBe(0)
  expect(labeled()).toEqual([])
  expect(warnings(run)).toEqual([expect.stringContaining('no tag comes before')])
  expect(deploymentReads()).toEqual([])
})

test('a token without `deployments: read` is told to add it', async () => {
  const limited = await startEmulator({
    tokens: { scoped: { permissions: ['contents: read', 'pull-requests: write', 'issues: write'] } }
  })
  try {
    const { shas } = world('denied')
    limited.seed({
      pulls: { [REPO]: PULLS },
      commits: { [REPO]: seedCommits(HISTORY, shas) },
      deployments: { [REPO]: deploymentsOf(shas) }
    })
    const run = await runAction(
      { labels: 'deployed:production', since: 'previous-deployment', environment: 'production' },
      {},
      { context: { token: 'scoped', apiUrl: limited.url, ...dispatch(shas['m5'] as string) } }
    )
    expect(run.code).toBe(0)
    const said = warnings(run)
    expect(said).toHaveLength(1)
    expect(said[0]).toContain('the deployments of environment `production` could not be read')
    expect(said[0]).toContain('403')
    expect(said[0]).toContain('`deployments: read`')
    expect(limited.requests.filter(r => r.method !== 'GET')).toEqual([])
  } finally {
    await limited.close()
  }
})

test('the command line: `--since previous-deployment --environment production` in the checkout, outside Actions', async () => {
  const { repoDir } = world('cli')
  const run = await runToEnd(
    process.execPath,
    [
      join(projectRoot(), 'dist/cli.js'),
      '--labels',
      'deployed:production',
      '--since',
      'previous-deployment',
      '--environment',
      'production'
    ],
    {
      cwd: repoDir,
      env: {
        PATH: process.env['PATH'] ?? '',
        GITHUB_TOKEN: TOKEN,
        GITHUB_API_URL: emulator.url,
        GITHUB_REPOSITORY: REPO
      }
    }
  )
  expect(run.code).toBe(0)
  // No run id outside Actions: the deployment in progress is passed over as unsuccessful.
  expect(run.stderr).toContain('#105 (sha')
  expect(run.stderr).toContain('(in_progress)')
  expect(run.stderr).toContain('previous successful deployment of environment `production`: #102')
  expect((JSON.parse(run.stdout) as { 'pull-requests': string })['pull-requests']).toBe('3,4,5')
  expect(labeled()).toEqual([3, 4, 5])
})
