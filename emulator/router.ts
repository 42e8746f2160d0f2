import type { Permission, Reply, RouteContext } from './http.js'

export interface Route {
  method: string
  /** '/segment/:param/...'; each parameter takes exactly one path segment */
  pattern: string
  /** which path parameters name the organization or repository that must exist */
  scope?: 'org' | 'repo'
  permission: Permission
  docs?: string
  handler: (ctx: RouteContext) => Reply
}

export interface Match {
  route: Route
  params: Record<string, string>
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

function matchPattern(pattern: string, segments: string[]): Record<string, string> | undefined {
  const parts = pattern.split('/')
  if (parts.length !== segments.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string
    const decoded = decode(segments[i] as string)
    if (decoded === undefined) return undefined
    if (part.startsWith(':')) {
      // An empty segment comes from '//' or a trailing slash, which the service answers with 404.
      if (decoded === '') return undefined
      params[part.slice(1)] = decoded
    } else if (part !== decoded) return undefined
  }
  return params
}

/**
 * Finds the route for a raw (still percent-encoded) path. Splitting before decoding is what
 * makes `%2F` part of a parameter while a bare `/` starts a new segment.
 */
export function matchRoute(routes: Route[], method: string, rawPath: string): Match | undefined {
  const segments = rawPath.split('/')
  for (const route of routes) {
    if (route.method !== method) continue
    const params = matchPattern(route.pattern, segments)
    if (params) return { route, params }
  }
  return undefined
}
