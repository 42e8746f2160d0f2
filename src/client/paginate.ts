/**
 * A list endpoint read page by page along the `link` header's `next`, within a total: at most
 * MAX_LIST_PAGES pages and MAX_LIST_BYTES of answers. Each answer is capped on its own
 * (read-answer.ts); this caps their sum, so a list of large pages ends in plain words long before
 * it fills the memory. A list cut at the cap is never used in part: the call fails, saying so.
 */
import { ServiceError } from './errors.js'
import type { Log } from './log.js'
import { nextLink } from './wire.js'

/** Pages read of one list, at most. */
export const MAX_LIST_PAGES = 1000
/** Bytes of answers read for one list, at most (one more page may pass it: at most 16 MiB more). */
export const MAX_LIST_BYTES = 64 * 1024 * 1024

interface Requester {
  request(
    method: string,
    path: string
  ): Promise<{ headers: Record<string, string>; body: unknown; bytes?: number }>
}

interface Paths {
  absolute(path: string): string
  display(path: string): string
  log: Log
}

export async function paginate<T>(
  client: Requester,
  path: string,
  pick: (body: unknown) => T[],
  { absolute, display, log }: Paths
): Promise<T[]> {
  const items: T[] = []
  const seen = new Set<string>()
  let bytes = 0
  let next: string | undefined = path
  for (let page = 1; next !== undefined; page++) {
    seen.add(absolute(next))
    const response = await client.request('GET', next)
    bytes += response.bytes ?? 0
    // One at a time: `push(...page)` passes every item as an argument, and a page of some
    // hundred thousand items overflows the stack.
    for (const item of pick(response.body)) items.push(item)
    next = nextLink(response.headers['link'])
    // A `next` seen before (itself included) would loop until the page limit.
    if (next !== undefined && seen.has(absolute(next))) {
      log.debug(`${display(path)}: the next page repeats one already read; stopped`)
      next = undefined
    }
    if (next === undefined) break
    if (page >= MAX_LIST_PAGES || bytes >= MAX_LIST_BYTES) {
      const read = `${page} page${page === 1 ? '' : 's'} (${mib(bytes)})`
      const cap = `${MAX_LIST_PAGES} pages or ${mib(MAX_LIST_BYTES)}`
      throw new ServiceError({
        method: 'GET',
        path: display(path),
        status: 0,
        serviceMessage: `the list goes on after ${read}, past the most the step reads of one list (${cap})`,
        hint:
          'Nothing of this list was used, so nothing was done with part of it. Narrow what it ' +
          'lists (for labels: a later `since`, or `pull-requests` given as numbers), or check ' +
          'that `api-url` is the API and not something answering with endless pages.'
      })
    }
  }
  return items
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes < 1024 * 1024 ? 2 : 0)} MiB`
}
