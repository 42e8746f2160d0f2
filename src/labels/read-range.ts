/**
 * Reading a range of commits, each with its parents: with git when the checkout has the history,
 * else with the service's compare endpoint. Both list every commit of `base..head`.
 */
import type { ServiceClient } from '../client/client.js'
import { ServiceError } from '../client/errors.js'
import { compareCommits, type CommitSummary } from '../service/pulls.js'
import { listTagNames } from '../service/tags.js'
import { firstLineOf } from '../shared/result.js'
import { isSafeRef } from './inputs.js'
import { short } from './range-pulls.js'

/** The advice when a comparison was listed in part (the command line says it as a pipeline's). */
export const FIX_SHALLOW = 'Check out the history with `fetch-depth: 0` on actions/checkout'

export const FIX_HISTORY =
  'check out the history with `fetch-depth: 0` on actions/checkout, or set `since` to the ' +
  'previous release'

export type Range =
  { commits: CommitSummary[]; how: string; warnings: string[] } | { warning: string }

export class RangeReader {
  private history: Promise<boolean> | undefined

  constructor(
    private readonly client: ServiceClient,
    private readonly owner: string,
    private readonly repo: string,
    /** the checkout (`GITHUB_WORKSPACE`) */
    private readonly workspace: string | undefined
  ) {}

  /** Whether the checkout holds the whole history (not shallow). */
  hasHistory(): Promise<boolean> {
    this.history ??= (async () => {
      if (!this.workspace) return false
      const shallow = await git(this.workspace, ['rev-parse', '--is-shallow-repository'])
      return shallow.ok && shallow.stdout.trim() === 'false'
    })()
    return this.history
  }

  /** The tag before `head` in the history, if any. */
  async previousTag(head: string): Promise<string | undefined> {
    const previous = await git(this.workspace, ['describe', '--tags', '--abbrev=0', `${head}^`])
    return previous.ok ? previous.stdout.trim() : undefined
  }

  /**
   * The repository's tag names: with git when the checkout has the history, else from the
   * service's tag list.
   */
  async tagNames(): Promise<{ names: string[]; how: string } | { warning: string }> {
    if (await this.hasHistory()) {
      // With what each tag points at: a tag of a tree or a blob (a release's notes) is no
      // release a range can start from.
      const listed = await git(this.workspace, [
        'for-each-ref',
        '--format=%(refname:strip=2)%09%(objecttype)%09%(*objecttype)',
        'refs/tags'
      ])
      if (listed.ok) {
        const names = listed.stdout.split('\n').flatMap(line => {
          const [name = '', type, peeled] = line.split('\t')
          const points = peeled || type
          return name.trim() === '' || points === 'tree' || points === 'blob' ? [] : [name]
        })
        return { names, how: 'tags listed with git' }
      }
    }
    try {
      const names = await listTagNames(this.client, this.owner, this.repo)
      return { names, how: 'tags listed by the service' }
    } catch (error) {
      if (error instanceof ServiceError && (error.fatal || error.notTheApi)) throw error
      return {
        warning: `could not list the tags (${firstLineOf(error)}) to find the previous release: ${FIX_HISTORY}`
      }
    }
  }

  /** `base..head` with git when the checkout has both commits, else with the compare endpoint. */
  async read(base: string, head: string): Promise<Range> {
    const label = `${short(base)}..${short(head)}`
    if (!isSafeRef(base) || !isSafeRef(head)) {
      return { warning: `\`${base}..${head}\` is not a range of refs or shas` }
    }
    if (await this.hasHistory()) {
      const from = await this.resolve(base)
      const to = await this.resolve(head)
      if (from && to) {
        // Every commit of the range (not only first parents), NUL between commits.
        const log = await git(this.workspace, [
          'log',
          '-z',
          '--format=%H%x1f%P%x1f%ce%x1f%cI%x1f%B',
          `${from}..${to}`
        ])
        if (log.ok) {
          const commits = log.stdout
            .split('\0')
            .filter(entry => entry.trim() !== '')
            .map(entry => {
              const [sha = '', parents = '', committer = '', date = '', ...rest] =
                entry.split('\x1f')
              return {
                sha: sha.trim(),
                parents: parents.split(' ').filter(Boolean),
                message: rest.join('\x1f'),
                ...(committer ? { committer } : {}),
                ...(date ? { date } : {})
              }
            })
            .reverse()
          return { commits, how: `${label} read with git`, warnings: [] }
        }
      }
    }
    try {
      const { commits, total } = await compareCommits(
        this.client,
        this.owner,
        this.repo,
        base,
        head
      )
      const warnings: string[] = []
      if (total !== undefined && total > commits.length) {
        const missing = total - commits.length
        warnings.push(
          `the compare endpoint listed ${commits.length} of the ${total} commits of ` +
            `${base}...${head}: ${missing} commit${missing === 1 ? ' was' : 's were'} not read, ` +
            `and pull requests only they name are not labeled. ${FIX_SHALLOW}: git reads every commit`
        )
      }
      return { commits, how: `${label} read with the compare endpoint`, warnings }
    } catch (error) {
      // Something other than the API answered (`api-url` is the web host): not a history matter.
      if (error instanceof ServiceError && (error.fatal || error.notTheApi)) throw error
      return {
        warning:
          `could not read the commits ${base}...${head} with the compare endpoint ` +
          `(${firstLineOf(error)}): ${FIX_HISTORY}; \`since\` must name a ref or sha the ` +
          'repository has'
      }
    }
  }

  private async resolve(ref: string): Promise<string | undefined> {
    const result = await git(this.workspace, [
      'rev-parse',
      '--verify',
      '--quiet',
      `${ref}^{commit}`
    ])
    const sha = result.stdout.trim()
    return result.ok && /^[0-9a-f]{40,64}$/.test(sha) ? sha : undefined
  }
}

async function git(
  cwd: string | undefined,
  args: string[]
): Promise<{ ok: boolean; stdout: string }> {
  if (!cwd) return { ok: false, stdout: '' }
  try {
    // Loaded when a range is read with git: most runs never start a process.
    const { getExecOutput } = await import('@actions/exec')
    const result = await getExecOutput('git', args, { cwd, silent: true, ignoreReturnCode: true })
    return { ok: result.exitCode === 0, stdout: result.stdout }
  } catch {
    // No git on the runner, or the folder is gone: the same as no history.
    return { ok: false, stdout: '' }
  }
}
