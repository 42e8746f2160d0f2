/**
 * The parts of undici the client uses, and only those: the Agent with `request()`, and the proxy
 * agent with the `connect()` it opens tunnels with. undici's package entry loads all of undici
 * (fetch, WebSocket, HTTP/2, caches), about 90 ms of a cold start for code the action never calls.
 * In the bundle this is a file of its own, dist/undici.js (scripts/bundle.mjs), imported once the
 * inputs are sound (client/agent.ts): bad input never compiles it.
 */
import type {
  Agent as UndiciAgent,
  Pool as UndiciPool,
  ProxyAgent as UndiciProxyAgent
} from 'undici'
// undici ships no types for its files, only for its entry.
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
// The pool the proxy agent makes per origin (bundled with it already); agent.ts makes it itself.
// @ts-expect-error see above
import PoolClass from 'undici/lib/dispatcher/pool.js'

// What undici's entry does to give every dispatcher its API, for the two methods in use:
// `request()`, which the client calls, and `connect()`, which the proxy agent opens tunnels with.
Object.assign((DispatcherClass as { prototype: object }).prototype, { request, connect })

export const Agent = AgentClass as typeof UndiciAgent
export const ProxyAgent = ProxyAgentClass as typeof UndiciProxyAgent
export const Pool = PoolClass as typeof UndiciPool
