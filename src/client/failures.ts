// Over 300 lines on purpose: one small builder per way a request can end (answer, no answer,
// proxy, redirect, downgrade, deadline), each the message and hint of that ending; split, the
// shared hint wording would be spread over files.
// The ServiceErrors a request ends in, built without state from what the request loop in
// client.ts knows: the answer (or the error), where the request went, and the run's settings.
import { cutBefore, permissionHint, ServiceError } from './errors.js'
import type { FailureClass } from './retry-policy.js'
import {
  errorBody,
  parseBody,
  redactQuery,
  splitUrl,
  unreachableCause,
  versionHint
} from './wire.js'

/** What every failure of one client may name. */
export interface FailureContext {
  /** the configured service: `https://api.github.com`, or `https://HOST` with basePath `/api/v3` */
  origin: string
  basePath: string
  apiVersion: string
  /** the fork a pull request run comes from (its token is read-only), when it does */
  fork?: string
  /** where the token and the API URL came from on the command line (`--token`, `GITHUB_TOKEN`, ...) */
  tokenSource?: string
  apiUrlSource?: string
}

export interface Answer {
  status: number
  headers: Record<string, string>
  text: string
}

/** What the caller says of its run for the hints: a fork's read-only token, where token and URL came from. */
export type HintContext = 'fork' | 'tokenSource' | 'apiUrlSource'

/** Where the request that failed went, when not to `api-url`'s origin: then without the token. */
export interface Elsewhere {
  origin: string
  /** what sent it there */
  how: 'redirect' | 'next link'
}

/** `api-url` in the action; on the command line, the flag and the variable it came from. */
const apiUrlOf = (ctx?: Pick<FailureContext, 'apiUrlSource'>) => ctx?.apiUrlSource ?? '`api-url`'
const apiUrlHint = (ctx?: Pick<FailureContext, 'apiUrlSource'>) =>
  `check that ${apiUrlOf(ctx)} is the API (https://api.github.com, or https://HOST/api/v3 on a server)`

/** A response that is not a success, a redirect or worth another try. */
export function responseFailure(
  ctx: FailureContext,
  method: string,
  displayPath: string,
  answer: Answer,
  attempts: number,
  decision: { failure: FailureClass; reason: string },
  elsewhere: Elsewhere | undefined
): ServiceError {
  const { status, headers } = answer
  const body = parseBody(answer.text)
  const details = errorBody(body.ok ? body.value : undefined)
  const common = {
    method,
    path: displayPath,
    status,
    validationErrors: details.errors,
    documentationUrl: details.documentationUrl,
    requestId: headers['x-github-request-id'],
    attempts
  }
  if (decision.failure !== 'permanent') {
    // The same limit would stop every later call too.
    const fatal = decision.failure === 'rate-limit'
    return new ServiceError({
      ...common,
      serviceMessage: details.message,
      hint: decision.reason,
      fatal
    })
  }
  if (elsewhere && (status === 401 || status === 403 || status === 404)) {
    // Every later request meets the same redirect or link: fatal, so nothing is dropped quietly.
    return new ServiceError({
      ...common,
      serviceMessage: details.message ?? (body.ok ? undefined : nonJson(answer)),
      hint: crossOriginHint(ctx, elsewhere),
      fatal: true
    })
  }
  if (!body.ok && status >= 400 && status < 500) {
    // A web server's or a portal's error page, not the API's JSON: the path is not the problem.
    return new ServiceError({
      ...common,
      serviceMessage: nonJson(answer),
      hint: `Something other than the API answered: ${apiUrlHint(ctx)}; this is not a missing permission or target.`,
      fatal: status === 401,
      notTheApi: true
    })
  }
  return new ServiceError({
    ...common,
    serviceMessage: details.message,
    hint:
      permissionHint(
        method,
        displayPath,
        status,
        headers['x-accepted-github-permissions'],
        details.message,
        ctx
      ) ?? versionHint(status, details.message, ctx.apiVersion),
    fatal: status === 401 || (status === 400 && /version/i.test(details.message ?? ''))
  })
}

function crossOriginHint(ctx: FailureContext, elsewhere: Elsewhere): string {
  const apiUrl = ctx.origin + ctx.basePath
  const what = elsewhere.how === 'redirect' ? 'A redirect' : "The list's `next` link"
  return (
    `${what} led to ${elsewhere.origin}, another origin than \`api-url\` (${apiUrl}), so the ` +
    'request went there without the token (it is never sent to another origin), and this is ' +
    `that host's answer to a request without it. If ${elsewhere.origin} is where the API is, set ` +
    '`api-url` to it; otherwise whatever sends the ' +
    `${elsewhere.how} (a proxy, a load balancer, the server's own URL setting) needs fixing. Nothing more was sent.`
  )
}

/** A whole 2xx answer that is not JSON: from something else than the API. Asking again gets the same. */
export function unexpectedBody(
  method: string,
  displayPath: string,
  answer: Answer,
  ctx?: Pick<FailureContext, 'apiUrlSource'>
): ServiceError {
  return new ServiceError({
    method,
    path: displayPath,
    status: answer.status,
    serviceMessage: nonJson(answer),
    requestId: answer.headers['x-github-request-id'],
    hint: `Something other than the API answered: ${apiUrlHint(ctx)} and whether a proxy or portal on the network rewrites answers.`
  })
}

function nonJson(answer: Answer): string {
  const type = answer.headers['content-type']?.split(';')[0]?.trim() || 'no content-type'
  const text = answer.text.trim()
  const start = text.slice(0, cutBefore(text, 60)).replace(/\s+/g, ' ')
  return `unexpected response body (${type}, not JSON): ${JSON.stringify(start)}${text.length > 60 ? '…' : ''}`
}

