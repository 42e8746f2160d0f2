// Over 300 lines: one module per API family (the house rule): the pull request endpoints discovery
// reads (one, a list, its commits, the commit lookup, the title search) and their lenient readers.
import * as z from 'zod/mini'
import type { ServiceClient } from '../client/client.js'
import { isApiStatus } from '../client/errors.js'
import { path, withQuery } from '../client/paths.js'
import { parseResponse } from './parse.js'

// Each schema is built at its first use (`z.lazy`), not when the module loads.

/** The labels an issue or pull request answer carries (every one: an issue holds at most 100). */
const labelNames = () => z.optional(z.array(z.looseObject({ name: z.string() })))
const repoName = () => z.nullish(z.looseObject({ full_name: z.optional(z.string()) }))

/**
 * A pull request as `pulls/{n}` and `commits/{sha}/pulls` answer it. With API version 2026-03-10
 * there is no `merge_commit_sha`; the list form has `merged_at` but no `merged`. Both carry the
 * labels, so a pull request found by discovery needs no read of its labels.
 */
export const pullSchema = z.lazy(() =>
  z.looseObject({
    number: z.number(),
    state: z.optional(z.string()),
    merged: z.optional(z.boolean()),
    merged_at: z.nullish(z.string()),
    body: z.nullish(z.string()),
    /** read to tell a backport's original (`[3.14] Title`, `Title (cherry-pick #N for 3.2)`) */
    title: z.nullish(z.string()),
    url: z.optional(z.string()),
    labels: labelNames(),
    /** how many commits it has (`pulls/{n}` alone says; the list forms do not) */
    commits: z.optional(z.number()),
    /** the branch the pull request merged from, and its repository (a fork's, or `null`: deleted) */
    head: z.optional(z.looseObject({ ref: z.optional(z.string()), repo: repoName() })),
    base: z.optional(z.looseObject({ ref: z.optional(z.string()), repo: repoName() }))
  })
)
export type Pull = z.infer<typeof pullSchema>

export const issueSchema = z.lazy(() =>
  z.looseObject({
    number: z.number(),
    state: z.optional(z.string()),
    body: z.nullish(z.string()),
    labels: labelNames(),
    /** present only on issues that are pull requests */
    pull_request: z.nullish(z.looseObject({ merged_at: z.nullish(z.string()) }))
  })
)
export type Issue = z.infer<typeof issueSchema>

/** An issue as the search API lists it, with its title. */
const searchItemSchema = z.lazy(() =>
  z.looseObject({
    number: z.number(),
    title: z.nullish(z.string()),
    labels: labelNames(),
    pull_request: z.nullish(z.looseObject({ merged_at: z.nullish(z.string()) }))
  })
)
export type SearchItem = z.infer<typeof searchItemSchema>

const commitSchema = z.lazy(() =>
  z.looseObject({
    sha: z.string(),
    commit: z.looseObject({
      message: z.string(),
      committer: z.nullish(
        z.looseObject({ email: z.optional(z.string()), date: z.optional(z.string()) })
      )
    }),
    parents: z.optional(z.array(z.looseObject({ sha: z.string() })))
  })
)
const compareSchema = z.lazy(() =>
  z.looseObject({
    status: z.optional(z.string()),
    total_commits: z.optional(z.number()),
    commits: z._default(z.array(commitSchema), [])
  })
)

export interface CommitSummary {
  sha: string
  message: string
  /** absent when the source does not say (an event's commit list) */
  parents?: string[]
  /** the committer's email, when the source says */
  committer?: string
  /** when it was committed (ISO 8601), when the source says: a copy is committed after its original merged */
  date?: string
}

/** What the compare endpoint listed, and how many commits it says the range has. */
export interface Comparison {
  commits: CommitSummary[]
  /** `total_commits`, when the answer carries it */
  total?: number
}

