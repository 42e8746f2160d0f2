import { createHash } from 'node:crypto'
import type { SeedData } from './seed.js'

/** A stable fake commit sha for a name. */
export function sha(text: string): string {
  return createHash('sha1').update(text).digest('hex')
}

export const DEMO_TAG_SHA = sha('c0')
export const DEMO_HEAD_SHA = sha('c3')

const HOUR_MS = 60 * 60 * 1000

/**
 * When each demo pull request was merged, before the seed is made (the deploy follows at once):
 * days and hours, as a team's would be, so the summary's lead-time line shows what it is for.
 */
export const DEMO_MERGED_BEFORE_MS: Readonly<Record<12 | 13 | 14, number>> = {
  12: 53 * HOUR_MS, // 2 d 5 h
  13: 26 * HOUR_MS, // 1 d 2 h
  14: 3 * HOUR_MS + 20 * 60 * 1000 // 3 h 20 min
}

/**
 * A small history: three merged pull requests between tag v1.0.0 and main, merged hours to days
 * before `now` (see DEMO_MERGED_BEFORE_MS).
 */
export function demoSeed(now = Date.now()): SeedData {
  const mergedAt = (number: 12 | 13 | 14) =>
    new Date(now - DEMO_MERGED_BEFORE_MS[number]).toISOString()
  const commits = [
    { sha: sha('c0'), message: 'Initial release' },
    { sha: sha('c1'), message: 'Merge pull request #12 from acme/feature-12\n\nAdd health check' },
    { sha: sha('c2'), message: 'Cache static assets (#13)' },
    { sha: sha('c3'), message: 'Tune connection pool', pulls: [14] }
  ]
  const head = commits[commits.length - 1]?.sha ?? ''
  return {
    labels: {
      'acme/web': [
        { name: 'deployed:staging', color: 'fbca04', description: 'Deployed to staging' },
        { name: 'deployed:production', color: '0e8a16', description: 'Deployed to production' },
        { name: 'bug', color: 'd73a4a', default: true }
      ]
    },
    issues: { 'acme/web': [{ number: 11, title: 'Health endpoint missing', labels: ['bug'] }] },
    pulls: {
      'acme/web': [
        {
          number: 12,
          title: 'Add health check',
          body: 'Fixes #11',
          head_sha: sha('h12'),
          files: ['web/CHANGES'],
          merged_at: mergedAt(12),
          labels: ['deployed:staging']
        },
        {
          number: 13,
          title: 'Cache static assets',
          head_sha: sha('h13'),
          files: ['web/CHANGES'],
          merged_at: mergedAt(13),
          labels: ['deployed:staging']
        },
        {
          number: 14,
          title: 'Tune connection pool',
          head_sha: sha('h14'),
          files: ['web/CHANGES'],
          merged_at: mergedAt(14)
        }
      ]
    },
    commits: { 'acme/web': commits },
    refs: { 'acme/web': { 'v1.0.0': sha('c0'), main: head } },
    // Production last ran v1.0.0 well (GitHub's deployment of the job that deployed it), for
    // `since: previous-deployment`.
    deployments: {
      'acme/web': [
        {
          sha: sha('c0'),
          environment: 'production',
          statuses: [
            { state: 'in_progress', log_url: 'https://github.com/acme/web/actions/runs/1/job/1' },
            { state: 'success', log_url: 'https://github.com/acme/web/actions/runs/1/job/1' }
          ]
        }
      ]
    }
  }
}
