import { createServer, request, type IncomingMessage } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'

/** What passed through the proxy, in arrival order. */
export interface ProxiedRequest {
  /** `CONNECT` for a tunnel, else the method of a plain-http absolute-URI request */
  method: string
  /** `host:port` of a tunnel, else the absolute URI */
  target: string
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
export async function startForwardProxy(): Promise<ForwardProxy> {
  const seen: ProxiedRequest[] = []
  const sockets = new Set<Socket>()
  const server = createServer((req: IncomingMessage, res) => {
    const target = req.url ?? ''
    seen.push({ method: req.method ?? 'GET', target })
    let url: URL
    try {
      url = new URL(target)
    } catch {
      res.writeHead(400).end('a proxy takes absolute URIs')
      return
    }
    const upstream = request(
      url,
      { method: req.method, headers: { ...req.headers, host: url.host } },
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
    seen.push({ method: 'CONNECT', target })
    const [host, port] = [
      target.slice(0, target.lastIndexOf(':')),
      target.slice(target.lastIndexOf(':') + 1)
    ]
    const upstream = connect(Number(port), host.replace(/^\[|\]$/g, ''), () => {
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
