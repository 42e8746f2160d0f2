import { ApiError, notFound, paginate, type Reply, type RouteContext } from './http.js'
import type { Route } from './router.js'
import { labelJson, requireIssue } from './routes-labels.js'
import { findIssue, findLabel, findRepo, type CommitState, type IssueState } from './state.js'

/** The most commits `pulls/{n}/commits` lists (the service's documented limit). */
const MAX_PULL_COMMITS = 250

/** The API version that dropped `merge_commit_sha` from pull request objects. */
const NO_MERGE_COMMIT_SHA = '2026-03-10'

function labelsOf(ctx: RouteContext, issue: IssueState) {
  return issue.labels.flatMap(name => {
    const label = findLabel(ctx.state, ctx.repo, name)
    return label ? [labelJson(ctx, label)] : []
  })
}

function issueJson(ctx: RouteContext, issue: IssueState) {
  const url = `${ctx.baseUrl}/repos/${ctx.repo}/issues/${issue.number}`
  const json: Record<string, unknown> = {
    id: 1000000 + issue.number,
    node_id: 'I_' + Buffer.from(`${ctx.repo}#${issue.number}`).toString('base64url'),
    url,
    html_url: `https://github.com/${ctx.repo}/issues/${issue.number}`,
    number: issue.number,
    state: issue.state,
    locked: issue.locked,
    title: issue.title,
    body: issue.body,
    labels: labelsOf(ctx, issue)
  }
  if (issue.pull)
    json.pull_request = {
      url: `${ctx.baseUrl}/repos/${ctx.repo}/pulls/${issue.number}`,
      html_url: `https://github.com/${ctx.repo}/pull/${issue.number}`,
      merged_at: issue.pull.merged_at
    }
  return json
}

function pullJson(ctx: RouteContext, issue: IssueState) {
  const pull = issue.pull
  if (!pull) throw new Error('not a pull request')
  const json: Record<string, unknown> = {
    id: 2000000 + issue.number,
    node_id: 'PR_' + Buffer.from(`${ctx.repo}#${issue.number}`).toString('base64url'),
    url: `${ctx.baseUrl}/repos/${ctx.repo}/pulls/${issue.number}`,
    html_url: `https://github.com/${ctx.repo}/pull/${issue.number}`,
    number: issue.number,
    state: issue.state,
    locked: issue.locked,
    title: issue.title,
    body: issue.body,
    labels: labelsOf(ctx, issue),
    merged: pull.merged,
    merged_at: pull.merged_at,
    head: {
      sha: pull.head_sha,
      ref: pull.head_ref,
      repo: pull.head_repo === null ? null : { full_name: pull.head_repo ?? ctx.repo }
    },
    base: { ref: pull.base_ref, repo: { full_name: ctx.repo } }
  }
  if (ctx.apiVersion !== NO_MERGE_COMMIT_SHA) json.merge_commit_sha = pull.merge_commit_sha
  return json
}

function getPull(ctx: RouteContext): Reply {
  const raw = ctx.params.number ?? ''
  const issue = /^\d+$/.test(raw) ? findIssue(ctx.state, ctx.repo, Number(raw)) : undefined
  if (!issue?.pull || issue.deleted) throw notFound()
  // The full pull request (not the list forms) counts its commits; one when none were seeded.
  const commits = Math.max(1, issue.pull.commits.length)
  return { status: 200, body: { ...pullJson(ctx, issue), commits } }
}

/**
 * `pulls/{n}/commits`: the commits the pull request was seeded with, oldest first, paged; as
 * the service does, at most 250 of them.
 */
function listPullCommits(ctx: RouteContext): Reply {
  const raw = ctx.params.number ?? ''
  const issue = /^\d+$/.test(raw) ? findIssue(ctx.state, ctx.repo, Number(raw)) : undefined
  if (!issue?.pull || issue.deleted) throw notFound()
  const known = new Map((ctx.state.commits[ctx.repo] ?? []).map(c => [c.sha, c]))
  const commits = issue.pull.commits.flatMap(sha => {
    const commit = known.get(sha)
    return commit ? [commit] : []
  })
  const page = paginate(ctx, commits.slice(0, MAX_PULL_COMMITS))
  return { status: 200, headers: page.headers, body: page.items.map(c => commitJson(ctx, c)) }
}

