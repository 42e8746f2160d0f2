/**
 * Hints that tell the truth: what the step says when a failure's cause is not a permission or a
 * missing target, through the bundled action started by the launcher, against the emulator.
 * - after a redirect or a pagination `next` link to another origin (where the token rightly does
 *   not go), the 401/404 that follows names that origin and `api-url`; in discovery the range is
 *   not dropped with the step passing;
 * - an HTML (non-JSON) 4xx page points at `api-url`, not at a permission or an issue number;
 * - on a pull request from a fork (a read-only token), a refused write says so and what works.
 */
import { TOKEN, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'
import { runAction, type ActionRun } from '../../scripts/run-action.js'

const RECORDS = '/orgs/acme/artifacts/metadata'
const sha = (n: number) => n.toString(16).padStart(2, '0').repeat(20)

let emulator: Emulator
/** another server, on another origin: it does not know the token */
let other: Emulator
beforeEach(async () => {
  emulator = await withEmulator()
  other = await withEmulator({ tokens: {} })
})
afterEach(async () => {
  await other.close()
  await emulator.close()
})

const records = {
  token: TOKEN,
  digest: 'ghcr.io/acme/web@sha256:' + 'ab'.repeat(32),
  environment: 'production',
  'registry-url': 'https://ghcr.io',
  'max-retries': '0'
}
const start = (inputs: Record<string, string>, env: Record<string, string> = {}) =>
  runAction(
    { 'api-url': emulator.url, ...inputs },
    { GITHUB_REPOSITORY: 'acme/web', GITHUB_SHA: sha(9), ...env }
  )
/** The step's failure message as the runner shows it (`::error::` with escaped newlines). */
const failure = (run: ActionRun) =>
  (/::error::(.*)/.exec(run.stdout)?.[1] ?? '').replace(/%0A/g, '\n').replace(/%25/g, '%')

describe('after a redirect to another origin', () => {
  test.each([
    ['401 (that host wants a token)', () => undefined],
    [
      '404 (that host hides what it does not show without one)',
      () => other.addFault({ fault: { kind: 'status', status: 404 } })
    ]
  ])('a %s names the other origin and api-url, and stops the run', async (_name, arrange) => {
    arrange()
    const path = `${RECORDS}/storage-record`
    emulator.addFault({
      method: 'POST',
      path,
      fault: { kind: 'redirect', status: 307, location: `${other.url}${path}` }
    })
    const run = await start(records)
    expect(run.code).toBe(1)
    const message = failure(run)
    expect(message).toContain(
      `A redirect led to ${other.url}, another origin than \`api-url\` (${emulator.url}), so the ` +
        'request went there without the token'
    )
    expect(message).toMatch(/set `api-url` to it/)
    expect(message).not.toMatch(/The token was refused|needs the permission|Check the `token`/)
    // Every later request would meet the same redirect: nothing more was sent.
    expect(message).toMatch(/Not attempted: deployment record/)
    expect(other.requests.map(r => r.headers['authorization'])).toEqual([undefined])
    expect(run.outputs['storage-records']).toBe('[]')
  })
})

test('a `next` link to another origin in discovery fails the step naming it, instead of a warning and nothing labeled', async () => {
  emulator.seed({
    labels: { 'acme/web': [{ name: 'deployed', color: 'fbca04' }] },
    pulls: { 'acme/web': [{ number: 12, merged: true }] }
  })
  const compare = `/repos/acme/web/compare/${sha(1)}...${sha(9)}`
  // The first page is the API's; its `next` link names the server's configured host, which is
  // not the one the runner reaches it by (a server whose hostname setting differs).
  emulator.addFault({
    method: 'GET',
    path: compare,
    fault: {
      kind: 'status',
      status: 200,
      headers: { link: `<${other.url}${compare}?per_page=100&page=2>; rel="next"` },
      body: {
        total_commits: 101,
        commits: [{ sha: sha(2), commit: { message: 'Add retries (#12)' } }]
      }
    }
  })
  other.addFault({ fault: { kind: 'status', status: 404 } })
  const run = await start(
    { token: TOKEN, labels: 'deployed', 'pull-requests': 'auto', since: sha(1) },
    { GITHUB_EVENT_NAME: 'workflow_dispatch' }
  )
  expect(run.code).toBe(1)
  const message = failure(run)
  expect(message).toMatch(/Failed: finding the pull requests to label/)
  expect(message).toContain(
    `The list's \`next\` link led to ${other.url}, another origin than \`api-url\` (${emulator.url})`
  )
  expect(message).not.toMatch(/fetch-depth/)
  expect(writesOf(emulator.requests)).toEqual([])
})

describe('an HTML error page (api-url names the web host, not the API)', () => {
  const page = (title: string) =>
    `<!DOCTYPE html>\n<html><head><title>${title}</title></head><body><h1>404</h1></body></html>\n`
  const html = (path: string, method: string) =>
    emulator.addFault({
      method,
      path,
      fault: {
        kind: 'status',
        status: 404,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: page('Page not found · GitHub')
      }
    })

  test('on a record write points at api-url, not at a permission', async () => {
    html(`${RECORDS}/storage-record`, 'POST')
    html(`${RECORDS}/deployment-record`, 'POST')
    const run = await start(records)
    expect(run.code).toBe(1)
    const message = failure(run)
    expect(message).toMatch(/failed with 404: unexpected response body \(text\/html, not JSON\)/)
    expect(message).toMatch(
      /Something other than the API answered: check that `api-url` is the API/
    )
    expect(message).not.toMatch(/needs the permission|organization or digest is unknown/)
  })

  test('on a label read points at api-url, not at a missing issue', async () => {
    emulator.seed({ pulls: { 'acme/web': [{ number: 5 }] } })
    html('/repos/acme/web/issues/5', 'GET')
    html('/repos/acme/web/issues/5/labels', 'POST')
    const run = await start({ token: TOKEN, labels: 'deployed', 'pull-requests': '5' })
    expect(run.code).toBe(1)
    const message = failure(run)
    expect(message).toMatch(/Something other than the API answered: check that `api-url`/)
    expect(message).not.toMatch(/There is no issue or pull request|needs the permission/)
  })
})

describe('a pull request from a fork (read-only token)', () => {
  const event = (head: string | null) => ({
    action: 'synchronize',
    number: 5,
    pull_request: {
      number: 5,
      head: { sha: sha(9), repo: head === null ? null : { full_name: head } },
      base: { ref: 'main', repo: { full_name: 'acme/web' } }
    },
    repository: { full_name: 'acme/web' }
  })
  const refuse = (method: string, path: string) =>
    emulator.addFault({
      method,
      path,
      fault: {
        kind: 'status',
        status: 403,
        headers: { 'x-accepted-github-permissions': 'issues=write; pull_requests=write' },
        body: { message: 'Resource not accessible by integration' }
      }
    })

  test.each([
    ['a fork', 'someone/web-fork', /from a fork \(someone\/web-fork\)/],
    ['a fork deleted since', null, /from a fork \(deleted since\)/]
  ])(
    'a refused write from %s says so and what works, not `permissions:`',
    async (_name, head, names) => {
      emulator.seed({ pulls: { 'acme/web': [{ number: 5 }] } })
      refuse('POST', `${RECORDS}/deployment-record`)
      refuse('POST', '/repos/acme/web/issues/5/labels')
      const run = await runAction(
        { ...records, 'api-url': emulator.url, labels: 'deployed', 'pull-requests': '5' },
        { GITHUB_REPOSITORY: 'acme/web' },
        { context: { eventName: 'pull_request', event: event(head), sha: sha(9) } }
      )
      expect(run.code).toBe(1)
      const message = failure(run)
      // Both refused writes, the record and the label, say it.
      expect(message.match(/GitHub gives such runs a read-only token/g)).toHaveLength(2)
      expect(message).toMatch(names)
      expect(message).toMatch(/`pull_request_target`/)
      expect(message).toMatch(/`workflow_run`/)
      expect(message).not.toMatch(/add it under `permissions:`/)
    }
  )

  test('from a branch of the same repository, the permission hint stays', async () => {
    emulator.seed({ pulls: { 'acme/web': [{ number: 5 }] } })
    refuse('POST', '/repos/acme/web/issues/5/labels')
    const run = await runAction(
      { token: TOKEN, 'api-url': emulator.url, labels: 'deployed', 'pull-requests': '5' },
      { GITHUB_REPOSITORY: 'acme/web' },
      { context: { eventName: 'pull_request', event: event('acme/web'), sha: sha(9) } }
    )
    expect(run.code).toBe(1)
    const message = failure(run)
    expect(message).toMatch(/add it under `permissions:`/)
    expect(message).not.toMatch(/fork/)
  })
})
