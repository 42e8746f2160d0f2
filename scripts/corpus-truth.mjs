/**
 * What scripts/corpus.mjs adds to a fixture from outside the commit subjects (issue 43):
 *
 * - `truth`: the pull request numbers a project's own changelog lists per version (a towncrier
 *   `CHANGES.rst`, a Markdown `CHANGELOG.md`), with the file and the commit it was read at; only
 *   the numbers the mirror has a pull request ref for (`refs/pull/N/head`) count: a changelog
 *   names issues too (`:issue:` of towncrier is either).
 * - `lookup`: what the service's commit-to-pull-request lookup answers, from the mirror's
 *   `refs/pull/N/head` and `refs/pull/N/merge` alone: a commit that is a pull request's head (or
 *   its test merge) is that pull request's, and so is a merge whose second parent is a pull
 *   request's head, with the commits that parent adds over the first. A squash commit is known to
 *   the service by the pull request's `merge_commit_sha`, which no ref keeps: the lookup answers
 *   it only when its tree is the tree of a pull request's head or test merge (a branch up to date
 *   with its base when it was squashed).
 * - `titles`: the title of each changelog pull request, from the default branch's subject that
 *   names it (`Title (#N)`), for a lookup by title.
 */

/** `refs/pull/N/head` and `refs/pull/N/merge`: sha to the numbers of the pull requests. */
export function pullRefs(git) {
  const bySha = new Map()
  const byTree = new Map()
  const heads = new Set()
  const refs = git('for-each-ref', '--format=%(objectname) %(tree) %(refname)', 'refs/pull')
  for (const line of refs.split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]*) refs\/pull\/(\d+)\/(head|merge)$/.exec(line)
    if (!m) continue
    const n = Number(m[3])
    if (m[4] === 'head') heads.add(n)
    bySha.set(m[1], [...new Set([...(bySha.get(m[1]) ?? []), n])])
    if (m[2]) byTree.set(m[2], [...new Set([...(byTree.get(m[2]) ?? []), n])])
  }
  return { bySha, byTree, heads }
}

/**
 * [commit index, numbers] for every window commit the refs tie to a pull request; `squashes`
 * gets the commits tied by their tree alone (a squash is no commit of its pull request).
 */
export function lookupsOf(records, index, refs, squashes = new Set()) {
  const answers = new Map()
  const add = (i, n) => answers.set(i, [...new Set([...(answers.get(i) ?? []), n])])
  const parentsOf = i =>
    records[i][1]
      .split(' ')
      .filter(p => index.has(p))
      .map(p => index.get(p))
  const ancestors = (start, stop) => {
    const seen = new Set()
    for (const todo = [start]; todo.length > 0;) {
      const at = todo.pop()
      if (seen.has(at) || stop.has(at)) continue
      seen.add(at)
      todo.push(...parentsOf(at))
    }
    return seen
  }
  records.forEach(([sha, parents, , , , tree], i) => {
    for (const n of refs.bySha.get(sha) ?? []) add(i, n)
    // a squash or rebase merge of an up-to-date branch: the service knows it by the pull
    // request's merge commit, no ref keeps that, but the commit's tree is the head's (or the test
    // merge's) tree
    if (!parents.includes(' ') && !refs.bySha.has(sha))
      for (const n of refs.byTree.get(tree) ?? []) {
        add(i, n)
        squashes.add(i)
      }
    const [first, ...others] = parentsOf(i)
    for (const other of others) {
      const numbers = refs.bySha.get(records[other][0]) ?? []
      if (numbers.length === 0 || first === undefined) continue
      const base = ancestors(first, new Set())
      const own = ancestors(other, base)
      for (const n of numbers) {
        add(i, n)
        for (const j of own) add(j, n)
      }
    }
  })
  return [...answers].sort((a, b) => a[0] - b[0]).map(([i, ns]) => [i, ns.sort((a, b) => a - b)])
}

/** The sections of a changelog: version to the text under its heading. */
function sections(text, format) {
  const lines = text.split('\n')
  const found = new Map()
  let current
  lines.forEach((line, i) => {
    let version
    if (format === 'towncrier') {
      const m = /^v?(\d+\.\d+(?:\.\d+)*)\s+\(\d{4}-\d\d-\d\d\)\s*$/.exec(line)
      if (m && /^[=-]{3,}\s*$/.test(lines[i + 1] ?? '')) version = m[1]
    } else {
      // `# 1.52.4 (July 16th, 2026)`, `# Version 0.8.15`, `## [1.45.0/0.67.0] - 2026-08-03`, `## [16.1.0](https://…) (2024-01-02)`
      const m =
        /^#{1,3}\s+(?:Version\s+)?\[?(v?\d+\.\d+(?:\.\d+)*(?:\/v?\d+\.\d+(?:\.\d+)*)*)\b/.exec(line)
      if (m) version = m[1]
    }
    if (version !== undefined) {
      // one section for several versions (`1.45.0/0.67.0`: Go modules released together)
      current = []
      for (const v of version.split('/').map(v => v.replace(/^v/, '')))
        if (!found.has(v)) found.set(v, current)
      return
    }
    current?.push(line)
  })
  return found
}

/**
 * The numbers an entry gives as its pull requests. towncrier: every `:issue:` and `:pr:`.
 * Markdown: a parenthesized group that starts with `#N` or `[#N]` (`(#8453)`, `([#8222])`,
 * `([#2345](https://…/issues/2345))`), never a number in the prose (`revert [#7757]`).
 */