/** `tags`: the seeded tags, newest name first (the service's order is not one to count on). */
function listTags(ctx: RouteContext): Reply {
  const refs = ctx.state.refs[ctx.repo] ?? {}
  const names = [...(ctx.state.tagNames[ctx.repo] ?? [])].reverse()
  const page = paginate(ctx, names)
  return {
    status: 200,
    headers: page.headers,
    body: page.items.map(name => {
      const sha = refs[name] ?? ''
      const at = `${ctx.baseUrl}/repos/${ctx.repo}`
      return {
        name,
        commit: { sha, url: `${at}/commits/${sha}` },
        zipball_url: `${at}/zipball/refs/tags/${name}`,
        tarball_url: `${at}/tarball/refs/tags/${name}`,
        node_id: 'REF_' + Buffer.from(`${ctx.repo}:${name}`).toString('base64url')
      }
    })
  }
}

/** `pulls?state=&base=`: open by default; newest first, as the service's default sort is. */
function listPulls(ctx: RouteContext): Reply {
  const state = ctx.query.get('state') ?? 'open'
  const base = ctx.query.get('base')
  const pulls = (ctx.state.issues[ctx.repo] ?? [])
    .filter(issue => issue.pull && !issue.deleted)
    .filter(issue => state === 'all' || issue.state === state)
    .filter(issue => base === null || issue.pull?.base_ref === base)
    .sort((a, b) => b.number - a.number)
  const page = paginate(ctx, pulls)
  return { status: 200, headers: page.headers, body: page.items.map(i => pullJson(ctx, i)) }
}

/**
 * `search/issues`: the subset of the query language discovery uses, `repo:owner/name is:pr
 * is:merged in:title "phrase"` (the phrase anywhere in the title, any case), newest first.
 */
function searchIssues(ctx: RouteContext): Reply {
  const q = ctx.query.get('q') ?? ''
  const repo = findRepo(ctx.state, /(?:^|\s)repo:(\S+)/.exec(q)?.[1] ?? '')
  if (!repo) throw new ApiError(422, 'Validation Failed')
  const phrase = (/in:title\s+"([^"]*)"/.exec(q)?.[1] ?? '').toLowerCase()
  const onlyPulls = /(?:^|\s)is:pr(?:\s|$)/.test(q)
  const merged = /(?:^|\s)is:merged(?:\s|$)/.test(q)
  const items = (ctx.state.issues[repo] ?? [])
    .filter(issue => !issue.deleted && (!onlyPulls || issue.pull))
    .filter(issue => !merged || issue.pull?.merged)
    .filter(issue => issue.title.toLowerCase().includes(phrase))
    .sort((a, b) => b.number - a.number)
  const page = paginate(ctx, items)
  const scoped = { ...ctx, repo }
  return {
    status: 200,
    headers: page.headers,
    body: {
      total_count: items.length,
      incomplete_results: false,
      items: page.items.map(issue => ({ ...issueJson(scoped, issue), score: 1 }))
    }
  }
}

function getIssue(ctx: RouteContext): Reply {
  return { status: 200, body: issueJson(ctx, requireIssue(ctx)) }
}

/** Index of a commit named by ref, full sha or an unambiguous sha prefix of 7+ characters. */
function commitIndex(ctx: RouteContext, name: string): number {
  const commits = ctx.state.commits[ctx.repo] ?? []
  const sha = ctx.state.refs[ctx.repo]?.[name] ?? name
  const exact = commits.findIndex(c => c.sha === sha)
  if (exact >= 0) return exact
  if (sha.length < 7) return -1
  const matches = commits.flatMap((c, i) => (c.sha.startsWith(sha) ? [i] : []))
  return matches.length === 1 ? (matches[0] as number) : -1
}

function commitJson(ctx: RouteContext, commit: CommitState) {
  const email = commit.committer ?? 'test@example.com'
  const committer = {
    name: email.startsWith('noreply@') ? 'GitHub' : 'Test',
    email,
    date: commit.date ?? '2026-01-01T00:00:00Z'
  }
  return {
    sha: commit.sha,
    url: `${ctx.baseUrl}/repos/${ctx.repo}/commits/${commit.sha}`,
    commit: { message: commit.message, author: committer, committer },
    parents: commit.parents.map(sha => ({
      sha,
      url: `${ctx.baseUrl}/repos/${ctx.repo}/commits/${sha}`,
      html_url: `https://github.com/${ctx.repo}/commit/${sha}`
    }))
  }
}

