/**
 * GitHub's limits on what a step hands on: outputs of at most 1 MB per job in all, their size
 * "approximated based on UTF-16 encoding", and a job summary of at most 1 MiB per step. The
 * outputs share one budget that a job still has room beside; what does not fit is cut at an item
 * boundary (the value stays valid JSON, or a list of whole items) and counted.
 */

/** All outputs of the step together, names included: 100 kB of the job's 1 MB left for others. */
export const OUTPUTS_BUDGET_BYTES = 900_000
/** The job summary of one step: GitHub refuses more than 1 MiB. */
export const SUMMARY_BUDGET_BYTES = 1_000_000

/** The size GitHub may count: UTF-16 (two bytes a unit) or UTF-8, whichever is more. */
export function sizeOf(text: string): number {
  return Math.max(2 * text.length, Buffer.byteLength(text, 'utf8'))
}

/** One output: its full value, and how to cut it to a size (whole items, with the count left out). */
export interface OutputSpec {
  full: string
  /** How many items `full` holds. */
  count?: number
  /** Absent for a value that is never large (an id, a status): it is never cut. */
  cut?: (budget: number) => { value: string; leftOut: number }
}

/** A JSON array, cut after the last item that fits. */
export function jsonArray(items: readonly unknown[]): OutputSpec {
  const parts = items.map(item => JSON.stringify(item) ?? 'null')
  return {
    full: `[${parts.join(',')}]`,
    count: parts.length,
    cut: budget => cutParts(parts, budget, '[', ',', ']')
  }
}

/**
 * A JSON object whose last field is a list (`{"count":3,...,"pull_requests":[...]}`): the fields
 * before it always stay, the list is cut after the last item that fits.
 */
export function jsonWithList(
  head: Record<string, unknown>,
  key: string,
  items: readonly unknown[]
): OutputSpec {
  const fields = JSON.stringify(head).slice(1, -1)
  const open = `{${fields}${fields ? ',' : ''}${JSON.stringify(key)}:[`
  const parts = items.map(item => JSON.stringify(item) ?? 'null')
  return {
    full: `${open}${parts.join(',')}]}`,
    count: parts.length,
    cut: budget => cutParts(parts, budget, open, ',', ']}')
  }
}

/** Items joined with commas, cut after the last item that fits. */
export function commaList(items: readonly (string | number)[]): OutputSpec {
  const parts = items.map(String)
  return {
    full: parts.join(','),
    count: parts.length,
    cut: budget => cutParts(parts, budget, '', ',', '')
  }
}

/** A value that is never cut. */
export function text(value: string): OutputSpec {
  return { full: value }
}

function cutParts(
  parts: readonly string[],
  budget: number,
  open: string,
  separator: string,
  close: string
): { value: string; leftOut: number } {
  let used = sizeOf(open) + sizeOf(close)
  let kept = 0
  for (const part of parts) {
    const more = sizeOf(part) + (kept > 0 ? sizeOf(separator) : 0)
    if (used + more > budget) break
    used += more
    kept++
  }
  return {
    value: `${open}${parts.slice(0, kept).join(separator)}${close}`,
    leftOut: parts.length - kept
  }
}

export interface FittedOutputs {
  outputs: Record<string, string>
  /** Output name to the number of items left out of it; only the outputs that were cut. */
  cut: Record<string, number>
  /** Output name to the number of items it held before the cut. */
  total: Record<string, number>
}

/**
 * Every output within one budget: the smallest take what they need, and each larger one gets an
 * equal share of what is left, so one huge output cannot crowd out the others and the sum fits.
 * `reserve` is kept for outputs set after the cut (the count of what was cut).
 */
export function fitOutputs(
  specs: Record<string, OutputSpec>,
  budget = OUTPUTS_BUDGET_BYTES,
  reserve = 2_000
): FittedOutputs {
  const entries = Object.entries(specs).map(([name, spec]) => ({
    name,
    spec,
    size: sizeOf(name) + sizeOf(spec.full)
  }))
  let left = budget - reserve
  const share = new Map<string, number>()
  // Never-cut values first (they are small), then the rest from the smallest up.
  const order = [...entries].sort(
    (a, b) => Number(a.spec.cut !== undefined) - Number(b.spec.cut !== undefined) || a.size - b.size
  )
  for (const [index, entry] of order.entries()) {
    const fair = entry.spec.cut ? Math.floor(left / (order.length - index)) : entry.size
    const given = Math.min(entry.size, fair)
    share.set(entry.name, given)
    left -= given
  }
  const outputs: Record<string, string> = {}
  const cut: Record<string, number> = {}
  const total: Record<string, number> = {}
  for (const { name, spec, size } of entries) {
    const room = share.get(name) ?? 0
    if (size <= room || !spec.cut) {
      outputs[name] = spec.full
      continue
    }
    const fitted = spec.cut(room - sizeOf(name))
    outputs[name] = fitted.value
    if (fitted.leftOut > 0) {
      cut[name] = fitted.leftOut
      total[name] = spec.count ?? fitted.leftOut
    }
  }
  return { outputs, cut, total }
}

/** Markdown cut at a line within the budget, with a last line that says so. */
export function fitSummary(markdown: string, budget = SUMMARY_BUDGET_BYTES): string {
  if (Buffer.byteLength(markdown, 'utf8') <= budget) return markdown
  const note = (lines: number) =>
    `\n\n_The summary was cut here to stay within GitHub's 1 MiB limit for a job summary: ` +
    `${lines} more lines are left out; the log has everything._\n`
  const lines = markdown.split('\n')
  let used = Buffer.byteLength(note(lines.length), 'utf8')
  let kept = 0
  for (const line of lines) {
    const more = Buffer.byteLength(line, 'utf8') + 1
    if (used + more > budget) break
    used += more
    kept++
  }
  return lines.slice(0, kept).join('\n') + note(lines.length - kept)
}
