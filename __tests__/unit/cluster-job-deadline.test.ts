/**
 * The job-timeout of a cluster job at its boundaries (src/cluster/record-cluster.ts): a job whose
 * creation ended after the deadline is still polled once (zero polls is never enough to report
 * its status), a poll that ends exactly at the deadline is the last, and a job is created only
 * while MIN_JOB_WAIT_MS of the timeout is left.
 */
import { API, setup } from '../../__fixtures__/service-client.js'
import { item } from '../../__fixtures__/state-entries.js'
import type { ClusterInputs } from '../../src/cluster/inputs.js'
import { FIRST_POLL_MS, MIN_JOB_WAIT_MS, recordCluster } from '../../src/cluster/record-cluster.js'

const JOBS = '/orgs/acme/artifacts/metadata/deployment-record/cluster/prod-eu-1/jobs'
const inputs = (jobTimeoutSeconds: number): ClusterInputs => ({
  cluster: 'prod-eu-1',
  logicalEnvironment: 'production',
  items: [item(1)],
  mode: 'job',
  partialSuccess: false,
  jobTimeoutSeconds
})

/** A job service: creation and each poll take `createMs` and `pollMs` of the clock. */
function jobService(createMs: number, pollMs: number, status = 'in_progress') {
  const { agent, clock, client, log } = setup({ maxRetries: 0 })
  const pool = agent.get(API)
  let polls = 0
  pool
    .intercept({ path: JOBS, method: 'POST' })
    .reply(() => {
      clock.advance(createMs)
      return {
        statusCode: 202,
        data: JSON.stringify({ job_id: 7, status: 'queued' }),
        responseOptions: { headers: { 'content-type': 'application/json' } }
      }
    })
    .persist()
  pool
    .intercept({ path: `${JOBS}/7`, method: 'GET' })
    .reply(() => {
      polls++
      clock.advance(pollMs)
      return {
        statusCode: 200,
        data: JSON.stringify({ id: 7, status }),
        responseOptions: { headers: { 'content-type': 'application/json' } }
      }
    })
    .persist()
  return {
    client,
    clock,
    log,
    polls: () => polls,
    run: (timeout: number) => recordCluster(client, 'acme', inputs(timeout), clock, log)
  }
}

test('a job created after the deadline is polled once, at once, and then reported as not finished', async () => {
  const service = jobService(20_000, 0)
  const outcome = await service.run(10)
  expect(service.polls()).toBe(1)
  expect(outcome).toMatchObject({ jobId: 7, jobStatus: 'in_progress' })
  expect(outcome.failure).toContain('did not finish within job-timeout (10 s)')
  expect(service.clock.sleeps).toEqual([0])
})

test('a job that completes on that one poll is a success', async () => {
  const service = jobService(20_000, 0, 'completed')
  const outcome = await service.run(10)
  expect(service.polls()).toBe(1)
  expect(outcome).toMatchObject({ jobId: 7, jobStatus: 'completed', failure: undefined })
})

test('a poll that ends exactly at the deadline is the last; one that ends a millisecond before is not', async () => {
  // job-timeout 10 s: the first poll waits FIRST_POLL_MS, then takes the rest of the 10 s.
  const exact = jobService(0, 10_000 - FIRST_POLL_MS)
  await exact.run(10)
  expect(exact.polls()).toBe(1)

  const before = jobService(0, 10_000 - FIRST_POLL_MS - 1)
  await before.run(10)
  expect(before.polls()).toBe(2)
  expect(before.clock.sleeps).toEqual([FIRST_POLL_MS, 1]) // the second poll waits only what is left
})

test.each([
  [1, 2],
  [0, 1]
])(
  `a busy cluster: with %i ms more than MIN_JOB_WAIT_MS left the create is tried again, else given up (%i tries)`,
  async (spare, tries) => {
    const { agent, clock, client, log } = setup({ maxRetries: 0 })
    let posts = 0
    agent
      .get(API)
      .intercept({ path: JOBS, method: 'POST' })
      .reply(() => {
        // The first try leaves MIN_JOB_WAIT_MS + `spare` of the 10 s job-timeout.
        if (++posts === 1) clock.advance(10_000 - MIN_JOB_WAIT_MS - spare)
        return {
          statusCode: 409,
          data: JSON.stringify({ message: 'a job is in progress' }),
          responseOptions: { headers: { 'content-type': 'application/json' } }
        }
      })
      .persist()
    const error = (await recordCluster(client, 'acme', inputs(10), clock, log).catch(
      e => e
    )) as Error
    expect(error.message).toContain('busy for the whole job-timeout (10 s)')
    expect(posts).toBe(tries)
  }
)
