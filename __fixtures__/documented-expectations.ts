/**
 * The example table's expectations that do not depend on one run: README's rules for labels and
 * for the job summary, applied by hand to a step's inputs and to the staged seed
 * (emulator/demo-seed.ts). Nothing here calls src/.
 */
import { demoSeed } from '../emulator/index.js'
import type { ActionRun } from '../scripts/run-action.js'
import {
  LINKED_ISSUES,
  REPOSITORY,
  SHIPPED_PULLS,
  type DocumentedJob
} from '../scripts/documented-jobs.js'

/** What the user would see as something wrong: errors, warnings, a crash on stderr. */
export function problemsOf(run: ActionRun): string[] {
  return [
    ...run.stdout.split('\n').filter(line => /^::(error|warning)/.test(line)),
    ...(run.stderr ? [run.stderr] : [])
  ]
}

/** README: lists are newline- or comma-separated, items trimmed, empty and duplicates dropped. */
export function listOf(value: string | undefined): string[] {
  return [
    ...new Set(
      (value ?? '')
        .split(/[\n,]/)
        .map(item => item.trim())
        .filter(Boolean)
    )
  ]
}

export function numbersOf(value: string | undefined): number[] {
  return listOf(value)
    .map(Number)
    .sort((a, b) => a - b)
}

/** README: `tags` is `key=value` items or a JSON object of strings. */
export function tagsOf(value: string | undefined): Record<string, string> {
  if (!value?.trim()) return {}
  if (value.trim().startsWith('{')) return JSON.parse(value) as Record<string, string>
  return Object.fromEntries(
    listOf(value).map(item => [item.slice(0, item.indexOf('=')), item.slice(item.indexOf('=') + 1)])
  )
}

export interface Labeled {
  number: number
  /** the labels the target lacked, in the order of `labels` */
  added: string[]
  /** those of `remove-labels` it carried */
  removed: string[]
  /** every label it carries after the run, sorted */
  after: string[]
}

/**
 * The issues and pull requests the staged run's event ships, as README's rules say (the staged
 * history ships #12-#14, and #12 fixes #11; a pull request event is about #12), and what each
 * carries after the step, from the labels the seed gives them.
 */
export function labelsAfter(
  job: DocumentedJob,
  inputs: Record<string, string>,
  add: string[],
  remove: string[]
): Labeled[] {
  const given = inputs['pull-requests'] || 'auto'
  const pulls =
    given === 'none'
      ? []
      : given !== 'auto'
        ? numbersOf(given)
        : job.eventName.startsWith('pull_request')
          ? [12]
          : SHIPPED_PULLS
  const linked = /^true$/i.test(inputs['label-linked-issues'] ?? '') && pulls.includes(12)
  const targets = [...pulls, ...(linked ? LINKED_ISSUES : [])].sort((a, b) => a - b)
  const seed = demoSeed()
  const before = (number: number) =>
    [...(seed.pulls?.[REPOSITORY] ?? []), ...(seed.issues?.[REPOSITORY] ?? [])].find(
      t => t.number === number
    )?.labels ?? []
  const has = (list: string[], name: string) =>
    list.some(l => l.toLowerCase() === name.toLowerCase())
  return targets.map(number => {
    const carried = before(number)
    const added = add.filter(l => !has(carried, l))
    const removed = remove.filter(l => has(carried, l))
    const after = [...carried.filter(l => !has(removed, l)), ...added].sort()
    return { number, added, removed, after }
  })
}

/** A row the summary must show: a record written, or a write a dry run would send. */
export type Row =
  | {
      record: 'Deployment record' | 'Storage record'
      name: string
      version?: string | null
      deployment_name?: string
      digest?: string | undefined
      logical_environment?: string | undefined
      physical_environment?: string
      cluster?: string | undefined
      registry_url?: string
      repository?: string | null
      status?: string
      id: number | undefined
    }
  | { planned: string; path: string; effect: string }

/** README (Outputs): the job summary tables the records written, or the writes a dry run would send. */
export function expectSummary(
  summary: string,
  want: {
    dryRun: boolean
    org: string
    rows: Row[]
    jobId: string | undefined
    labeled: Labeled[]
    reads: number
    writes: number
  }
): void {
  // As a reader sees each line: the summary escapes Markdown in values it does not own (markdown.ts).
  const lines = summary.split('\n').map(shownLine)
  // A step with only labels (no record, no cluster job) is titled by them (README: Outputs).
  const labelsOnly = want.rows.length === 0 && want.jobId === undefined
  expect(lines[0]).toBe(
    want.dryRun
      ? '## Dry run: previewed, nothing was written'
      : labelsOnly
        ? '## Labels applied'
        : '## Deployment recorded'
  )
  const expected: string[] = []
  // Values the step does not own are code (docs/untrusted-input.md); its own words are not.
  const code = (text: string) => `\`${text}\``
  for (const row of want.rows.slice(0, 100)) {
    if ('planned' in row) {
      expected.push(`| ${row.planned} | \`${row.path}\` | ${row.effect} |`)
      continue
    }
    // the artifact as given and its version, the record's place, its digest or status, its id
    const version = row.version ? code(row.version) : '-'
    if (row.record === 'Storage record') {
      const where = [row.registry_url, row.repository].filter(Boolean).map(w => code(w ?? ''))
      expected.push(
        `| Storage record | ${code(row.name)} | ${version} | ${where.join(' / ')} | ${row.status} | ${row.id} |`
      )
    } else {
      const where = [row.logical_environment, row.physical_environment, row.cluster]
        .filter(Boolean)
        .map(w => code(w ?? ''))
        .join(' / ')
      const digest = code(`${(row.digest ?? '').slice(0, 19)}…`)
      expected.push(
        `| Deployment record | ${code(row.name)} | ${version} | ${where} as ${code(row.deployment_name ?? '')} | ${digest} | ${row.id} |`
      )
    }
  }
  // where, at a glance: the organization the records went to
  if (want.rows.length > 0 && !want.dryRun)
    expect(summary).toMatch(new RegExp(`^- Where: .*organization \`${want.org}\``, 'm'))
  if (want.rows.length > 100)
    expected.push(
      `... and ${want.rows.length - 100} more in the \`deployment-records\` output (\`truncated\` counts any it could not hold).`
    )
  if (want.jobId) expected.push(`Cluster job **${want.jobId}**: completed.`)
  if (want.labeled.length > 0) {
    expected.push(`### Labeled (${want.labeled.length})`)
    const names = (list: string[]) => list.map(n => `\`${n}\``).join(', ')
    for (const l of want.labeled) {
      const added = l.added.length > 0 ? names(l.added) : 'already done'
      expected.push(
        `| #${l.number} | ${added} | ${l.removed.length > 0 ? names(l.removed) : '-'} |`
      )
    }
  }
  expected.push(`${want.reads} reads and ${want.writes} writes were sent.`)
  expect(expected.filter(line => !lines.includes(line))).toEqual([])
  // Nothing else is tabled: every table row is one of those expected.
  const tableRows = lines.filter(line => /^\| (?!Record |Would send |Issue |---)/.test(line))
  expect(tableRows.filter(line => !expected.includes(line))).toEqual([])
}

/** A summary line as it reads: backslash escapes of punctuation and `&amp;` `&lt;` `&gt;` undone. */
function shownLine(line: string): string {
  return line
    .replace(/\\([!-/:-@[-`{-~])/g, (_, c: string) => (c === '|' ? '\\|' : c))
    .replace(/&(lt|gt|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', amp: '&' })[e] as string)
}
