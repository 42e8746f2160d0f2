import { domainToUnicode } from 'node:url'
import * as z from 'zod/mini'
import { DEFAULT_API_VERSION } from '../shared/limits.js'
import { mixedScripts } from '../shared/untrusted.js'
import { isRepositoryName, readText } from './fields.js'
import type { Collector } from './problems.js'

export const DEFAULT_API_URL = 'https://api.github.com'

type Env = Record<string, string | undefined>

export interface Connection {
  token: string
  /** Without a trailing slash. */
  apiUrl: string
  apiVersion: string
  org: string
  repository: { owner: string; name: string }
  /** The repository's name when its owner is `org`: sent as `github_repository`. */
  serviceRepository?: string
  /** What the run logs as a warning before any request: an `api-url` host that mixes scripts. */
  warnings?: string[]
}

/** The problem when no token is given (the command line says it in its own words). */
export const NO_TOKEN = 'is empty: pass `token`, or run in a workflow where GITHUB_TOKEN is set'

/**
 * Where to send and as whom: `token`, `api-url`, `api-version`, `org`, `repository`, each falling
 * back on the run's variables. `repository` is undefined when neither the input nor
 * GITHUB_REPOSITORY gives one (only labels need it).
 */
export function readConnection(
  c: Collector,
  env: Env
): { connection?: Connection; repository?: { owner: string; name: string } } {
  const token = c.take('token', nonEmptyText('a token'), env['GITHUB_TOKEN'])
  if (token === undefined && !c.failed('token')) {
    c.problem('token', NO_TOKEN)
  }
  const apiUrl = c.take('api-url', serviceUrl, env['GITHUB_API_URL']) ?? DEFAULT_API_URL
  const lookalike = apiUrl === DEFAULT_API_URL ? undefined : mixedHost(apiUrl)
  const apiVersion = c.take('api-version', apiVersionSchema) ?? DEFAULT_API_VERSION
  const repository = c.take('repository', repositorySchema, env['GITHUB_REPOSITORY'])
  const org = c.take('org', orgSchema) ?? repository?.owner
  if (org === undefined && !c.failed('org') && !c.failed('repository')) {
    c.problem('org', 'is empty and no `repository` (GITHUB_REPOSITORY) to take its owner from')
  }
  if (token === undefined || org === undefined) return { repository }
  return {
    repository,
    connection: {
      token,
      apiUrl,
      apiVersion,
      org,
      repository: repository ?? { owner: org, name: '' },
      serviceRepository: serviceRepositoryOf(repository, org),
      ...(lookalike ? { warnings: [lookalike] } : {})
    }
  }
}

/**
 * The warning for an `api-url` whose host mixes look-alike scripts (`аpi.github.com` with a
 * Cyrillic `а`), as label names get (shared/untrusted.ts): the token would go to another host.
 * Read from the host the URL reaches, decoded from punycode (`xn--...`), so every spelling the
 * URL parser takes (punycode typed or pasted, `https:/host`, `https:\\host`) is seen.
 */
function mixedHost(apiUrl: string): string | undefined {
  const host = domainToUnicode(new URL(apiUrl).hostname)
  const mixed = mixedScripts(host)
  if (mixed === undefined) return undefined
  return (
    `\`api-url\`: the host \`${host}\` mixes ${mixed} letters, so it reads as another host; ` +
    `the token goes to ${new URL(apiUrl).host}. Type it in one script if that is not meant`
  )
}

export function serviceRepositoryOf(
  repository: { owner: string; name: string } | undefined,
  org: string | undefined
): string | undefined {
  if (!repository || !org || !repository.name) return undefined
  return repository.owner.toLowerCase() === org.toLowerCase() ? repository.name : undefined
}

function nonEmptyText(what: string) {
  return z.string().check(
    z.refine(value => !/[\s]/.test(value), { error: `${what} cannot contain white space` }),
    // Only visible ASCII goes in an HTTP header: an invisible character pasted with the token
    // would fail every request as a "network error".
    z.refine(value => /\s/.test(value) || /^[\x21-\x7e]*$/.test(value), {
      error: `${what} holds a character an HTTP header cannot carry (an invisible or non-ASCII one, often pasted along with it): copy it again`
    })
  )
}

const LOOPBACK_HOSTS = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i

const serviceUrl = readText((value, problem) => {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    problem(`\`${value}\` is not a URL`)
    return z.NEVER
  }
  // `api.github.com.` (the root's dot) is api.github.com: one spelling, so that the API's own
  // `next` links and the host kind (github.com, GHE.com, a server) see the same host.
  url.hostname = url.hostname.replace(/\.$/, '')
  if (url.hostname === '' || url.hostname.endsWith('.')) {
    problem(`\`${value}\` names no host`)
    return z.NEVER
  }
  const loopback = LOOPBACK_HOSTS.test(url.hostname)
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    problem('must use https (plain http only for localhost and 127.0.0.1)')
    return z.NEVER
  }
  if (url.username || url.password || url.search || url.hash) {
    problem('must not carry credentials, a query or a fragment')
    return z.NEVER
  }
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`
})

const apiVersionSchema = z.string().check(
  z.regex(/^\d{4}-\d{2}-\d{2}$/, {
    error: issue => `\`${String(issue.input)}\` is not a date version like 2026-03-10`
  })
)

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/

const orgSchema = z.string().check(
  z.regex(OWNER, {
    error: issue =>
      `\`${String(issue.input)}\` is not an organization name (letters, digits and -, at most 39)`
  })
)

const repositorySchema = readText((value, problem) => {
  const [owner, given, ...rest] = value.split('/')
  // `.git` goes first, so that the name checks see what is actually used.
  const name = given?.replace(/\.git$/, '')
  if (
    owner === undefined ||
    name === undefined ||
    rest.length > 0 ||
    !OWNER.test(owner) ||
    !isRepositoryName(name)
  ) {
    problem(`\`${value}\` is not of the form owner/name`)
    return z.NEVER
  }
  return { owner, name }
})
