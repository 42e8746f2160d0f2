import { createServer, request, type IncomingMessage } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'

/** What passed through the proxy, in arrival order. */
export interface ProxiedRequest {
  /** `CONNECT` for a tunnel, else the method of a plain-http absolute-URI request */
  method: string
  /** `host:port` of a tunnel, else the absolute URI */
  target: string
  /** the status the proxy answered itself: 407 when credentials were wanted; absent when passed on */
  refused?: number
  /** the `user:password` the request's Proxy-Authorization carried, when it carried Basic ones */
  credentials?: string
}

export interface ForwardProxyOptions {
  /** names only the proxy resolves, as a corporate proxy does: `{ 'api.corp.test': '127.0.0.1' }` */
  hosts?: Record<string, string>
  /** `user:password`: anything else (or none) is answered 407 Proxy Authentication Required */
  credentials?: string
  /** host names the proxy's policy blocks: a CONNECT to them is answered 403 Forbidden */
  deny?: string[]
}

export interface ForwardProxy {
  url: string
  seen: ProxiedRequest[]
  close(): Promise<void>
}

/**
 * A small forward proxy, as a corporate network has one: plain-http requests arrive with an
 * absolute URI (`GET http://host/path`) and are forwarded; `CONNECT host:port` opens a tunnel
 * (what clients do for https, and what undici's ProxyAgent does for every origin). It counts
 * what passed through, so a test can tell that the action used it.
 */
export async function startForwardProxy(options: ForwardProxyOptions = {}): Promise<ForwardProxy> {
  const seen: ProxiedRequest[] = []
  const sockets = new Set<Socket>()
  const resolve = (host: string) => options.hosts?.[host.toLowerCase()] ?? host
  /** What the request passed on, recorded; false when it was answered 407 instead. */
  const admit = (req: IncomingMessage, method: string, target: string): boolean => {
    const auth = /^basic\s+(\S+)$/i.exec(req.headers['proxy-authorization'] ?? '')?.[1]
    const credentials = auth ? Buffer.from(auth, 'base64').toString('utf8') : undefined
    const host = /^\[?([^\]]*?)\]?(:\d+)?$/.exec(method === 'CONNECT' ? target : '')?.[1] ?? ''
    const refused =
      options.credentials !== undefined && credentials !== options.credentials
        ? 407
        : options.deny?.includes(host.toLowerCase())
          ? 403
          : undefined
    seen.push({
      method,
      target,
      ...(refused ? { refused } : {}),
      ...(credentials !== undefined ? { credentials } : {})
    })
    return refused === undefined
  }
  const PROXY_407 =
    'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\n' +
    'Content-Length: 0\r\nConnection: close\r\n\r\n'
  const PROXY_403 = 'HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'
  const server = createServer((req: IncomingMessage, res) => {
    const target = req.url ?? ''
    if (!admit(req, req.method ?? 'GET', target)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="corp"' }).end()
      return
    }
    let url: URL
    try {
      url = new URL(target)
    } catch {
      res.writeHead(400).end('a proxy takes absolute URIs')
      return
    }
    const upstream = request(
      {
        ...urlParts(url),
        hostname: resolve(url.hostname.replace(/^\[|\]$/g, '')),
        method: req.method,
        headers: { ...req.headers, host: url.host }
      },
      answer => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  server.on('connection', socket => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? ''
    if (!admit(req, 'CONNECT', target)) {
      client.end(seen[seen.length - 1]?.refused === 407 ? PROXY_407 : PROXY_403)
      return
    }
    const [host, port] = [
      target.slice(0, target.lastIndexOf(':')),
      target.slice(target.lastIndexOf(':') + 1)
    ]
    const upstream = connect(Number(port), resolve(host.replace(/^\[|\]$/g, '')), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    sockets.add(upstream)
    upstream.on('close', () => sockets.delete(upstream))
    upstream.on('error', () => client.destroy())
    client.on('error', () => upstream.destroy())
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: async () => {
      const closed = new Promise<void>(resolve => server.close(() => resolve()))
      for (const socket of sockets) socket.destroy()
      await closed
    }
  }
}

function urlParts(url: URL) {
  return { protocol: url.protocol, port: url.port, path: url.pathname + url.search }
}
