import type { Agent as UndiciAgent, Dispatcher, EnvHttpProxyAgent } from 'undici'
// Only the dispatcher the client uses, and its `request` method: undici's package entry loads all
// of undici (fetch, WebSocket, HTTP/2, caches), about 90 ms of a cold start for code the action
// never calls. undici ships no types for its files, only for its entry.
// @ts-expect-error see above
import AgentClass from 'undici/lib/dispatcher/agent.js'
// @ts-expect-error see above
import DispatcherClass from 'undici/lib/dispatcher/dispatcher.js'
// @ts-expect-error see above
import request from 'undici/lib/api/api-request.js'
// @ts-expect-error see above
import connect from 'undici/lib/api/api-connect.js'
// Bundled like the Agent, but constructed only when a proxy variable is set.
// @ts-expect-error see above
import EnvHttpProxyAgentClass from 'undici/lib/dispatcher/env-http-proxy-agent.js'

// What undici's entry does to give every dispatcher its API, for the two methods in use:
// `request()`, which the client calls, and `connect()`, which the proxy agent opens tunnels with.
Object.assign((DispatcherClass as { prototype: object }).prototype, { request, connect })

export const Agent = AgentClass as typeof UndiciAgent

type Env = Record<string, string | undefined>

/** The proxy variables the runner's own tools honour, either case (lower case wins, as in curl). */
export function proxyFromEnv(env: Env): {
  httpsProxy?: string
  httpProxy?: string
  noProxy?: string
} {
  const pick = (name: string) => {
    const value = env[name.toLowerCase()] ?? env[name.toUpperCase()]
    return value !== undefined && value.trim() !== '' ? value.trim() : undefined
  }
  return {
    httpsProxy: pick('https_proxy'),
    httpProxy: pick('http_proxy'),
    noProxy: pick('no_proxy')
  }
}

/** `http://user:secret@proxy:3128` as `http://proxy:3128`: credentials never reach the log. */
export function describeProxy(uri: string): string {
  try {
    const url = new URL(uri)
    return `${url.protocol}//${url.host}`
  } catch {
    return '(an unparsable proxy URL)'
  }
}

export interface ServiceDispatcher {
  dispatcher: Dispatcher
  /** the proxy in use, credentials left out; undefined without one */
  proxy?: string
}

/**
 * The dispatcher for the service: a plain Agent, or, when HTTPS_PROXY / HTTP_PROXY is set, undici's
 * EnvHttpProxyAgent, which sends each request through the proxy unless NO_PROXY names its host
 * (entries, ports, leading dots, `*`), the same rules the runner's own tools follow. The proxy
 * agent is loaded only then, so a run without a proxy pays nothing for it.
 */
export function serviceDispatcher(
  options: UndiciAgent.Options,
  env: Env = process.env
): ServiceDispatcher {
  const { httpsProxy, httpProxy, noProxy } = proxyFromEnv(env)
  if (httpsProxy === undefined && httpProxy === undefined) return { dispatcher: new Agent(options) }
  const EnvProxy = EnvHttpProxyAgentClass as typeof EnvHttpProxyAgent
  // undici warns once that the class is experimental; in a step's log that reads like a fault of
  // the action. The variables are given explicitly, so both cases are read the same way.
  const emitWarning = process.emitWarning
  process.emitWarning = () => undefined
  try {
    const dispatcher = new EnvProxy({
      ...options,
      // '' is "none" to undici (it would read process.env again for undefined); HTTPS_PROXY unset
      // means https goes through HTTP_PROXY, as undici and the runner's tools do.
      httpProxy: httpProxy ?? '',
      httpsProxy: httpsProxy ?? '',
      noProxy: noProxy ?? ''
    })
    return { dispatcher, proxy: describeProxy((httpsProxy ?? httpProxy) as string) }
  } finally {
    process.emitWarning = emitWarning
  }
}
