/**
 * `since: previous-deployment` in shapes deploy workflows really have, through the bundled
 * action as the runner starts it: the step in a job after the deploy job (`needs: deploy`), when
 * this run's own deployment has already succeeded and GitHub made the previous one `inactive`;
 * an `on: deployment_status` run started by a tool's successful deployment.
 */
import { join } from 'node:path'
import type { SeedDeployment } from '../../emulator/index.js'
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

useDiscoveryWorld('previous-deployment-shapes')

/** Statuses oldest first, each naming the run that wrote it (none for a tool's). */
const states = (run: string | undefined, ...list: string[]) =>
  list.map(state => ({ state, ...(run ? { log_url: runUrl(run) } : {}) }))

/** Writes the history (checked out at m5), seeds the emulator with `deployments` (oldest first). */
function world(name: string, deployments: (at: (id: string) => string) => SeedDeployment[]) {
  const repoDir = join(dir, name)
  const shas = writeRepository(repoDir, HISTORY, 'm5')
  emulator.reset()
  emulator.seed({
    pulls: { [REPO]: PULLS },
    commits: { [REPO]: seedCommits(HISTORY, shas) },
    deployments: { [REPO]: deployments(id => shas[id] as string) }
  })
  return { repoDir, m5: shas['m5'] as string }
}

test("in a job after the deploy job (`needs: deploy`): this run's deployment succeeded, the previous one, made inactive, is the start", async () => {
  // production ran m1, then m2; this run's deploy job shipped m5 and succeeded, so GitHub marked
  // m2's deployment inactive before the record job started.
  const { repoDir, m5 } = world('needs', at => [
    {
      id: 101,
      sha: at('m1'),
      environment: 'production',
      statuses: states('3000', 'success', 'inactive')
    },
    {
      id: 102,
      sha: at('m2'),
      environment: 'production',
      statuses: states('3100', 'in_progress', 'success', 'inactive')
    },
    {
      id: 105,
      sha: at('m5'),
      environment: 'production',
      statuses: states(RUN, 'queued', 'in_progress', 'success')
    }
  ])
  const run = await runLabels(
    { since: 'previous-deployment', environment: 'production' },
    {
      eventName: 'workflow_dispatch',
      event: { ref: 'refs/heads/main', inputs: {} },
      sha: m5,
      ref: 'refs/heads/main',
      workspace: repoDir
    }
  )
  expect(run.code).toBe(0)
  expect(warnings(run)).toEqual([])
  expect(labeled()).toEqual([3, 4, 5])
  expect(run.stdout).toContain(
    'previous successful deployment of environment `production`: #102 (sha'
  )
  expect(run.stdout).toMatch(/#105 \(sha [0-9a-f]{7}, ref main\) \(this run's own, success\)/)
})

test('on: deployment_status (a tool deployed m5 and succeeded): the deployment it made inactive is the start', async () => {
  const { repoDir, m5 } = world('deployment-status', at => [
    {
      id: 102,
      sha: at('m2'),
      environment: 'production',
      statuses: states(undefined, 'success', 'inactive')
    },
    {
      id: 105,
      sha: at('m5'),
      environment: 'production',
      statuses: states(undefined, 'pending', 'success')
    }
  ])
  const run = await runLabels(
    { since: 'previous-deployment', environment: 'production' },
    {
      eventName: 'deployment_status',
      event: {
        deployment: { id: 105, sha: m5, environment: 'production' },
        deployment_status: { state: 'success' }
      },
      sha: m5,
      ref: 'refs/heads/main',
      workspace: repoDir
    }
  )
  expect(run.code).toBe(0)
  expect(warnings(run)).toEqual([])
  expect(labeled()).toEqual([3, 4, 5])
  expect(run.stdout).toContain("(the event's own)")
})

test('a central deploy repository labeling another `repository`: the warning names whose deployments were read', async () => {
  // acme/deploy's workflow deploys acme/web's code: its job's deployments are acme/deploy's,
  // the ones read are acme/web's, which has none for production.
  const { repoDir, m5 } = world('central', () => [])
  emulator.seed({
    deployments: {
      'acme/deploy': [
        {
          id: 7,
          sha: 'c'.repeat(40),
          environment: 'production',
          statuses: states('3000', 'success')
        }
      ]
    }
  })
  const run = await runLabels(
    { since: 'previous-deployment', environment: 'production', repository: REPO },
    {
      repository: 'acme/deploy',
      eventName: 'workflow_dispatch',
      event: { ref: 'refs/heads/main', inputs: {} },
      sha: m5,
      ref: 'refs/heads/main',
      workspace: repoDir
    }
  )
  expect(run.code).toBe(0)
  expect(labeled()).toEqual([])
  expect(warnings(run)).toEqual([
    expect.stringContaining(
      'because environment `production` of acme/web has no successful deployment before this ' +
        'run (it has none): set `since`'
    )
  ])
  expect(emulator.requests.map(r => r.path)).not.toContain('/repos/acme/deploy/deployments')
})
