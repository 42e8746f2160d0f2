// What the wire says, read without state: error bodies, headers, URLs and links, redirect
// targets, and the cause of a network failure. The request loop in client.ts uses these.
import { withinDepth } from './depth.js'
import { isLoopback } from './proxy.js'
import { canonicalOrigin } from './origin.js'
import type { ValidationError } from './errors.js'
import type { Outcome } from './retry-policy.js'

/** What one attempt came to: an answer, or no answer (and why). */
export type Attempt =
  | { kind: 'response'; status: number; headers: Record<string, string>; text: string }
  | { kind: 'network' | 'timeout'; error: Error }

/** An attempt that threw: a timeout (ours or undici's), or any other network error. */
export function thrownAttempt(error: unknown, timeoutMs: number): Attempt {
  // Kept as the cause: an error from another realm (as under jest) fails `instanceof Error`,
  // and its `code` is what says whether the service could be reached at all.
  const err = error instanceof Error ? error : new Error(String(error), { cause: error as unknown })
  // Read name and code from what was thrown, not from `err`: the abort signal's DOMException
  // can come from another realm (a VM context, as under jest) and then fails `instanceof Error`.
  const thrown = (error ?? {}) as { name?: unknown; code?: unknown }
  const timedOut = /timeout/i.test(String(thrown.name)) || /timeout/i.test(String(thrown.code))
  return timedOut
    ? { kind: 'timeout', error: new Error(`no answer in ${timeoutMs} ms`) }
    : { kind: 'network', error: err }
}

/**
 * One attempt's deadline, on a timer that holds the process open (AbortSignal.timeout's does
 * not), with the run's cancel when there is one. `within` settles with the attempt's end even
 * when undici never settles the request (one queued behind a proxy tunnel it lost): the attempt
 * ends as a timeout, instead of the process leaving with the step unfinished.
 */
export function attemptDeadline(
  ms: number,
  cancel?: AbortSignal
): { signal: AbortSignal; within: <T>(work: Promise<T>) => Promise<T>; clear: () => void } {
  const controller = new AbortController()
  const timer = setTimeout(
    () => controller.abort(new DOMException(`no answer in ${ms} ms`, 'TimeoutError')),
    ms
  )
  const signal = cancel ? AbortSignal.any([controller.signal, cancel]) : controller.signal
  let stop = () => {}
  const ended = new Promise<never>((_, reject) => {
    const end = () => reject(signal.reason as Error)
    signal.addEventListener('abort', end, { once: true })
    stop = () => signal.removeEventListener('abort', end)
  })
  ended.catch(() => undefined)
  return {
    signal,
    within: work => Promise.race([work, ended]),
    clear: () => {
      clearTimeout(timer)
      stop()
    }
  }
}

/** undici's words for a tunnel the proxy would not open, and for a 407 on a forwarded request. */
const PROXY_STATUS = /Proxy response \((\d{3})\) !== 200|Proxy Authentication Required \((407)\)/

/**
 * The 4xx a proxy answered for itself (a CONNECT it would not open: 407 for credentials, 403 or
 * another 4xx for its policy), or undefined. A 5xx (the proxy could not reach the host) is left
 * to the retries, as any network blip.
 */
export function proxyRefusal(attempt: Attempt): number | undefined {
  if (attempt.kind === 'response') return attempt.status === 407 ? 407 : undefined
  const match = PROXY_STATUS.exec(attempt.error.message)
  const status = Number(match?.[1] ?? match?.[2])
  return status >= 400 && status < 500 ? status : undefined
}

export function toOutcome(attempt: Attempt): Outcome {
  if (attempt.kind !== 'response') return attempt
  const body = parseBody(attempt.text)
  const message = body.ok ? errorBody(body.value).message : undefined
  return { kind: 'response', status: attempt.status, headers: attempt.headers, message }
}

export function errorBody(body: unknown): {
  message?: string
  errors?: ValidationError[]
  documentationUrl?: string
} {
  if (typeof body !== 'object' || body === null) return {}
  const record = body as Record<string, unknown>
  const errors = Array.isArray(record['errors'])
    ? (record['errors'] as unknown[]).map(e =>
        typeof e === 'object' && e !== null ? (e as ValidationError) : { message: String(e) }
      )
    : undefined
  return {
    message: messageText(record['message']),
    errors,
    documentationUrl:
      typeof record['documentation_url'] === 'string' ? record['documentation_url'] : undefined
  }
}

/**
 * The error's `message`: usually a string, but the cluster endpoints answer 403 and 404 with an
 * object `{cause, repositories}`, rendered here as `cause (repositories: a, b)`.
 */
