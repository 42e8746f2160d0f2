import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface FrontOptions {
  /** writes (POST, PATCH, PUT, DELETE) let through per window, every client's together */
  writesPerWindow: number
  windowMs: number
  /** requests of any kind in flight at once; one more is refused */
  maxInFlight: number
  /** seconds a refusal with `retry-after` asks for */
  retryAfterSeconds?: number
  /**
   * writes refused first whatever the time, as if earlier jobs on the token had spent the limit:
   * both kinds of refusal are met however slowly the runs start (a loaded machine spreads them)
   */
  spentAtStart?: number
}

export interface FrontCounts {
  /** writes that arrived at the front, refused ones included */
  writesArrived: number
  /** writes passed on to the service */
  writesPassed: number
  /** 403s for too many writes in the window, with `retry-after` / with `x-ratelimit-reset` instead */
  refusedWithRetryAfter: number
  refusedWithReset: number
  /** 403s for too many requests in flight */
  refusedInFlight: number
  /** the most requests in flight at once that were passed on */
  mostInFlight: number
}

export interface RateLimitFront {
  url: string
  counts: FrontCounts
  /** every write that arrived: method, path, and whether it was passed on */
  writes: Array<{ method: string; path: string; passed: boolean }>
  close(): Promise<void>
}

const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE'])
const SECONDARY = {
  message:
    'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
  documentation_url:
    'https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits'
}

/**
 * The service's shared secondary limit in front of the emulator, as a matrix of jobs on one token
 * meets it: at most `writesPerWindow` writes per fixed window and `maxInFlight` requests at once,
 * counted over every client together. A write over the window's count is refused with 403,
 * alternately with `retry-after` and with `x-ratelimit-remaining: 0` and `x-ratelimit-reset` (the
 * window's end) instead; a request over the in-flight count with 403 and `retry-after`. Everything
 * else is passed on to `target` unchanged, and the answer back.
 */
export async function startRateLimitFront(
  target: string,
  options: FrontOptions
): Promise<RateLimitFront> {
  const upstream = new URL(target)
  const counts: FrontCounts = {
    writesArrived: 0,
    writesPassed: 0,
    refusedWithRetryAfter: 0,
    refusedWithReset: 0,
    refusedInFlight: 0,
    mostInFlight: 0
  }
  const writes: RateLimitFront['writes'] = []
  let windowStart = Date.now()
  let inWindow = 0
  let inFlight = 0
  let refusals = 0
  let spent = options.spentAtStart ?? 0
  const retryAfter = String(options.retryAfterSeconds ?? 1)

  const refuse = (res: ServerResponse, headers: Record<string, string>) => {
    res.writeHead(403, { 'content-type': 'application/json; charset=utf-8', ...headers })
    res.end(JSON.stringify(SECONDARY))
  }

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET'
    const write = WRITES.has(method)
    const now = Date.now()
    if (now - windowStart >= options.windowMs) {
      windowStart = now - ((now - windowStart) % options.windowMs)
      inWindow = 0
    }
    const record = (passed: boolean) => {
      if (!write) return
      counts.writesArrived++
      writes.push({ method, path: req.url ?? '', passed })
      if (passed) counts.writesPassed++
    }
    if (inFlight >= options.maxInFlight) {
      record(false)
      counts.refusedInFlight++
      req.resume()
      return refuse(res, { 'retry-after': retryAfter })
    }
    if (write && (spent > 0 || inWindow >= options.writesPerWindow)) {
      spent = Math.max(0, spent - 1)
      record(false)
      req.resume()
      if (refusals++ % 2 === 0) {
        counts.refusedWithRetryAfter++
        return refuse(res, { 'retry-after': retryAfter })
      }
      counts.refusedWithReset++
      const reset = Math.ceil((windowStart + options.windowMs) / 1000)
      return refuse(res, {
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(reset)
      })
    }
    if (write) inWindow++
    record(true)
    inFlight++
    counts.mostInFlight = Math.max(counts.mostInFlight, inFlight)
    const done = () => {
      inFlight--
    }
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host }
      },
      answer => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
        answer.on('end', done)
      }
    )
    forward.on('error', () => {
      done()
      res.destroy()
    })
    req.pipe(forward)
  }

  const sockets = new Set<Socket>()
  const server = createServer(handle)
  server.on('connection', socket => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    writes,
    close: async () => {
      const closed = new Promise<void>(resolve => server.close(() => resolve()))
      for (const socket of sockets) socket.destroy()
      await closed
    }
  }
}
