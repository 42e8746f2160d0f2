/**
 * README promises about words and events, tried as a new user writes and triggers them, through
 * the bundled action as the runner starts it: `pull-requests: auto | none` and the `true` /
 * `false` inputs in any letter case, and a fork's read-only token on the review events of a pull
 * request (`pull_request_review`, `pull_request_review_comment`), not only `pull_request`.
 */
import { TOKEN, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'
import { runAction, type ActionRun } from '../../scripts/run-action.js'

const REPO = 'acme/web'
const sha = (n: number) => n.toString(16).padStart(2, '0').repeat(20)

let emulator: Emulator
beforeAll(async () => {
  emulator = await withEmulator()
})
afterAll(async () => emulator.close())
beforeEach(() => emulator.reset())

const labelsOf = (number: number) =>
  (emulator.state.issues[REPO] ?? []).find(issue => issue.number === number)?.labels ?? []
const failure = (run: ActionRun) =>
  (/::error::(.*)/.exec(run.stdout)?.[1] ?? '').replace(/%0A/g, '\n').replace(/%25/g, '%')

/** A push to main that merged #12 (named by its merge commit) and closes issue #7. */
function push(inputs: Record<string, string>): Promise<ActionRun> {
  emulator.seed({
    issues: { [REPO]: [{ number: 7 }] },
    pulls: { [REPO]: [{ number: 12, body: 'Fixes #7' }] },
    commits: {
      [REPO]: [
        { sha: sha(1), message: 'Start' },
        { sha: sha(2), message: 'Merge pull request #12 from acme/feature\n\nFeature' }
      ]
    }
  })
  return runAction(
    { token: TOKEN, 'api-url': emulator.url, labels: 'deployed', ...inputs },
    {},
    {
      context: {
        eventName: 'push',
        event: { before: sha(1), after: sha(2), commits: [] },
        sha: sha(2),
        ref: 'refs/heads/main'
      }
    }
  )
}

describe('`pull-requests: auto | none` and true / false in any letter case', () => {
  test.each(['AUTO', 'Auto'])(
    'pull-requests: %s finds #12 and, with TRUE, the issue it closes',
    async word => {
      const run = await push({ 'pull-requests': word, 'label-linked-issues': 'TRUE' })
      expect(run.code).toBe(0)
      expect(labelsOf(12)).toEqual(['deployed'])
      expect(labelsOf(7)).toEqual(['deployed'])
    }
  )

  test.each(['None', 'NONE'])('pull-requests: %s labels nothing and reads nothing', async word => {
    const run = await push({ 'pull-requests': word })
    expect(run.code).toBe(0)
    expect(run.stdout).not.toMatch(/::error::/)
    expect(labelsOf(12)).toEqual([])
    expect(emulator.requests).toEqual([])
  })

  test('dry-run: True writes nothing and plans the label write', async () => {
    const run = await push({ 'dry-run': 'True' })
    expect(run.code).toBe(0)
    expect(writesOf(emulator.requests)).toEqual([])
    expect(JSON.parse(run.outputs['planned'] ?? '[]')).toEqual([
      expect.objectContaining({ method: 'POST', path: '/repos/acme/web/issues/12/labels' })
    ])
  })
})

describe("a fork's read-only token on the review events of its pull request", () => {
  test.each(['pull_request_review', 'pull_request_review_comment'])(
    '%s: a refused label write says it is a fork and what works',
    async eventName => {
      emulator.seed({ pulls: { [REPO]: [{ number: 5 }] } })
      emulator.addFault({
        method: 'POST',
        path: '/repos/acme/web/issues/5/labels',
        fault: {
          kind: 'status',
          status: 403,
          headers: { 'x-accepted-github-permissions': 'issues=write; pull_requests=write' },
          body: { message: 'Resource not accessible by integration' }
        }
      })
      const run = await runAction(
        { token: TOKEN, 'api-url': emulator.url, labels: 'reviewed', 'pull-requests': '5' },
        { GITHUB_REPOSITORY: REPO },
        {
          context: {
            eventName,
            event: {
              action: eventName === 'pull_request_review' ? 'submitted' : 'created',
              pull_request: {
                number: 5,
                head: { sha: sha(9), repo: { full_name: 'someone/web-fork' } },
                base: { ref: 'main', repo: { full_name: REPO } }
              },
              repository: { full_name: REPO }
            },
            sha: sha(9)
          }
        }
      )
      expect(run.code).toBe(1)
      const message = failure(run)
      expect(message).toMatch(/from a fork \(someone\/web-fork\)/)
      expect(message).toMatch(/`pull_request_target`/)
      expect(message).not.toMatch(/add it under `permissions:`/)
    }
  )
})
