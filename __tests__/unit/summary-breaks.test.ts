/**
 * The job summary's cluster part against what a hostile or odd service can answer: a cause of its
 * own for each deployment, a job id or status holding `|`. Rendered as GitHub does (cmark-gfm).
 */
import { cmarkGfmMissing, linkableIn, renderGfm, textOf } from '../../__fixtures__/gfm.js'
import { ServiceError, permissionHint } from '../../src/client/errors.js'
import { emptyResult, failureOf, type RunResult } from '../../src/shared/result.js'
import { renderSummary } from '../../src/step/report.js'

beforeAll(() => {
  const missing = cmarkGfmMissing()
  if (missing) throw new Error(missing)
})

const result = (over: Partial<RunResult>): RunResult => ({
  ...emptyResult(false, { reads: 1, writes: 1 }),
  ...over
})
const about = { org: 'acme', cluster: { name: 'prod', environment: 'production', items: [] } }

test('300 deployments each rejected for a cause of its own: the causes list shows 100 and says where the rest are', () => {
  const deploymentErrors = Array.from({ length: 300 }, (_, i) => ({
    cause: `cause-${i}`,
    deployment: { deployment_name: `d-${i}`, name: 'img', digest: `sha256:${'0'.repeat(64)}` }
  }))
  const summary = renderSummary(
    result({ deploymentErrors, jobId: 1, jobStatus: 'completed' }),
    about
  )
  const causeLines = summary.split('\n').filter(l => /^- \d+ `cause-\d+`:/.test(l))
  expect(causeLines).toHaveLength(100)
  expect(summary).toContain('- ... and 200 more causes in the `errors` output and the log')
  expect(linkableIn(renderGfm(summary))).toEqual([])
})

test('a job id and status holding `|` read as the service gave them, outside a table', () => {
  const html = renderGfm(
    renderSummary(result({ jobId: 'job|7' as unknown as number, jobStatus: 'done|failed' }), about)
  )
  expect(textOf(html)).toContain('Cluster job job|7: done|failed.')
  expect(linkableIn(html)).toEqual([])
})

test('a cluster with no deployments (allow-empty-cluster) sends nothing: titled "Nothing recorded", saying so', () => {
  const html = renderGfm(renderSummary(emptyResult(false, { reads: 0, writes: 0 }), about))
  expect(html).toMatch(/^<h2>Nothing recorded<\/h2>/)
  expect(textOf(html)).toContain('Cluster prod has no deployments to record: nothing was sent.')
  expect(linkableIn(html)).toEqual([])
})

test('labels to apply and no pull request found: not titled "Labels applied", and the summary says none was found', () => {
  const labelsOnly = { ...emptyResult(false), labelsOnly: true }
  const about = {
    org: 'acme',
    repository: { owner: 'acme', name: 'web' },
    labels: { add: ['deployed'], remove: [] }
  }
  const text = textOf(renderGfm(renderSummary(labelsOnly, about)))
  expect(text).toMatch(/^No labels applied: no issue or pull request found\n/)
  expect(text).toContain('No issue or pull request was found to label: the log says why.')
  // one labeled, or one failed: the usual titles
  const one = { ...labelsOnly, labeled: [{ number: 3, added: ['deployed'], removed: [] }] }
  expect(renderSummary(one, about)).toMatch(/^## Labels applied$/m)
  expect(renderSummary(one, about)).not.toContain('No issue or pull request was found')
})

test('a run cancelled before its labels does not say that no pull request was found', () => {
  const about = {
    org: 'acme',
    repository: { owner: 'acme', name: 'web' },
    labels: { add: ['deployed'], remove: [] }
  }
  const cancelled = {
    ...emptyResult(false),
    labelsOnly: true,
    cancelled: 'SIGTERM',
    notAttempted: ['labels']
  }
  expect(renderSummary(cancelled, about)).not.toContain('No issue or pull request was found')
})

test('a value holding a run of 80 or more backticks stays code: no mention, link, image or HTML', () => {
  const evil = (n: number) =>
    `@octocat ${'`'.repeat(n)} <img src=https://evil.example/p.png> [x](https://evil.example) #12`
  for (const n of [79, 80, 81, 200]) {
    const deploymentErrors = [
      {
        cause: evil(n),
        deployment: { deployment_name: evil(n), name: evil(n), digest: `sha256:${'0'.repeat(64)}` }
      }
    ]
    const summary = renderSummary(result({ deploymentErrors, jobId: 1, jobStatus: evil(n) }), about)
    const html = renderGfm(summary)
    expect(linkableIn(html)).toEqual([])
    // the text as given, backticks and all
    expect(textOf(html)).toContain(`Cluster job 1: ${evil(n)}.`)
  }
})

test('a hint quoting what a service sent (its x-accepted-github-permissions) makes no mention or link, whatever backticks it holds', () => {
  const path = '/orgs/acme/artifacts/metadata/deployment-record'
  for (const header of [
    '@octocat www.evil.example``@octocat `x',
    ' x`` `@octocat`x',
    ':@octocat``````x '
  ]) {
    const error = new ServiceError({
      method: 'POST',
      path,
      status: 403,
      serviceMessage: 'Forbidden',
      hint: permissionHint('POST', path, 403, header)
    })
    const html = renderGfm(
      renderSummary(result({ failures: [failureOf('deployment record', error)] }), { org: 'acme' })
    )
    expect(textOf(html)).toContain('Fix: The step needs the permission')
    expect(linkableIn(html)).toEqual([])
  }
})

test('a run cancelled after finding a pull request already labeled, with no write sent, is not titled "recorded in part"', () => {
  const labelsAbout = {
    org: 'acme',
    repository: { owner: 'acme', name: 'web' },
    labels: { add: ['deployed'], remove: [] }
  }
  const cancelled: RunResult = {
    ...emptyResult(false, { reads: 2, writes: 0 }),
    labelsOnly: true,
    cancelled: 'SIGTERM',
    labeled: [{ number: 1, added: [], removed: [] }],
    done: ['pull request #1 already labeled'],
    notAttempted: ['pull request #2']
  }
  const summary = renderSummary(cancelled, labelsAbout)
  expect(summary).toMatch(/^## Cancelled \(SIGTERM\): nothing was written$/m)
  expect(summary).not.toContain('Written before the cancel')
  // a write sent and done: recorded in part, as before
  const wrote = {
    ...cancelled,
    requests: { reads: 2, writes: 1 },
    done: ['storage record ghcr.io/acme/web']
  }
  expect(renderSummary(wrote, labelsAbout)).toMatch(/^## Cancelled \(SIGTERM\): recorded in part$/m)
})
