// Which proxy, if any, one request goes through: the rules of the runner's own tools
// (@actions/http-client, curl), decided here per request so they are ours and tested, rather
// than undici's EnvHttpProxyAgent's, which is stricter (no suffix match, loopback proxied).

type Env = Record<string, string | undefined>

/** A proxy variable as set: its name as the environment spells it, and its value. */
export interface ProxyVariable {
  name: string
  value: string
}

export interface ProxySettings {
  /** for https requests (https_proxy, else HTTPS_PROXY); http requests never fall back to it */
  https?: ProxyVariable
  /** for plain-http requests (http_proxy, else HTTP_PROXY); https requests never fall back to it */
  http?: ProxyVariable
  /** no_proxy, else NO_PROXY, split into entries */
  noProxy: NoProxyEntry[]
}

export interface NoProxyEntry {
  /** lower case, without brackets or a leading `.` / `*.`; `*` for every host */
  host: string
  port?: string
}

export type ProxyChoice =
  | { kind: 'direct' }
  /** `url` may hold credentials: only for the agent; `shown` is what the log may say */
  | { kind: 'proxy'; url: string; shown: string; variable: string }
  | { kind: 'invalid'; variable: string; problem: string }

/** The first of the lower- and upper-case variable that is set and not blank, as the toolkit reads them. */
function pick(env: Env, name: string): ProxyVariable | undefined {
  for (const variable of [name.toLowerCase(), name.toUpperCase()]) {
    const value = env[variable]?.trim()
    if (value) return { name: variable, value }
  }
  return undefined
}

export function readProxySettings(env: Env): ProxySettings {
  const noProxy = pick(env, 'no_proxy')
  return {
    https: pick(env, 'https_proxy'),
    http: pick(env, 'http_proxy'),
    noProxy: noProxy ? parseNoProxy(noProxy.value) : []
  }
}

/** `corp.example, .corp.example ,*.x, host:8080,[::1]:80, fd00::1,*` as entries. */
export function parseNoProxy(value: string): NoProxyEntry[] {
  const entries: NoProxyEntry[] = []
  for (const raw of value.split(/[,\s]+/)) {
    let item = raw.trim().toLowerCase()
    if (item === '') continue
    if (item === '*') {
      entries.push({ host: '*' })
      continue
    }
    let port: string | undefined
    const bracketed = /^\[([^\]]*)\](?::(\d+))?$/.exec(item)
    if (bracketed) {
      item = bracketed[1] ?? ''
      port = bracketed[2]
    } else if ((item.match(/:/g) ?? []).length === 1) {
      const at = item.lastIndexOf(':')
      if (/^\d+$/.test(item.slice(at + 1))) port = item.slice(at + 1)
      item = item.slice(0, at)
    }
    item = item.replace(/^\*?\.+/, '').replace(/\.$/, '')
    if (item !== '') entries.push(port === undefined ? { host: item } : { host: item, port })
  }
  return entries
}

/** localhost (and `*.localhost`), 127.0.0.0/8, ::1 and ::ffff:127.x: never sent through a proxy. */
export function isLoopback(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  if (/^127(\.\d{1,3}){3}$/.test(host)) return true
  if (host.includes(':')) {
    // The URL parser has made it canonical: `[0:0::1]` arrives as `[::1]`, `::ffff:127.0.0.1` as
    // `::ffff:7f00:1`.
    if (host === '::1') return true
    if (/^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host)) return true
  }
  return false
}

/** Whether NO_PROXY (or loopback) sends a request to this host and port around the proxy. */
export function bypassesProxy(hostname: string, port: string, entries: NoProxyEntry[]): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
  if (isLoopback(host)) return true
  return entries.some(
    entry =>
      (entry.port === undefined || entry.port === port) &&
      (entry.host === '*' || host === entry.host || host.endsWith(`.${entry.host}`))
  )
}

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i

/**
 * A proxy variable's value as a URL: without a scheme it is `http://` (`10.0.0.5:3128`,
 * `proxy.corp:3128`, `user:pass@proxy:3128`), as the toolkit and curl read it. Only http and
 * https proxies are spoken to.
 */
export function proxyUrl(value: string): { url: URL } | { problem: string } {
  const scheme = SCHEME.exec(value)?.[1]?.toLowerCase()
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https') {
    return {
      problem: `its scheme ${scheme}:// is not one the step can use: only http:// and https:// proxies are supported`
    }
  }
  try {
    const url = new URL(scheme === undefined ? `http://${value}` : value)
    if (url.hostname === '') throw new Error('no host')
    return { url }
  } catch {
    return { problem: 'it is not a proxy URL (expected http://host:port)' }
  }
}

/** `http://user:secret@proxy:3128/` as `http://proxy:3128`: credentials never reach the log. */
export function describeProxy(url: URL): string {
  return `${url.protocol}//${url.host}`
}

/** The proxy for a request to `target` (an absolute http(s) URL), or direct, or why neither. */
export function chooseProxy(target: string, settings: ProxySettings): ProxyChoice {
  const url = new URL(target)
  const https = url.protocol === 'https:'
  const variable = https ? settings.https : settings.http
  if (variable === undefined) return { kind: 'direct' }
  const port = url.port || (https ? '443' : '80')
  if (bypassesProxy(url.hostname, port, settings.noProxy)) return { kind: 'direct' }
  const parsed = proxyUrl(variable.value)
  if ('problem' in parsed) {
    return { kind: 'invalid', variable: variable.name, problem: parsed.problem }
  }
  return {
    kind: 'proxy',
    url: parsed.url.href,
    shown: describeProxy(parsed.url),
    variable: variable.name
  }
}
