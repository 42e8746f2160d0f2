import { isLoopback } from './proxy.js'

export interface ValidationError {
  resource?: string
  field?: string
  code?: string
  message?: string
  value?: unknown
}

export interface ServiceErrorDetails {
  method: string
  path: string
  /** HTTP status; 0 when no response came (network error, timeout). */
  status: number
  serviceMessage?: string
  validationErrors?: ValidationError[]
  requestId?: string
  documentationUrl?: string
  /** What the user can change: the permission the step needs, the time a limit resets, ... */
  hint?: string
  /** Attempts made, the first included. */
  attempts?: number
  /** Rate limit that outlasts the step, bad credentials, unsupported version: later calls fail too. */
  fatal?: boolean
  /** The answer was not the API's JSON (a web server's error page): its status says nothing of the target. */
  notTheApi?: boolean
}

/** Every failure of a service call, in words a user can act on. */
export class ServiceError extends Error {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly serviceMessage?: string
  readonly validationErrors: ValidationError[]
  readonly requestId?: string
  readonly documentationUrl?: string
  readonly hint?: string
  readonly attempts: number
  readonly fatal: boolean
  readonly notTheApi: boolean
  /**
   * Attempts that were sent and got no answer (a timeout, a connection cut after sending): only
   * those may have been applied by the service. Set by the client; 0 when every attempt was answered.
   */
  unanswered = 0
  /**
   * Attempts answered with a 5xx: the service, or a gateway in front of it, may have applied
   * them before it failed. Set by the client, as `unanswered`, whatever the last answer was.
   */
  serverErrors = 0

  constructor(details: ServiceErrorDetails) {
    super(formatServiceError(details))
    this.name = 'ServiceError'
    this.method = details.method
    this.path = details.path
    this.status = details.status
    this.serviceMessage = details.serviceMessage
    this.validationErrors = details.validationErrors ?? []
    this.requestId = details.requestId
    this.documentationUrl = details.documentationUrl
    this.hint = details.hint
    this.attempts = details.attempts ?? 1
    this.fatal = details.fatal ?? false
    this.notTheApi = details.notTheApi ?? false
  }
}

/**
 * Whether the API answered one of `statuses` (a 404: no such target). An error page from
 * something else than the API (`notTheApi`) says nothing of the target: it is not one of them.
 */
export function isApiStatus(error: unknown, ...statuses: number[]): error is ServiceError {
  return error instanceof ServiceError && !error.notTheApi && statuses.includes(error.status)
}

/**
 * A write not sent again after a rate-limit wait: what it would change was already done (by
 * another job on the same target, most often another job of a matrix). Thrown by the client when
 * the request's `stillNeeded` says so.
 */
export class NoLongerNeeded extends Error {
  constructor(
    readonly method: string,
    readonly path: string
  ) {
    super(`${method} ${path}: not sent again after the rate-limit wait; no longer needed`)
    this.name = 'NoLongerNeeded'
  }
}

/**
 * The most of what the service said that a failure quotes (its message, each validation error,
 * how many of those): an answer can carry megabytes, and the failure goes whole into the log, the
 * summary and the `failed` output, where one so large would be cut out entirely.
 */
const QUOTED_CHARACTERS = 1_000
const QUOTED_VALIDATION_ERRORS = 20

/** `text` up to QUOTED_CHARACTERS, saying how much was left out. */
export function quoted(text: string): string {
  if (text.length <= QUOTED_CHARACTERS) return text
  const end = cutBefore(text, QUOTED_CHARACTERS)
  return `${text.slice(0, end)}… (${text.length - end} more characters)`
}

/**
 * Where to cut `text` to at most `max` characters: never inside a word (what lies between blanks
 * and quotes, as the redaction reads words: a token, or its escaped or encoded forms), so that no
 * part of a secret is quoted that the redaction, which looks for whole secrets, would not know;
 * never inside a surrogate pair.
 */
