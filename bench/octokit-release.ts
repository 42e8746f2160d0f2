/**
 * The `release` scenario as a user would otherwise write it: a script on @octokit/core with the
 * throttling and retry plugins, making the same calls as the action. Benchmark only.
 */
import { Octokit } from '@octokit/core'
import { retry } from '@octokit/plugin-retry'
import { throttling } from '@octokit/plugin-throttling'

const env = (name: string): string => {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set`)
  return value
}
const baseUrl = env('BENCH_API_URL')
const org = 'acme'
const [owner, repo] = ['acme', 'web']
const digest = env('BENCH_DIGEST')
const label = 'deployed:production'
const pulls = env('BENCH_PULLS').split(',').map(Number)

const Client = Octokit.plugin(throttling, retry)
const octokit = new Client({
  auth: env('BENCH_TOKEN'),
  baseUrl,
  request: { headers: { 'x-github-api-version': '2026-03-10' } },
  throttle: {
    onRateLimit: (_after: number, _options: unknown, _o: unknown, retryCount: number) =>
      retryCount < 3,
    onSecondaryRateLimit: (_after: number, _options: unknown, _o: unknown, retryCount: number) =>
      retryCount < 3
  }
})

await octokit.request('POST /orgs/{org}/artifacts/metadata/storage-record', {
  org,
  name: 'ghcr.io/acme/web',
  digest,
  version: '1.4.2',
  registry_url: 'https://ghcr.io',
  github_repository: repo,
  return_records: true
})
await octokit.request('POST /orgs/{org}/artifacts/metadata/deployment-record', {
  org,
  name: 'ghcr.io/acme/web',
  digest,
  version: '1.4.2',
  status: 'deployed',
  logical_environment: 'production',
  cluster: 'prod-eu-1',
  deployment_name: 'web',
  github_repository: repo,
  return_records: true
})
try {
  await octokit.request('GET /repos/{owner}/{repo}/labels/{name}', { owner, repo, name: label })
} catch (error) {
  if ((error as { status?: number }).status !== 404) throw error
  await octokit.request('POST /repos/{owner}/{repo}/labels', {
    owner,
    repo,
    name: label,
    color: '0e8a16'
  })
}
for (const issue_number of pulls) {
  const { data } = await octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/labels', {
    owner,
    repo,
    issue_number
  })
  if ((data as Array<{ name: string }>).some(l => l.name.toLowerCase() === label)) continue
  await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
    owner,
    repo,
    issue_number,
    labels: [label]
  })
}
