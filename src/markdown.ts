/** The job summary's building blocks, shared by each job's section (records/, cluster/, labels/). */

/** A summary is for reading: a 5000-deployment cluster shows its first rows and a count. */
export const MAX_SUMMARY_ROWS = 100

/** Keeps a value inside its table cell. */
export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
}

/** The first MAX_SUMMARY_ROWS lines of a list, and a count of the rest (the log has them all). */
export function firstRows<T>(items: readonly T[], line: (item: T) => string): string[] {
  const rows = items.slice(0, MAX_SUMMARY_ROWS).map(line)
  if (items.length > MAX_SUMMARY_ROWS)
    rows.push(`- ... and ${items.length - MAX_SUMMARY_ROWS} more (the log has them all)`)
  return rows
}

/** `sha256:0123456789ab…`: enough of a digest to tell it apart in a table. */
export function shortDigest(digest: string | undefined): string {
  return digest ? `${digest.slice(0, 19)}…` : ''
}

/** The line under a table that was cut at MAX_SUMMARY_ROWS, naming the output that has the rest. */
export function moreInOutput(count: number, output: string): string[] {
  if (count <= MAX_SUMMARY_ROWS) return []
  return [
    '',
    `... and ${count - MAX_SUMMARY_ROWS} more in the \`${output}\` output (\`truncated\` counts any it could not hold).`
  ]
}
