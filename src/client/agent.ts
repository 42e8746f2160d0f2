import type { Agent as UndiciAgent, buildConnector, Dispatcher } from 'undici'
import { TUNNEL_CLOSED } from './wire.js'
import { chooseProxy, readProxySettings, type ProxySettings } from './proxy.js'

// undici's parts, a file of their own in the bundle: loaded with this module, once a run's inputs
// are sound (see ./undici.ts).
const { Agent, Pool, ProxyAgent } = await import('./undici.js')

type Env = Record<string, string | undefined>

/** The longest close() waits for the dispatchers to let go of their sockets. */
const CLOSE_GRACE_MS = 1000

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
      try {
        // Credentials in the URL become its Proxy-Authorization, as the toolkit sends them.
        const shown = choice.shown
        dispatcher = new ProxyAgent({
          ...this.options,
          uri: choice.url,
          factory: (origin: string, options: object) => {
            const { connect } = options as { connect: buildConnector.connector }
            return new Pool(origin, { ...options, connect: tunnelOnce(connect, shown) })
          }
        })
      } catch (error) {
        return { variable: choice.variable, problem: `it is not a usable proxy (${String(error)})` }
      }
      this.proxies.set(choice.url, dispatcher)
    }
    return { dispatcher, proxy: choice.shown, variable: choice.variable }
  }

  /**
   * Destroyed, not closed: every request of the run has ended for the client by now, and one it
   * gave up on (a request undici lost, ended by the attempt's deadline) would hold close() forever.
   * A dispatcher left holding a socket that closed unseen never finishes destroying either: it is
   * waited for a moment, not for ever.
   */
  async close(): Promise<void> {
    if (this.given) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.all([this.direct, ...this.proxies.values()].map(d => d?.destroy())),
      new Promise(resolve => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))
    ])
    clearTimeout(timer)
  }
}

/**
 * The proxy agent's connect, with a tunnel the proxy closes before it opens (it takes the
 * connection, then closes it before or after reading `CONNECT`: a blocked host, a restart) made
 * an error undici does not retry. undici reads "other side closed" (UND_ERR_SOCKET) as a socket
 * error it may recover from, keeps the request queued and connects again at once, without end:
 * tens of thousands of CONNECTs a second, past every deadline. As an error of its own the request
 * fails, and the client counts it as one attempt against `max-retries`, backed off.
 */
function tunnelOnce(connect: buildConnector.connector, proxy: string): buildConnector.connector {
  return (options, callback) =>
    connect(options, (error, socket) => {
      if (error === null) return callback(null, socket as never)
      const code = (error as { code?: unknown }).code
      if (code !== 'UND_ERR_SOCKET' && code !== 'UND_ERR_CLOSED') return callback(error, null)
      const target = `${options.hostname}${options.port ? `:${options.port}` : ''}`
      const closed = new Error(
        `the proxy ${proxy} closed the connection before the tunnel to ${target} opened (${error.message})`,
        { cause: error }
      )
      Object.assign(closed, { code: TUNNEL_CLOSED })
      return callback(closed, null)
    })
}
