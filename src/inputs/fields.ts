import { z } from 'zod'
import { MAX_TAGS, RUNTIME_RISKS, type RuntimeRisk } from '../limits.js'
import { hasControlCharacters, splitList } from '../text.js'

/** Field schemas more than one job's inputs use: each turns a raw string into a typed value. */

export const oneOf = (values: readonly string[]) => (issue: { input?: unknown }) =>
  `\`${String(issue.input)}\` is not one of ${values.map(v => `\`${v}\``).join(', ')}`

export function boundedText(min: number, max: number) {
  return z
    .string()
    .min(min, { error: `must not be empty` })
    .max(max, {
      error: issue =>
        `is ${String((issue.input as string).length)} characters long; at most ${max} are allowed`
    })
    .refine(value => !hasControlCharacters(value, '\t\n'), { error: 'contains control characters' })
}

export function httpsUrl(max: number) {
  return z.string().superRefine((value, ctx) => {
    if (value.length > max) {
      ctx.addIssue({
        code: 'custom',
        message: `is ${value.length} characters long; at most ${max} are allowed`
      })
      return
    }
    let url: URL
    try {
      url = new URL(value)
    } catch {
      ctx.addIssue({ code: 'custom', message: `\`${value}\` is not a URL` })
      return
    }
    if (url.protocol !== 'https:')
      ctx.addIssue({ code: 'custom', message: 'must be an https:// URL' })
  })
}

export const clusterSchema = z
  .string()
  .max(128, { error: 'is longer than 128 characters' })
  .regex(/^[A-Za-z0-9._-]+$/, { error: 'may hold only letters, digits, `.`, `_` and `-`' })

/** Accepts `sha256:<hex>`, `<image>@sha256:<hex>` or bare hex; the hex is lower-cased. */
export const digestSchema = z.string().transform((value, ctx) => {
  const at = value.lastIndexOf('@')
  const image = at > 0 ? value.slice(0, at) : undefined
  const ref = at >= 0 ? value.slice(at + 1) : value
  const colon = ref.indexOf(':')
  const algorithm = colon >= 0 ? ref.slice(0, colon).toLowerCase() : 'sha256'
  const hex = colon >= 0 ? ref.slice(colon + 1) : ref
  if (algorithm !== 'sha256') {
    ctx.addIssue({
      code: 'custom',
      message: `only sha256 digests can be recorded, not ${algorithm}`
    })
    return z.NEVER
  }
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be sha256:<64 hex digits>, <image>@sha256:<64 hex digits> or 64 hex digits'
    })
    return z.NEVER
  }
  return { digest: `sha256:${hex.toLowerCase()}`, image }
})

export const tagsSchema = z.string().transform((value, ctx) => {
  let entries: Array<[string, unknown]>
  if (value.startsWith('{')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(value)
    } catch {
      ctx.addIssue({ code: 'custom', message: 'looks like JSON but does not parse' })
      return z.NEVER
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON object of strings' })
      return z.NEVER
    }
    entries = Object.entries(parsed)
  } else {
    entries = []
    for (const item of splitList(value)) {
      const eq = item.indexOf('=')
      if (eq <= 0) {
        ctx.addIssue({ code: 'custom', message: `\`${item}\` is not key=value` })
        continue
      }
      entries.push([item.slice(0, eq).trim(), item.slice(eq + 1).trim()])
    }
  }
  // A null-prototype object: keys like __proto__ stay plain keys.
  const tags: Record<string, string> = Object.create(null) as Record<string, string>
  for (const [key, tagValue] of entries) {
    if (typeof tagValue !== 'string') {
      ctx.addIssue({ code: 'custom', message: `the value of \`${key}\` is not a string` })
    } else if (key === '') {
      ctx.addIssue({ code: 'custom', message: 'a key is empty' })
    } else if (Object.prototype.hasOwnProperty.call(tags, key)) {
      ctx.addIssue({ code: 'custom', message: `\`${key}\` is given twice` })
    } else {
      tags[key] = tagValue
    }
  }
  if (entries.length > MAX_TAGS) {
    ctx.addIssue({
      code: 'custom',
      message: `has ${entries.length} keys; at most ${MAX_TAGS} are allowed`
    })
  }
  return { ...tags }
})

export const runtimeRisksSchema = z.string().transform((value, ctx) => {
  const items = splitList(value)
  const unknown = items.filter(item => !(RUNTIME_RISKS as readonly string[]).includes(item))
  if (unknown.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `${unknown.map(u => `\`${u}\``).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not one of ${RUNTIME_RISKS.join(', ')}`
    })
    return z.NEVER
  }
  return items as RuntimeRisk[]
})

export const booleanSchema = z.string().transform((value, ctx) => {
  if (/^true$/i.test(value)) return true
  if (/^false$/i.test(value)) return false
  ctx.addIssue({ code: 'custom', message: `\`${value}\` is not true or false` })
  return z.NEVER
})
