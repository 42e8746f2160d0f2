/**
 * Answers as deep as the step can handle: JSON.parse reads any depth, but what is done with the
 * value after (JSON.stringify for the outputs, a copy, a schema) recurses, and an unknown field
 * nested some thousands deep would overflow the stack after a write the service took. A value
 * nested deeper than MAX_ANSWER_DEPTH is replaced by a note; the walk itself uses no recursion.
 */

/** Far deeper than any answer of the API (about 6 levels), far below what overflows the stack. */
export const MAX_ANSWER_DEPTH = 64
const LEFT_OUT = `(left out: nested deeper than ${MAX_ANSWER_DEPTH} levels)`

type Container = Record<string, unknown> | unknown[]
const isContainer = (value: unknown): value is Container =>
  typeof value === 'object' && value !== null

/** `value` (a fresh JSON.parse result, changed in place) within `max` levels; `cut` counts what was left out. */
export function withinDepth(
  value: unknown,
  max = MAX_ANSWER_DEPTH
): { value: unknown; cut: number } {
  let cut = 0
  const pending: Array<[Container, number]> = isContainer(value) ? [[value, 1]] : []
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [container, depth] = next
    for (const key of Object.keys(container)) {
      const child = (container as Record<string, unknown>)[key]
      if (!isContainer(child)) continue
      if (depth < max) pending.push([child, depth + 1])
      else {
        // defineProperty: a `__proto__` key of the answer is an own field, not the prototype.
        Object.defineProperty(container, key, { value: LEFT_OUT, enumerable: true, writable: true })
        cut++
      }
    }
  }
  return { value, cut }
}
