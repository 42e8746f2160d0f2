import { z } from 'zod'

/** Checks a response body against its schema; an unexpected shape is an error that says so. */
export function parseResponse<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const result = schema.safeParse(body ?? {})
  if (!result.success) {
    throw new Error(
      `the service answered with an unexpected ${what} response: ${z.prettifyError(result.error)}`
    )
  }
  return result.data
}