/** The names of the labels an answer carried, or undefined when it carried none (not read). */
export function labelsOf(answer: {
  labels?: { name: string }[] | undefined
}): string[] | undefined {
  return answer.labels?.map(label => label.name)
}

export function isMerged(pull: Pull): boolean {
  return pull.merged === true || (pull.merged_at !== null && pull.merged_at !== undefined)
}

/**
 * Whether the pull request belongs to `owner/repo`: by its base repository when the service
 * names it, else by its API address. The commit lookup also answers pull requests of forks
 * and upstreams that carry the same commit.
 */
export function isOfRepository(pull: Pull, owner: string, repo: string): boolean {
  const fullName = `${owner}/${repo}`.toLowerCase()
  const base = pull.base?.repo?.full_name
  if (base) return base.toLowerCase() === fullName
  if (pull.url) {
    const match = /\/repos\/([^/]+\/[^/]+)\/pulls\/\d+$/.exec(pull.url)
    if (match) return decodeURIComponent(match[1] ?? '').toLowerCase() === fullName
  }
  return true
}

/**
 * Whether the pull request's branch is in another repository than `owner/repo` (a fork; a head
 * repository of `null` is a fork deleted since). Its commits' `(#N)` and `Merge pull request #N`
 * count pull requests of that fork, not ours. When the service does not say, it is not.
 */
export function isFromFork(pull: Pull, owner: string, repo: string): boolean {
  const head = pull.head?.repo
  if (head === null) return true
  const name = head?.full_name
  return name !== undefined && name.toLowerCase() !== `${owner}/${repo}`.toLowerCase()
}

/** The pull request, or undefined when the number is not a pull request of the repository. */
export async function getPull(
  client: ServiceClient,
  owner: string,
  repo: string,
  number: number
): Promise<Pull | undefined> {
  try {
    const response = await client.request('GET', path`/repos/${owner}/${repo}/pulls/${number}`)
    return parseResponse(pullSchema, response.body, 'pull request')
  } catch (error) {
    if (isApiStatus(error, 404, 410)) return undefined
    throw error
  }
}

/** The issue (or pull request: every pull request is an issue); undefined on 404 and 410. */
export async function getIssue(
  client: ServiceClient,
  owner: string,
  repo: string,
  number: number
): Promise<Issue | undefined> {
  try {
    return await readIssue(client, owner, repo, number)
  } catch (error) {
    if (isApiStatus(error, 404, 410)) return undefined
    throw error
  }
}

/**
 * The issue (or pull request), whatever the answer: a 404 is the caller's failure to report. It
 * carries the labels (an issue holds at most 100) and, for a pull request, `merged_at`.
 */
export async function readIssue(
  client: ServiceClient,
  owner: string,
  repo: string,
  number: number
): Promise<Issue> {
  const response = await client.request('GET', path`/repos/${owner}/${repo}/issues/${number}`)
  return parseResponse(issueSchema, response.body, 'issue')
}

/**
 * Whether pull requests were merged into `branch` (any closed one had it as its base): then the
 * branch gathers others' work (`develop`), and the pull request that merged it is not the one
 * pull request of its commits.
 */
export async function hasClosedPullsInto(
  client: ServiceClient,
  owner: string,
  repo: string,
  branch: string
): Promise<boolean> {
  const response = await client.request(
    'GET',
    withQuery(path`/repos/${owner}/${repo}/pulls`, { state: 'closed', base: branch, per_page: 1 })
  )
  return parseResponse(z.array(pullSchema), response.body, 'pull request list').length > 0
}

/**
 * Merged pull requests of the repository whose title holds `title` (the search API's
 * `in:title`, a phrase), the best matches first, one page of 5: a backport's original by its title.
 * Each as the issues API describes it (`pull_request.merged_at`, the labels).
 */
