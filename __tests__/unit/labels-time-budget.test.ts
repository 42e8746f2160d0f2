// The labels job when the time budget runs out (fake clock, no sleep): what was labeled and what
// was not, refused told from never sent, and the `pull-requests` value that finishes the rest,
// in the outputs' `failed`, the failure report and the summary.
import { setup } from '../../__fixtures__/service-client.js'
import { Cancellation } from '../../src/client/cancel.js'
import { applyLabels } from '../../src/labels/apply.js'
import { emptyResult } from '../../src/shared/result.js'
import { failureReport, renderSummary } from '../../src/step/report.js'

const R = '/repos/acme/web/issues'
const issue = (n: number) => ({ status: 200, body: { number: n, labels: [] } })

test('a limit resetting past the budget: 1 labeled, 1 refused, 3 not sent, and the re-run value', async () => {
  const { client, on, clock, log } = setup({ timeBudgetMinutes: 10 })
  const reset = String(Math.floor(clock.now() / 1000) + 3600)
  on('GET', `${R}/1`, issue(1))
  on('POST', `${R}/1/labels`, { status: 200, body: [{ name: 'deployed:production' }] })
  on('GET', `${R}/2`, issue(2))
  on('POST', `${R}/2/labels`, {
    status: 403,
    headers: {
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': reset
    },
    body: { message: 'API rate limit exceeded for installation.' }
  })
  const labels = await applyLabels(client, {
    owner: 'acme',
    repo: 'web',
    inputs: {
      labels: ['deployed:production'],
      removeLabels: [],
      pullRequests: [1, 2, 3, 4, 5],
      labelLinkedIssues: false
    },
    discovery: {
      eventName: 'workflow_dispatch',
      payload: {},
      sha: 'c'.repeat(40),
      ref: 'refs/heads/main',
      owner: 'acme',
      repo: 'web'
    },
    dryRun: false,
    log
  })
  expect(labels.labeled.map(l => l.number)).toEqual([1])
  expect(client.counts).toEqual({ reads: 2, writes: 2 })
  const [refused, ...rest] = labels.failures
  expect(refused).toMatchObject({ what: 'issue or pull request #2', fatal: true })
  expect(refused?.notSent).toBeUndefined()
  expect(refused?.message.split('\n')[0]).toMatch(
    /^POST \/repos\/acme\/web\/issues\/2\/labels refused \(403\): rate limited \(403\): the token's request quota is used up; it resets at .* \(x-ratelimit-reset\); waiting 1 h more would pass the step's time budget \(`time-budget`: 10 minutes, ending at 12:10 UTC\)\. Run the step again after 13:00 UTC\.$/
  )
  expect(rest.map(f => [f.what, f.notSent ?? false, f.rerun])).toEqual([
    ['issue or pull request #3', true, undefined],
    ['issue or pull request #4', true, undefined],
    ['issue or pull request #5', true, undefined],
    ['the labels left', false, 'pull-requests: 2,3,4,5']
  ])

  const result = { ...emptyResult(false, client.counts), labelsOnly: true }
  result.labeled.push(...labels.labeled)
  result.failures.push(...labels.failures)
  const report = failureReport(result)
  expect(report.split('\n')[0]).toBe("1 of the step's calls failed; 3 were not sent.")
  expect(report).toContain('run the step again with `pull-requests: 2,3,4,5`')
  const summary = renderSummary(result, 'acme')
  expect(summary).toContain('Labels applied in part')
  expect(summary).toMatch(/the labels left.*pull-requests: 2,3,4,5/)
  expect(summary).toMatch(/#2.*Run the step again after 13:00 UTC/)
})

const label = (
  client: ReturnType<typeof setup>['client'],
  log: ReturnType<typeof setup>['log'],
  pullRequests: number[]
) =>
  applyLabels(client, {
    owner: 'acme',
    repo: 'web',
    inputs: {
      labels: ['deployed:production'],
      removeLabels: [],
      pullRequests,
      labelLinkedIssues: false
    },
    discovery: {
      eventName: 'workflow_dispatch',
      payload: {},
      sha: 'c'.repeat(40),
      ref: 'refs/heads/main',
      owner: 'acme',
      repo: 'web'
    },
    dryRun: false,
    log
  })

test('a target that failed before the budget ran out is in the re-run value: it finishes every label left', async () => {
  const { client, on, clock, log } = setup({ timeBudgetMinutes: 10, maxRetries: 0 })
  const reset = String(Math.floor(clock.now() / 1000) + 3600)
  on('GET', `${R}/1`, issue(1))
  on('POST', `${R}/1/labels`, { status: 502, body: { message: 'Bad Gateway' } })
  on('GET', `${R}/2`, issue(2))
  on('POST', `${R}/2/labels`, { status: 200, body: [{ name: 'deployed:production' }] })
  on('GET', `${R}/3`, issue(3))
  on('POST', `${R}/3/labels`, {
    status: 403,
    headers: {
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': reset
    },
    body: { message: 'API rate limit exceeded for installation.' }
  })
  const labels = await label(client, log, [1, 2, 3, 4])
  expect(labels.labeled.map(l => l.number)).toEqual([2])
  expect(labels.failures.find(f => f.rerun)?.rerun).toBe('pull-requests: 1,3,4')
})

test('a cancel during a rate-limit wait: the rest is said not sent because of the cancel, with the re-run value', async () => {
  const cancellation = new Cancellation()
  const { client, on, log } = setup({ cancellation })
  on('GET', `${R}/1`, issue(1))
  on('POST', `${R}/1/labels`, { status: 200, body: [{ name: 'deployed:production' }] })
  on('GET', `${R}/2`, issue(2))
  on('POST', `${R}/2/labels`, {
    status: 403,
    headers: { 'retry-after': '600' },
    body: { message: 'You have exceeded a secondary rate limit.' }
  })
  // The runner's SIGINT arrives as the 10-minute wait begins: the wait ends at once.
  const info = log.info.bind(log)
  log.info = (message: string) => {
    info(message)
    if (message.includes('rate-limit wait 1 in 600 s')) cancellation.cancel('SIGINT')
  }
  const labels = await label(client, log, [1, 2, 3, 4])
  expect(labels.labeled.map(l => l.number)).toEqual([1])
  const rest = labels.failures.filter(f => f.what.endsWith('#3') || f.what.endsWith('#4'))
  expect(rest.map(f => f.message)).toEqual([
    'not sent: the run was cancelled (SIGINT) before its turn (see the re-run below)',
    'not sent: the run was cancelled (SIGINT) before its turn (see the re-run below)'
  ])
  expect(labels.failures.find(f => f.rerun)?.rerun).toBe('pull-requests: 2,3,4')
})

test('a label write held back by a used-up quota before the pull requests: counted as not sent, not as failed', async () => {
  const { client, on, clock, log } = setup({ timeBudgetMinutes: 10 })
  const reset = String(Math.floor(clock.now() / 1000) + 3600)
  on('GET', '/repos/acme/web/labels/deployed%3Aproduction', {
    status: 200,
    headers: {
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': reset
    },
    body: { name: 'deployed:production', color: '000000' }
  })
  const labels = await applyLabels(client, {
    owner: 'acme',
    repo: 'web',
    inputs: {
      labels: ['deployed:production'],
      color: 'ff0000',
      removeLabels: [],
      pullRequests: [1],
      labelLinkedIssues: false
    },
    discovery: {
      eventName: 'workflow_dispatch',
      payload: {},
      sha: 'c'.repeat(40),
      ref: 'refs/heads/main',
      owner: 'acme',
      repo: 'web'
    },
    dryRun: false,
    log
  })
  expect(client.counts).toEqual({ reads: 1, writes: 0 })
  const result = { ...emptyResult(false, client.counts), labelsOnly: true }
  result.failures.push(...labels.failures)
  expect(failureReport(result).split('\n')[0]).toBe('2 were not sent.')
  // Never sent, nothing retried: the summary does not say the service failed.
  const summary = renderSummary(result, 'acme')
  expect(summary).not.toMatch(/did not answer|max-retries/)
  expect(summary).toMatch(
    /Fix: wait for the limit as said above and run the step again, or give `time-budget` the minutes/
  )
})
