import type { Agent as UndiciAgent } from 'undici'
// Only the dispatcher the client uses, and its `request` method: undici's package entry loads all
// of undici (fetch, WebSocket, HTTP/2, caches), about 90 ms of a cold start for code the action
// never calls. undici ships no types for its files, only for its entry.
// @ts-expect-error see above
import AgentClass from 'undici/lib/dispatcher/agent.js'
// @ts-expect-error see above
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js'
// @ts-expect-error see above
import request from 'undici/lib/api/api-request.js'

// What undici's entry does to give every dispatcher `request()` (the only API the client calls).
Object.assign((Dispatcher as { prototype: object }).prototype, { request })

export const Agent = AgentClass as typeof UndiciAgent
