import * as z from 'zod/mini'

/** Checks a response body against its schema; an unexpected shape is an error that says so. */
export function parseResponse<T>(schema: z.ZodMiniType<T>, body: unknown, what: string): T {
  const result = schema.safeParse(body ?? {})
  if (!result.success) {
    throw new Error(
      `the service answered with an unexpected ${what} response: ${z.prettifyError(result.error)}`
    )
  }
  return result.data
}

/** What a 2xx write answered: the value read, and a warning when the body was odd. */
export interface WriteAnswer<T> {
  value: T
  warning?: string
}

/**
 * Reads the answer to a write that the service accepted (2xx). The write happened, so an odd
 * body never fails the step: when the schema refuses it, `salvage` reads what it can and the
 * refusal becomes a warning.
 */
export function parseWriteResponse<T>(
  schema: z.ZodMiniType<T>,
  body: unknown,
  what: string,
  salvage: (body: unknown) => T
): WriteAnswer<T> {
  const result = schema.safeParse(body ?? {})
  if (result.success) return { value: result.data }
  return {
    value: salvage(body),
    warning:
      `the service accepted the ${what} write but answered with an unexpected body; it is ` +
      `reported as done with the fields that could be read: ${z.prettifyError(result.error)}`
  }
}

/**
 * The fields of `value` whose values pass their schema in `shape`; the others are left out.
 * Fields the shape does not name are kept as they are, as a loose object would keep them.
 * Undefined when `value` is not an object.
 */
export function salvageObject(
  shape: Record<string, z.ZodMiniType>,
  value: unknown
): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const kept: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    const schema = shape[key]
    if (!schema) {
      kept[key] = field
      continue
    }
    const parsed = schema.safeParse(field)
    if (parsed.success && parsed.data !== undefined) kept[key] = parsed.data
  }
  return kept
}

/** The objects of `body[key]` salvaged one by one (see `salvageObject`); other items are left out. */
export function salvageList(
  shape: Record<string, z.ZodMiniType>,
  body: unknown,
  key: string
): Record<string, unknown>[] {
  const list =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[key] : undefined
  if (!Array.isArray(list)) return []
  return list.flatMap(item => {
    const kept = salvageObject(shape, item)
    return kept ? [kept] : []
  })
}