/** No answer at all after the last try: a timeout or a network error. */
export function noAnswer(
  ctx: FailureContext,
  method: string,
  displayPath: string,
  reason: string,
  attempts: number,
  proxy: string | undefined
): ServiceError {
  return new ServiceError({
    method,
    path: displayPath,
    status: 0,
    // The reason already quotes the error ("no answer in 20000 ms"): once is enough.
    serviceMessage: reason,
    hint:
      `Check that \`api-url\` (${ctx.origin}${ctx.basePath}) is right and reachable from the runner` +
      (proxy ? ` through the proxy ${proxy} (HTTPS_PROXY, HTTP_PROXY, NO_PROXY).` : '.'),
    attempts
  })
}

/**
 * Every attempt failed before a connection was made (refused, no such host, TLS refused): the
 * service is not there for this run, so every later request would spend its retries the same
 * way. Fatal, so the run stops here and lists the rest as not attempted.
 */
export function unreachable(
  ctx: FailureContext,
  method: string,
  displayPath: string,
  url: string,
  error: Error,
  attempts: number,
  proxy: string | undefined
): ServiceError {
  const { origin } = splitUrl(url)
  return new ServiceError({
    method,
    path: displayPath,
    status: 0,
    serviceMessage:
      `the service at ${origin}${origin === ctx.origin ? ctx.basePath : ''} cannot be reached: ` +
      `${unreachableCause(error) ?? error.message}, on ${attempts === 1 ? 'the only attempt' : `all ${attempts} attempts`}`,
    hint:
      `Nothing more was sent. Check ${apiUrlOf(ctx)}, the network` +
      (proxy ? ` and the proxy ${proxy} (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)` : '') +
      ', then run the step again.',
    attempts,
    fatal: true
  })
}

/**
 * The proxy answered for itself: 407 (it wants other credentials, or any) or another 4xx (its
 * policy will not open a tunnel to the host). Every request through it would meet the same, so
 * the run stops once; the message names the proxy without credentials, never `api-url`.
 */
export function proxyRefused(
  method: string,
  displayPath: string,
  proxy: { url: string; variable: string },
  status: number,
  target: string
): ServiceError {
  const host = new URL(target).host
  return new ServiceError({
    method,
    path: displayPath,
    status,
    serviceMessage:
      status === 407
        ? `the proxy ${proxy.url} refused the request: 407 Proxy Authentication Required`
        : `the proxy ${proxy.url} refused to open a connection to ${host} (${status})`,
    hint:
      (status === 407
        ? "The proxy's credentials are what to fix: set the user and password the proxy accepts in " +
          `${proxy.variable} (http://USER:PASSWORD@host:port, special characters percent-encoded).`
        : `The proxy's rules do not let the runner reach ${host}: ask for it to be allowed, or ` +
          'add it to NO_PROXY if the runner reaches it directly.') + ' Nothing more was sent.',
    fatal: true
  })
}

/** A proxy variable that this request would use but that names no proxy the step can talk to. */
export function unusableProxy(
  method: string,
  displayPath: string,
  target: string,
  variable: string,
  problem: string
): ServiceError {
  const host = new URL(target).hostname
  return new ServiceError({
    method,
    path: displayPath,
    status: 0,
    serviceMessage: `${variable} cannot be used for ${host}: ${problem}`,
    hint:
      `Set ${variable} to an http proxy (http://host:port, or host:port), or add ${host} to ` +
      'NO_PROXY to reach it without one. This request was not sent, nor anything after it.',
    fatal: true
  })
}

/** A redirect without a usable `location`, or one too many (`problem` says which). */
export function unfollowable(
  method: string,
  displayPath: string,
  answer: Answer,
  problem?: string
): ServiceError {
  const { status, headers } = answer
  const location = headers['location']
  return new ServiceError({
    method,
    path: displayPath,
    status,
    serviceMessage:
      problem ??
      (location === undefined || location.trim() === ''
        ? `redirect ${status} without a location to follow`
        : `redirect ${status} to a location that is not an http(s) URL: ${JSON.stringify(cut200(redactQuery(location)))}`),
    requestId: headers['x-github-request-id'],
    hint:
      problem === undefined
        ? 'The service (or something between it and the runner) sent a redirect the step cannot follow; check `api-url`.'
        : undefined
  })
}

/**
 * A redirect or a `next` link to plain http from https: refused before anything goes there (the
 * body would travel in clear, and whoever is on that leg could answer in the service's name).
 * Every later request would meet the same: fatal.
 */
export function downgraded(
  method: string,
  displayPath: string,
  target: string,
  how: 'redirect' | 'next link',
  status?: number
): ServiceError {
  const what =
    how === 'redirect' ? `a redirect (${status ?? 'remembered'})` : "the list's `next` link"
  return new ServiceError({
    method,
    path: displayPath,
    status: status ?? 0,
    serviceMessage: `${what} leads to ${redactQuery(target)}, plain http where \`api-url\` is https: refused, nothing was sent there`,
    hint:
      'The step never leaves https for http: the body and the answer would travel unencrypted. ' +
      'If the service moved, set `api-url` to its https URL; otherwise whatever sends the ' +
      `${how} (a proxy, a load balancer, the server's own URL setting) needs fixing. Nothing more was sent.`,
    fatal: true
  })
}

/** At most 200 characters, cut between words (see cutBefore). */
function cut200(text: string): string {
  return text.slice(0, cutBefore(text, 200))
}
