/** The ranges of the read-cost rows (labels-300, labels-merge-400), seeded into the emulator. */
import type { SeedCommit, SeedPull } from '../emulator/index.js'

/**
 * labels-300: v1.0.0..GITHUB_SHA, 300 commits of 150 pull requests, as an open project merges
 * them: per group of six, one squash-merged (`Title (#n)`), one rebase-merged (its subject names
 * none: the commit lookup finds it), one from a fork merged with a merge commit over its three
 * branch commits. Numbers from 1001, beside the release scenario's.
 */
export function labelsRange(): { commits: SeedCommit[]; pulls: SeedPull[]; start: string } {
  const sha = (n: number) => n.toString(16).padStart(40, '0')
  const start = sha(0x1000)
  const commits: SeedCommit[] = [{ sha: start, message: 'v1.0.0' }]
  const pulls: SeedPull[] = []
  let tip = start
  let next = 0x1001
  const add = (message: string, parents: string[], pull: number, last = false) => {
    const id = last ? 'f'.repeat(40) : sha(next++)
    commits.push({ sha: id, message, parents, pulls: [pull] })
    return id
  }
  for (let group = 0; group < 50; group++) {
    const [squash, rebase, fork] = [1001 + 3 * group, 1002 + 3 * group, 1003 + 3 * group]
    tip = add(`Change ${squash} (#${squash})`, [tip], squash)
    tip = add(`Change ${rebase}`, [tip], rebase)
    let branch = tip
    for (let i = 0; i < 3; i++) branch = add(`Work ${fork}.${i}`, [branch], fork)
    const merge = `Merge pull request #${fork} from contributor-${fork}/patch\n\nChange ${fork}`
    tip = add(merge, [tip, branch], fork, group === 49)
    pulls.push(
      { number: squash },
      { number: rebase },
      { number: fork, head_ref: 'patch', head_repo: `contributor-${fork}/web` }
    )
  }
  return { commits, pulls, start }
}

/**
 * labels-merge-400: a merge-commit project's release in acme/api, v1.0.0..GITHUB_SHA: 400 pull
 * requests from the repository's own branches, each merged with a merge commit over two branch
 * commits (every tenth branch with `main` merged into it), a commit pushed to main naming none
 * every 40 pull requests, and four branches that show another pull request (a commit the merge
 * button made). Budget: compare pages + one read per pull request + lookups + one list of
 * closed pull requests for the four branches.
 */
export function mergeRange(): { commits: SeedCommit[]; pulls: SeedPull[]; start: string } {
  const sha = (n: number) => n.toString(16).padStart(40, '0')
  const start = sha(0x1000)
  const commits: SeedCommit[] = [{ sha: start, message: 'v1.0.0' }]
  const pulls: SeedPull[] = []
  let main = start
  let next = 0x1001
  const add = (message: string, parents: string[], pull?: number, committer?: string) => {
    const id = sha(next++)
    commits.push({
      sha: id,
      message,
      parents,
      pulls: pull ? [pull] : [],
      ...(committer ? { committer } : {})
    })
    return id
  }
  for (let k = 1; k <= 400; k++) {
    let branch = add(`Work on ${k}`, [main], k)
    if (k % 10 === 0) branch = add(`Merge branch 'main' into feature-${k}`, [branch, main], k)
    const button = k % 100 === 50
    branch = button
      ? add('Apply suggestions from code review', [branch], k, 'noreply@github.com')
      : add(`Test ${k}`, [branch], k)
    main = add(`Merge pull request #${k} from acme/feature-${k}\n\nChange ${k}`, [main, branch], k)
    if (k % 40 === 0) main = add(`Bump the build number ${k}`, [main])
    pulls.push({ number: k, head_ref: `feature-${k}` })
  }
  // The tip is GITHUB_SHA, as labels-300's.
  const last = commits[commits.length - 1] as SeedCommit
  last.sha = 'f'.repeat(40)
  return { commits, pulls, start }
}
