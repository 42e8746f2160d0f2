/**
 * The `labels-300` scenario as a user would otherwise write it, without GraphQL: a script on
 * @octokit/core with the throttling and retry plugins that reads v1.0.0...GITHUB_SHA page by
 * page, takes the pull request a subject names (`Merge pull request #n`, `Title (#n)`: read to
 * see that it was merged) or looks the commit up, then reads each merged pull request's labels
 * and prints what it would add (a dry run, as the action's scenario). Benchmark only.
 */
import { Octokit } from '@octokit/core'
import { retry } from '@octokit/plugin-retry'
import { throttling } from '@octokit/plugin-throttling'

const env = (name: string): string => {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set`)
  return value
}
const [owner, repo] = ['acme', 'web']
const label = 'deployed:production'
const head = env('GITHUB_SHA')

const Client = Octokit.plugin(throttling, retry)
const octokit = new Client({
  auth: env('BENCH_TOKEN'),
  baseUrl: env('BENCH_API_URL'),
  request: { headers: { 'x-github-api-version': '2026-03-10' } },
  throttle: {
    onRateLimit: (_after: number, _options: unknown, _o: unknown, retryCount: number) =>
      retryCount < 3,
    onSecondaryRateLimit: (_after: number, _options: unknown, _o: unknown, retryCount: number) =>
      retryCount < 3
  }
})

interface Commit {
  sha: string
  commit: { message: string }
}
interface Pull {
  number: number
  merged_at?: string | null
}

const commits: Commit[] = []
for (let page = 1; ; page++) {
  const { data } = await octokit.request('GET /repos/{owner}/{repo}/compare/{basehead}', {
    owner,
    repo,
    basehead: `v1.0.0...${head}`,
    per_page: 100,
    page
  })
  const listed = (data as { commits: Commit[] }).commits
  commits.push(...listed)
  if (listed.length < 100) break
}

const merged = new Set<number>()
const read = new Set<number>()
for (const { sha, commit } of commits) {
  const subject = commit.message.split('\n')[0] ?? ''
  const named = /^Merge pull request #(\d+) from /.exec(subject) ?? /\(#(\d+)\)$/.exec(subject)
  if (named) {
    const pull_number = Number(named[1])
    if (read.has(pull_number)) continue
    read.add(pull_number)
    const { data } = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      owner,
      repo,
      pull_number
    })
    if ((data as Pull).merged_at) merged.add(pull_number)
    continue
  }
  const { data } = await octokit.request('GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls', {
    owner,
    repo,
    commit_sha: sha
  })
  for (const pull of data as Pull[]) if (pull.merged_at) merged.add(pull.number)
}

let planned = 0
for (const issue_number of [...merged].sort((a, b) => a - b)) {
  const { data } = await octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/labels', {
    owner,
    repo,
    issue_number
  })
  if ((data as Array<{ name: string }>).some(l => l.name.toLowerCase() === label)) continue
  planned++
}
console.log(`dry run: would label ${planned} of ${merged.size} pull requests`)
