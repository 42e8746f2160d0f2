const DEFAULT_PORTS: Record<string, string> = { 'https:': '443', 'http:': '80' }

/**
 * An origin (`scheme://host[:port]`) as one spelling: scheme and host in lower case, and no port
 * when it is the scheme's default (`:443` for https, `:80` for http; `:0443` is 443 too). So a
 * `next` link or a redirect to `https://api.github.com:443/...` is the API's own origin and keeps
 * the token, as a browser would take it. The root's dot (`api.github.com.`) is dropped too: the
 * same name, fully qualified. Pure: `splitUrl` (wire.ts) gives every origin through it.
 */
export function canonicalOrigin(origin: string): string {
  const match = /^([a-z][a-z0-9+.-]*:)\/\/(.*?)(?::(\d+))?$/i.exec(origin.trim())
  if (!match) return origin.toLowerCase()
  const scheme = (match[1] ?? '').toLowerCase()
  const host = (match[2] ?? '').toLowerCase().replace(/\.$/, '')
  const port = match[3] === undefined ? undefined : String(Number(match[3]))
  return `${scheme}//${host}${port === undefined || port === DEFAULT_PORTS[scheme] ? '' : `:${port}`}`
}