function pullsForCommit(ctx: RouteContext): Reply {
  const sha = ctx.params.sha ?? ''
  const commit = (ctx.state.commits[ctx.repo] ?? [])[commitIndex(ctx, sha)]
  if (!commit) throw new ApiError(422, `No commit found for SHA: ${sha}`)
  const pulls = commit.pulls.flatMap(number => {
    const issue = findIssue(ctx.state, ctx.repo, number)
    return issue?.pull && !issue.deleted ? [pullJson(ctx, issue)] : []
  })
  const page = paginate(ctx, pulls)
  return { status: 200, headers: page.headers, body: page.items }
}

/** The commit at `index` and every commit it descends from (their indexes). */
function ancestry(commits: CommitState[], index: number): Set<number> {
  const at = new Map(commits.map((c, i) => [c.sha, i]))
  const seen = new Set<number>()
  const todo = [index]
  for (let i = todo.pop(); i !== undefined; i = todo.pop()) {
    if (seen.has(i)) continue
    seen.add(i)
    for (const parent of commits[i]?.parents ?? []) {
      const p = at.get(parent)
      if (p !== undefined) todo.push(p)
    }
  }
  return seen
}

/**
 * `git log base..head` in chronological order (the seeded order): every commit of head's
 * history that base's lacks, merged branches included. With `compareLimit` only the newest are
 * listed, and `total_commits` still counts them all.
 */
function compare(ctx: RouteContext): Reply {
  const parts = (ctx.params.basehead ?? '').split('...')
  if (parts.length !== 2) throw notFound()
  const [base = '', head = ''] = parts
  const from = commitIndex(ctx, base)
  const to = commitIndex(ctx, head)
  if (from < 0 || to < 0) throw notFound()
  const commits = ctx.state.commits[ctx.repo] ?? []
  const ofBase = ancestry(commits, from)
  const ofHead = ancestry(commits, to)
  const ahead = commits.filter((_, i) => ofHead.has(i) && !ofBase.has(i))
  const behindBy = [...ofBase].filter(i => !ofHead.has(i)).length
  const status =
    ahead.length > 0 && behindBy > 0
      ? 'diverged'
      : ahead.length > 0
        ? 'ahead'
        : behindBy > 0
          ? 'behind'
          : 'identical'
  const limit = ctx.state.compareLimit
  const listed = limit !== undefined && ahead.length > limit ? ahead.slice(-limit) : ahead
  const page = paginate(ctx, listed)
  const common = [...ofBase].filter(i => ofHead.has(i))
  const mergeBase = common.reduce((a, b) => Math.max(a, b), -1)
  return {
    status: 200,
    headers: page.headers,
    body: {
      url: ctx.selfUrl,
      status,
      ahead_by: ahead.length,
      behind_by: behindBy,
      total_commits: ahead.length,
      base_commit: commitJson(ctx, commits[from] as CommitState),
      merge_base_commit: commitJson(ctx, commits[mergeBase >= 0 ? mergeBase : from] as CommitState),
      commits: page.items.map(c => commitJson(ctx, c))
    }
  }
}

const R = '/repos/:owner/:repo'
const PULL_READ = [['pull_requests=read'], ['contents=read']]

export const pullRoutes: Route[] = [
  { method: 'GET', pattern: `${R}/pulls`, permission: PULL_READ, handler: listPulls },
  { method: 'GET', pattern: `${R}/pulls/:number`, permission: PULL_READ, handler: getPull },
  {
    method: 'GET',
    pattern: `${R}/pulls/:number/commits`,
    permission: PULL_READ,
    handler: listPullCommits
  },
  // Metadata: every token that sees the repository may list its tags.
  { method: 'GET', pattern: `${R}/tags`, permission: [[]], handler: listTags },
  {
    method: 'GET',
    pattern: `${R}/issues/:number`,
    permission: [['issues=read'], ['pull_requests=read']],
    handler: getIssue
  },
  {
    method: 'GET',
    pattern: `${R}/commits/:sha/pulls`,
    permission: PULL_READ,
    handler: pullsForCommit
  },
  {
    method: 'GET',
    pattern: `${R}/compare/:basehead`,
    permission: [['contents=read']],
    handler: compare
  }
].map(route => ({ ...route, scope: 'repo' as const, docs: 'https://docs.github.com/rest' }))

/** Search: no repository scope in the path; the query names it. */
export const searchRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/search/issues',
    permission: [[]],
    handler: searchIssues,
    docs: 'https://docs.github.com/rest/search/search'
  }
]
