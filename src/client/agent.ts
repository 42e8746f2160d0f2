import type { Agent as UndiciAgent, Dispatcher, ProxyAgent } from 'undici'
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
// Bundled like the Agent, but constructed only when a request goes through a proxy.
// @ts-expect-error see above
import ProxyAgentClass from 'undici/lib/dispatcher/proxy-agent.js'
import { chooseProxy, readProxySettings, type ProxySettings } from './proxy.js'

// What undici's entry does to give every dispatcher its API, for the two methods in use:
// `request()`, which the client calls, and `connect()`, which the proxy agent opens tunnels with.
Object.assign((DispatcherClass as { prototype: object }).prototype, { request, connect })

export const Agent = AgentClass as typeof UndiciAgent

type Env = Record<string, string | undefined>

/** How one request leaves: the dispatcher, and the proxy it goes through (credentials left out). */
export type Route =
  | { dispatcher: Dispatcher; proxy?: string; variable?: string }
  /** a proxy variable that would be used but cannot be: `variable` names it, `problem` says why */
  | { variable: string; problem: string }

/**
 * The dispatchers for the service: a plain Agent, and a ProxyAgent per proxy URL in use, made
 * when the first request needs it (a run without a proxy never loads one). Which one a request
 * takes is decided per request by `chooseProxy` (HTTPS_PROXY / HTTP_PROXY / NO_PROXY as the
 * runner's own tools read them), not by undici's EnvHttpProxyAgent.
 */
export class Dispatchers {
  private direct: Dispatcher | undefined
  private readonly proxies = new Map<string, Dispatcher>()
  private readonly settings: ProxySettings

  constructor(
    private readonly options: UndiciAgent.Options,
    env: Env = process.env,
    /** one dispatcher for every request, and no proxy rule (tests) */
    private readonly given?: Dispatcher
  ) {
    this.settings = readProxySettings(env)
  }

  /** `origin` is `https://host[:port]` (or http). */
  route(origin: string): Route {
    if (this.given) return { dispatcher: this.given }
    const choice = chooseProxy(origin, this.settings)
    if (choice.kind === 'invalid') return choice
    if (choice.kind === 'direct') return { dispatcher: (this.direct ??= new Agent(this.options)) }
    let dispatcher = this.proxies.get(choice.url)
    if (dispatcher === undefined) {
      const Proxy = ProxyAgentClass as typeof ProxyAgent
      try {
        // Credentials in the URL become its Proxy-Authorization, as the toolkit sends them.
        dispatcher = new Proxy({ ...this.options, uri: choice.url })
      } catch (error) {
        return { variable: choice.variable, problem: `it is not a usable proxy (${String(error)})` }
      }
      this.proxies.set(choice.url, dispatcher)
    }
    return { dispatcher, proxy: choice.shown, variable: choice.variable }
  }

  async close(): Promise<void> {
    if (this.given) return
    await Promise.all([this.direct, ...this.proxies.values()].map(d => d?.close()))
  }
}