export async function searchMergedPullsByTitle(
  client: ServiceClient,
  owner: string,
  repo: string,
  title: string
): Promise<SearchItem[]> {
  const phrase = title.replace(/["\\]/g, ' ').replace(/\s+/g, ' ').trim()
  const response = await client.request(
    'GET',
    withQuery(path`/search/issues`, {
      q: `repo:${owner}/${repo} is:pr is:merged in:title "${phrase}"`,
      per_page: 5
    })
  )
  const found = parseResponse(
    z.looseObject({ items: z._default(z.array(searchItemSchema), []) }),
    response.body,
    'search result'
  )
  return found.items
}

/** The most pull requests one page of a list holds. */
export const PULL_LIST_PAGE = 100

/**
 * The branches the most recently updated closed pull requests went into (one page, `base.ref`
 * of each): the range's evidence of a branch that gathers pull requests, read once per run.
 * `complete` when the page was not full (it lists every closed pull request).
 */
export async function recentPullBases(
  client: ServiceClient,
  owner: string,
  repo: string
): Promise<{ bases: Set<string>; complete: boolean }> {
  const response = await client.request(
    'GET',
    withQuery(path`/repos/${owner}/${repo}/pulls`, {
      state: 'closed',
      sort: 'updated',
      direction: 'desc',
      per_page: PULL_LIST_PAGE
    })
  )
  const pulls = parseResponse(z.array(pullSchema), response.body, 'pull request list')
  const bases = new Set(pulls.flatMap(p => (p.base?.ref === undefined ? [] : [p.base.ref])))
  return { bases, complete: pulls.length < PULL_LIST_PAGE }
}

/**
 * The pull requests that the service links to a commit. Its index can lag a few seconds
 * behind a merge; a commit the service does not know answers 422, and an empty repository
 * answers 409 (the description lists it): both read here as none.
 */
export async function pullsForCommit(
  client: ServiceClient,
  owner: string,
  repo: string,
  sha: string
): Promise<Pull[]> {
  try {
    return await client.paginate(
      withQuery(path`/repos/${owner}/${repo}/commits/${sha}/pulls`, { per_page: 100 }),
      body => parseResponse(z.array(pullSchema), body, 'commit pull request list')
    )
  } catch (error) {
    if (isApiStatus(error, 422, 409)) return []
    throw error
  }
}

/**
 * The commits in `head` that are not in `base`, oldest first, every page of them, with their
 * parents; `total` is what the service says the range holds (it may list fewer).
 */
export async function compareCommits(
  client: ServiceClient,
  owner: string,
  repo: string,
  base: string,
  head: string
): Promise<Comparison> {
  let total: number | undefined
  const commits = await client.paginate(
    withQuery(path`/repos/${owner}/${repo}/compare/${base}...${head}`, { per_page: 100 }),
    body => {
      const page = parseResponse(compareSchema, body, 'compare')
      if (page.total_commits !== undefined) total = Math.max(total ?? 0, page.total_commits)
      return page.commits
    }
  )
  return { commits: commits.map(summaryOf), ...(total !== undefined ? { total } : {}) }
}

/** The most commits `pulls/{n}/commits` lists; a pull request with more lists only these. */
export const MAX_PULL_COMMITS = 250

/** The commits of a pull request (its head branch's, as merged), oldest first, every page. */
export async function listPullCommits(
  client: ServiceClient,
  owner: string,
  repo: string,
  number: number
): Promise<CommitSummary[]> {
  const commits = await client.paginate(
    withQuery(path`/repos/${owner}/${repo}/pulls/${number}/commits`, { per_page: 100 }),
    body => parseResponse(z.array(commitSchema), body, 'pull request commit list')
  )
  return commits.map(summaryOf)
}

function summaryOf(c: z.infer<typeof commitSchema>): CommitSummary {
  const committer = c.commit.committer?.email
  const date = c.commit.committer?.date
  return {
    sha: c.sha,
    message: c.commit.message,
    ...(c.parents ? { parents: c.parents.map(p => p.sha) } : {}),
    ...(committer ? { committer } : {}),
    ...(date ? { date } : {})
  }
}
