/**
 * What the discovery tests through the bundled action share: one emulator per test file (reset
 * before each test) and a scratch folder for the histories they build, the step's warnings, and
 * the pull requests that ended up labeled `deployed:production`. `emulator` and `dir` are live
 * bindings: read them inside tests, after the hooks ran.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TOKEN, withEmulator } from './emulator.js'
import { seedCommits, writeRepository, type HistoryCommit } from './history.js'
import type { Emulator, SeedPull } from '../emulator/index.js'
import { runAction, type ActionRun, type RunContext } from '../scripts/run-action.js'

export let emulator: Emulator
export let dir: string

/** Registers the hooks: one emulator and one scratch folder (named `prefix`) for the file. */
export function useDiscoveryWorld(prefix: string): void {
  beforeAll(async () => {
    emulator = await withEmulator()
    dir = mkdtempSync(join(tmpdir(), `${prefix}-`))
  })
  afterAll(async () => {
    await emulator.close()
    rmSync(dir, { recursive: true, force: true })
  })
  beforeEach(() => emulator.reset())
}

/**
 * Runs the bundled action as the runner starts it, against the file's emulator with its token:
 * `labels: deployed:production` and `inputs`, on the event `context` describes.
 */
export const runLabels = (
  inputs: Record<string, string>,
  context: Partial<RunContext>
): Promise<ActionRun> =>
  runAction(
    { labels: 'deployed:production', ...inputs },
    {},
    { context: { token: TOKEN, apiUrl: emulator.url, ...context } }
  )

/** The context of a push of tag `tag` at `sha`; read with git when the checkout `workspace` is given. */
export const tagPush = (
  tag: string,
  sha: string | undefined,
  workspace?: string
): Partial<RunContext> => ({
  eventName: 'push',
  event: { ref: `refs/tags/${tag}` },
  sha,
  ref: `refs/tags/${tag}`,
  ...(workspace ? { workspace } : {})
})

/** The `::warning::` lines of the step's log. */
export const warnings = (run: ActionRun) =>
  run.stdout.split('\n').filter(line => line.startsWith('::warning::'))

/** The numbers of `repo`'s issues and pull requests labeled `deployed:production`, in order. */
export const labeled = (repo = 'acme/web') =>
  (emulator.state.issues[repo] ?? [])
    .filter(issue => issue.labels.includes('deployed:production'))
    .map(issue => issue.number)
    .sort((a, b) => a - b)

/** A project's history, its pull requests and its tags (tag name to commit id), for `pushTag`. */
export interface Project {
  history: HistoryCommit[]
  pulls: SeedPull[]
  tags: Record<string, string>
}

/**
 * Writes `project` as a repository, seeds the emulator with it (commits, pull requests, the tag
 * list) and pushes `tag`: with the history (git, `fetch-depth: 0`) or without (compare).
 */
export async function pushTag(
  name: string,
  project: Project,
  tag: string,
  withHistory: boolean,
  inputs: Record<string, string> = {},
  /** run on the checkout once written (tags git alone can make) */
  prepare?: (repoDir: string) => void,
  repo = 'acme/web'
): Promise<ActionRun> {
  const repoDir = join(dir, `${name}-${withHistory ? 'git' : 'compare'}`)
  const shas = writeRepository(repoDir, project.history, project.tags[tag] as string, project.tags)
  prepare?.(repoDir)
  emulator.reset()
  emulator.seed({
    pulls: { [repo]: project.pulls },
    commits: { [repo]: seedCommits(project.history, shas) },
    tags: {
      [repo]: Object.fromEntries(
        Object.entries(project.tags).map(([t, id]) => [t, shas[id] as string])
      )
    }
  })
  return runLabels(
    inputs,
    tagPush(tag, shas[project.tags[tag] as string], withHistory ? repoDir : undefined)
  )
}