export function cutBefore(text: string, max: number): number {
  if (text.length <= max) return text.length
  const inWord = (char: string | undefined) => char !== undefined && !/[\s"'`<>]/.test(char)
  let end = max
  while (end > 0 && inWord(text[end - 1]) && inWord(text[end])) end--
  if (/[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end--
  return end
}

function formatServiceError(d: ServiceErrorDetails): string {
  const what = d.status === 0 ? 'failed' : `failed with ${d.status}`
  let text = `${d.method} ${d.path} ${what}`
  if (d.serviceMessage) text += `: ${quoted(d.serviceMessage)}`
  const validation = d.validationErrors ?? []
  for (const v of validation.slice(0, QUOTED_VALIDATION_ERRORS))
    text += `\n  - ${quoted(describeValidationError(v))}`
  if (validation.length > QUOTED_VALIDATION_ERRORS)
    // markdown.ts's andMore's words (the client imports nothing above it)
    text += `\n  - ... and ${validation.length - QUOTED_VALIDATION_ERRORS} more`
  if (d.requestId) text += `\n  request id: ${d.requestId}`
  if (d.hint) text += `\n  ${d.hint}`
  return text
}

export function describeValidationError(v: ValidationError): string {
  const where = [v.resource, v.field].filter(Boolean).join('.')
  const parts = [where || 'request', v.code ?? 'invalid']
  if (v.message) parts.push(v.message)
  return parts.join(': ')
}

/** A 401: the token, named where it came from (the `token` input; on the command line the variable or flag). */
function tokenRefusedHint(source = 'the `token` input'): string {
  return `The token was refused: it is missing, expired or revoked. Check ${source}.`
}

const ORG_ONLY =
  'Artifact metadata exists only for repositories owned by an organization, on github.com and ' +
  'GitHub Enterprise Cloud.'

/**
 * The hint for a 401/403/404: which permission the step needs. The service names it in
 * `x-accepted-github-permissions` when it can; otherwise it follows from the endpoint.
 */
export function permissionHint(
  method: string,
  path: string,
  status: number,
  acceptedPermissions?: string,
  serviceMessage?: string,
  /**
   * the fork (`owner/name`) a pull request run comes from (its token is read-only), where the
   * token came from (tokenRefusedHint), and the service asked (`api-url`'s origin and base path;
   * `apiUrlSource` names it on the command line)
   */
  {
    fork,
    tokenSource,
    origin,
    basePath = '',
    apiUrlSource
  }: {
    fork?: string
    tokenSource?: string
    origin?: string
    basePath?: string
    apiUrlSource?: string
  } = {}
): string | undefined {
  if (status === 401) return tokenRefusedHint(tokenSource)
  const target = targetHint(path, status, serviceMessage)
  if (target) return target
  if (status !== 403 && status !== 404) return undefined
  const write = method.toUpperCase() !== 'GET'
  if (fork !== undefined && write) return forkHint(fork)
  const artifact = /\/artifacts\//.test(path)
  // A server answers 404 for endpoints it does not have; a 403, or a 404 naming the permission,
  // comes from an endpoint that exists.
  if (artifact && status === 404 && !acceptedPermissions && origin && isEnterpriseServer(origin))
    return enterpriseServerHint(`${origin}${basePath}`, apiUrlSource ?? '`api-url`')
  const fromHeader = acceptedPermissions
    ? describeAcceptedPermissions(acceptedPermissions)
    : undefined
  const needed =
    fromHeader ??
    (artifact
      ? `artifact-metadata: ${write ? 'write' : 'read'}`
      : /\/(labels|issues)(\/|$)/.test(path)
        ? `issues: ${write ? 'write' : 'read'} or pull-requests: ${write ? 'write' : 'read'}`
        : /^\/repos\/[^/]+\/[^/]+\/deployments(\/|\?|$)/.test(path)
          ? `deployments: ${write ? 'write' : 'read'}`
          : undefined)
  const lines: string[] = []
  if (needed) {
    lines.push(
      `The step needs the permission ${needed}: add it under \`permissions:\` in the workflow ` +
        '(a token made by hand needs the same access).'
    )
  }
  if (artifact) {
    lines.push(
      ORG_ONLY + (status === 404 ? ' A 404 also means the organization or digest is unknown.' : '')
    )
  }
  return lines.length > 0 ? lines.join(' ') : undefined
}

/**
 * Whether `origin` is a GitHub Enterprise Server: neither github.com's API (`api.github.com`) nor
 * GHE.com's (`api.SUBDOMAIN.ghe.com`), and not loopback (an emulator, a local stand-in).
 */
export function isEnterpriseServer(origin: string): boolean {
  const host = /^[a-z]+:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^:/]*)/i.exec(origin)?.[1]?.toLowerCase() ?? ''
  if (host === '' || isLoopback(host)) return false
  return host !== 'api.github.com' && !/(^|\.)ghe\.com$/.test(host)
}

/**
 * A 404 of an artifact-metadata endpoint on a server: no permission can help, since
 * Enterprise Server has none of these endpoints (github.com and GHE.com only).
 */
function enterpriseServerHint(apiUrl: string, source: string): string {
  return (
    `${source} (${apiUrl}) is a GitHub Enterprise Server (its host is neither api.github.com nor ` +
    'a *.ghe.com one), which has no artifact metadata: adding `artifact-metadata: write` cannot ' +
    'help there. ' +
    ORG_ONLY +
    ' On this server leave out `environment`, `registry-url` and `deployments` (labels work ' +
    'there), or record from a workflow whose `api-url` is github.com or GHE.com. If this host is ' +
    'a proxy in front of api.github.com, the step needs the permission artifact-metadata: write ' +
    'there.'
  )
}

/** `artifact_metadata=write; issues=write,pull_requests=read` in the user's words. */
export function describeAcceptedPermissions(header: string): string | undefined {
  const sets = header
    .split(';')
    .map(set =>
      set
        .split(',')
        .map(item => item.trim())
        .filter(Boolean)
        .map(item => {
          const [name, level] = item.split('=').map(s => s.trim())
          return `${(name ?? '').replace(/_/g, '-')}: ${level ?? 'read'}`
        })
        .join(' and ')
    )
    .filter(Boolean)
  return sets.length > 0 ? sets.join(' or ') : undefined
}

/**
 * A read or label write of one issue or pull request that failed for a reason of that target, not of the
 * token: a locked conversation (403 saying so), one that does not exist (404) or was deleted (410).
 */
function targetHint(path: string, status: number, message = ''): string | undefined {
  const match = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)(\/labels(\/|$)|$)/.exec(path)
  if (!match) return undefined
  const [, owner, repo, number] = match
  const which = `#${number} of ${owner}/${repo}`
  if (status === 403 && /\blocked\b/i.test(message))
    return `The conversation of ${which} is locked, and its labels cannot change while it is: unlock it, or leave it out of \`pull-requests\`.`
  if (status === 404 && !/\/labels\/[^/]+$/.test(path))
    return `There is no issue or pull request ${which}: check the number in \`pull-requests\` (or the closing reference that named it), and \`repository\`.`
  if (status === 410) return `Issue ${which} was deleted: leave it out of \`pull-requests\`.`
  return undefined
}

/**
 * A run for a pull request from a fork gets a read-only token whatever `permissions:` says, so a
 * write fails for that reason alone. What works is a workflow that runs in the base repository.
 */
export function forkHint(fork: string): string {
  return (
    `This run is for a pull request from a fork (${fork}): GitHub gives such runs a read-only ` +
    'token, and no `permissions:` entry can change that. Record and label from a workflow that ' +
    "runs in the base repository instead: `pull_request_target` (it has the base repository's " +
    "token: never check out or run the pull request's code in it), or `workflow_run` started " +
    'when this workflow completes (pass what it needs as an artifact, and treat that as untrusted).'
  )
}