export function messageText(message: unknown): string | undefined {
  if (typeof message === 'string') return message
  if (typeof message !== 'object' || message === null) return undefined
  const { cause, repositories, ...rest } = message as Record<string, unknown>
  const parts: string[] = []
  if (typeof cause === 'string' && cause !== '') parts.push(cause)
  if (Array.isArray(repositories) && repositories.length > 0)
    parts.push(`(repositories: ${repositories.map(r => String(r)).join(', ')})`)
  if (Object.keys(rest).length > 0 || parts.length === 0) parts.push(JSON.stringify(rest))
  return parts.join(' ')
}

export function versionHint(
  status: number,
  message: string | undefined,
  version: string
): string | undefined {
  if (status === 400 && /version/i.test(message ?? '')) {
    return `The service does not support API version ${version}: set \`api-version\` to one it supports.`
  }
  return undefined
}

/** The body as JSON, nested at most MAX_ANSWER_DEPTH deep; `cut` counts the values left out. */
export function parseBody(
  text: string
): { ok: true; value: unknown; cut?: number } | { ok: false } {
  if (text.trim() === '') return { ok: true, value: undefined }
  let value: unknown
  try {
    value = JSON.parse(text) as unknown
  } catch {
    return { ok: false }
  }
  const shallow = withinDepth(value)
  return shallow.cut > 0 ? { ok: true, ...shallow } : { ok: true, value }
}

export function flattenHeaders(
  headers: Record<string, string | string[] | undefined>
): Record<string, string> {
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined)
      flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  }
  return flat
}

/**
 * Splits without `new URL()`, which would turn an encoded `%2E%2E` segment back into a step up.
 * The origin is canonical (origin.ts): a `next` link that spells out `:443` is `api-url`'s origin.
 */
export function splitUrl(url: string): { origin: string; path: string } {
  const match = /^(https?:\/\/[^/?#]+)([^#]*)/i.exec(url)
  if (!match) throw new Error(`not an absolute http(s) URL: ${url}`)
  const origin = canonicalOrigin(match[1] ?? '')
  const path = match[2] || '/'
  return { origin, path: path.startsWith('/') ? path : `/${path}` }
}

export function nextLink(link: string | undefined): string | undefined {
  if (!link) return undefined
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?([^";]+)"?/.exec(part.trim())
    if (match && match[2]?.split(/\s+/).includes('next')) return match[1]
  }
  return undefined
}

export const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** The absolute http(s) URL a redirect names, or undefined when it names none that can be followed. */
export function usableLocation(location: string | undefined, base: string): string | undefined {
  if (location === undefined || location.trim() === '') return undefined
  try {
    const target = new URL(location.trim(), base)
    return target.protocol === 'https:' || target.protocol === 'http:'
      ? target.toString()
      : undefined
  } catch {
    return undefined
  }
}

/** The code of a tunnel the proxy closed before it opened (agent.ts): the service was not reached. */
export const TUNNEL_CLOSED = 'RD_PROXY_TUNNEL_CLOSED'

export const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$|HOSTNAME_MISMATCH)/

/**
 * In words, why a connection could not be made at all, or undefined when the error is something
 * else (a reset mid-answer, a timeout): those say nothing about whether the service is there.
 */
export function unreachableCause(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown }
    const text = typeof message === 'string' ? message : ''
    if (code === TUNNEL_CLOSED) return text
    if (code === 'ECONNREFUSED') return `connection refused (ECONNREFUSED${addressIn(text)})`
    if (code === 'ENOTFOUND') return `the host name does not resolve (ENOTFOUND${hostIn(text)})`
    if (code === 'EAI_AGAIN')
      return `the host name could not be looked up (EAI_AGAIN${hostIn(text)})`
    if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `no route to the host (${code})`
    if (typeof code === 'string' && TLS_CODE.test(code)) return `TLS failed (${code}: ${text})`
    e = (e as { cause?: unknown }).cause
  }
  return undefined
}

const addressIn = (message: string) => {
  const match = / (\S+:\d+)$/.exec(message)
  return match ? ` ${match[1]}` : ''
}
const hostIn = (message: string) => {
  const match = / (\S+)$/.exec(message)
  return match ? ` ${match[1]}` : ''
}

/** A URL as a log line may show it: without its query and without `user:password@`. */
export function redactQuery(url: string): string {
  return (url.split('?')[0] ?? url).replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1')
}

/**
 * Whether a request to `target` (where a redirect or a `next` link sends it) would leave https
 * for plain http: refused, as the body and the answer would travel unencrypted. Plain http stays
 * for loopback only when `api-url` itself is loopback http (a local emulator).
 */
export function downgrades(target: string, apiOrigin: string): boolean {
  const { origin } = splitUrl(target)
  if (!origin.startsWith('http:')) return false
  if (!apiOrigin.startsWith('http:')) return true
  return !isLoopback(new URL(origin).hostname)
}
