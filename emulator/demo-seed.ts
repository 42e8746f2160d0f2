import { createHash } from 'node:crypto'
import type { SeedData } from './seed.js'

/** A stable fake commit sha for a name. */
export function sha(text: string): string {
  return createHash('sha1').update(text).digest('hex')
}

export const DEMO_TAG_SHA = sha('c0')
export const DEMO_HEAD_SHA = sha('c3')

/** A small history: three merged pull requests between tag v1.0.0 and main. */
export function demoSeed(): SeedData {
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
          labels: ['deployed:staging']
        },
        {
          number: 13,
          title: 'Cache static assets',
          head_sha: sha('h13'),
          labels: ['deployed:staging']
        },
        { number: 14, title: 'Tune connection pool', head_sha: sha('h14') }
      ]
    },
    commits: { 'acme/web': commits },
    refs: { 'acme/web': { 'v1.0.0': sha('c0'), main: head } }
  }
}
