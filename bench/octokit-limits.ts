/**
 * The `labels under limits` scenarios as a user would otherwise write them: a script on
 * @octokit/core with the throttling and retry plugins that reads each pull request of
 * BENCH_PULLS (1..N) and adds `deployed:production` when it lacks it, retrying every rate limit
 * the plugin reports (nothing given up). Run on the emulator's scaled clock, as the action is.
 * Benchmark only.
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
const count = Number(env('BENCH_PULLS'))

const Client = Octokit.plugin(throttling, retry)
const octokit = new Client({
  auth: env('BENCH_TOKEN'),
  baseUrl: env('BENCH_API_URL'),
  request: { headers: { 'x-github-api-version': '2026-03-10' } },
  throttle: {
    // As its README suggests for a job that must finish: retry whatever the limit asks.
    onRateLimit: () => true,
    onSecondaryRateLimit: () => true
  }
})

let labeled = 0
for (let issue_number = 1; issue_number <= count; issue_number++) {
  const { data } = await octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}', {
    owner,
    repo,
    issue_number
  })
  const names = (data as { labels: Array<{ name: string } | string> }).labels.map(l =>
    typeof l === 'string' ? l : l.name
  )
  if (names.includes(label)) continue
  await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
    owner,
    repo,
    issue_number,
    labels: [label]
  })
  labeled++
}
console.log(`labeled ${labeled} of ${count} pull requests`)