function numbersOf(lines, format) {
  const numbers = []
  if (format === 'towncrier') {
    for (const line of lines)
      for (const m of line.matchAll(/:(?:issue|pr):`(\d+)`/g)) numbers.push(Number(m[1]))
    return numbers
  }
  const group = /\(((?:[^()]|\([^()]*\))*)\)/g
  for (const line of lines)
    for (const m of line.matchAll(group)) {
      if (!/^\s*\[?#\d+/.test(m[1])) continue
      for (const n of m[1].replace(/\([^()]*\)/g, '').matchAll(/#(\d+)/g))
        numbers.push(Number(n[1]))
    }
  return numbers
}

/**
 * GitHub release notes as goreleaser writes them (`changelog: use: github`): one line per commit
 * subject of previous..tag, less the subjects the project's `.goreleaser.yaml` excludes (read at
 * the tag). The notes are not in a mirror; this is the project's own rule applied to the range.
 */
function releaseNotes(git, spec, pairs, refs) {
  const versions = {}
  const notPulls = {}
  for (const [previous, tag] of pairs) {
    if (!new RegExp(spec.releases).test(tag.name)) continue
    const config = git('show', `${tag.commit}:${spec.file}`).split('\n')
    const at = config.findIndex(line => /^\s+exclude:\s*$/.test(line))
    const exclude = []
    for (const line of config.slice(at + 1)) {
      const m = /^\s+-\s+'(.*)'\s*$/.exec(line)
      if (!m) break
      exclude.push(new RegExp(m[1].replaceAll('[[:word:]]', '\\w')))
    }
    const subjects = git('log', '--format=%s', `${previous.commit}..${tag.commit}`)
      .split('\n')
      .filter(s => s && !exclude.some(x => x.test(s)))
    // a revert's line quotes the reverted subject: its numbers are not shipped, the revert is
    const numbers = [
      ...new Set(
        subjects.flatMap(s =>
          [...s.replace(/"[^"]*"/g, '').matchAll(/#(\d+)/g)].map(m => Number(m[1]))
        )
      )
    ]
    versions[tag.name] = numbers.filter(n => refs.heads.has(n)).sort((a, b) => a - b)
    const others = numbers.filter(n => !refs.heads.has(n))
    if (others.length > 0) notPulls[tag.name] = others
  }
  return versions
}

/**
 * The changelog's pull requests of each version whose tag (prefix + version) the window keeps.
 * spec: { file, at, format: 'towncrier' | 'markdown' | 'goreleaser', prefix, releases }
 */
export function changelogTruth(git, spec, tagNames, refs, pairs) {
  if (spec.format === 'goreleaser') {
    const versions = releaseNotes(git, spec, pairs, refs)
    return {
      file: spec.file,
      commit: 'each release tag',
      format: spec.format,
      versions,
      notPulls: {}
    }
  }
  const commit = git('rev-parse', `${spec.at}^{commit}`).trim()
  const text = git('show', `${commit}:${spec.file}`)
  const versions = {}
  const notPulls = {}
  for (const [version, lines] of sections(text, spec.format)) {
    // `v1.45.0`, and a Go module's path tag of the version (`sdk/metric/v0.67.0`)
    const tags = [...tagNames].filter(
      t => t === `${spec.prefix}${version}` || t.endsWith(`/v${version}`)
    )
    const numbers = [...new Set(numbersOf(lines, spec.format))].sort((a, b) => a - b)
    for (const tag of tags) {
      versions[tag] = numbers.filter(n => refs.heads.has(n))
      const others = numbers.filter(n => !refs.heads.has(n))
      if (others.length > 0) notPulls[tag] = others
    }
  }
  return {
    file: spec.file,
    commit,
    format: spec.format,
    /** tag to the changelog's pull requests (the numbers with a pull request ref) */
    versions,
    /** tag to the numbers the changelog names that no pull request ref has (issues) */
    notPulls
  }
}

/**
 * The default branch's titles: number to title, for the numbers asked, from `Title (#N)`
 * subjects and from bors's merge bodies (`Merge #953 #954`, then `953: Title r=… a=…` a line).
 */
export function titlesOf(git, numbers, floor, lines = []) {
  const wanted = new Set(numbers)
  const titles = {}
  // the default branch first; then the release lines, for the pull requests merged into them
  // (a bors release pull request onto `v0.8`: its title is only in its merge's body)
  const log = ['HEAD', ...lines]
    .map(ref => git('log', '--first-parent', `--since=${floor}`, '--format=%s%n%b%x00', ref, '--'))
    .join('\0')
  for (const entry of log.split('\0')) {
    const [subject = '', ...body] = entry.trim().split('\n')
    const m = /^(.*\S)\s+\(#(\d+)\)$/.exec(subject)
    const found = m ? [[m[2], m[1]]] : []
    if (/^Merge #\d+/.test(subject))
      for (const line of body) {
        const b = /^(\d+): (.*?)(?: r=\S+)?(?: a=\S+)?$/.exec(line.trim())
        if (b) found.push([b[1], b[2]])
      }
    for (const [n, title] of found) if (wanted.has(Number(n)) && !(n in titles)) titles[n] = title
  }
  return titles
}
