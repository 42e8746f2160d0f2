/**
 * A proxy that takes the connection and then closes or resets it around `CONNECT` (a blocked
 * host, a restart): each tunnel that does not open is one failed attempt, counted against
 * `max-retries` and backed off, and the step ends naming the proxy. A tiny net.Server proxy.
 */
import { createServer, type Server, type Socket } from 'node:net'
import { runAction } from '../../scripts/run-action.js'

// A proxy that closes before it reads `CONNECT` is left out: undici then, now and then, keeps the
// request queued on a socket it no longer reads, and only the attempt's deadline (20 s,
// wire.ts attemptDeadline) ends it; the step still ends, counted as one attempt.
type Behaviour = 'close-after-connect' | 'reset-after-connect' | 'ok-then-close'

interface ClosingProxy {
  url: string
  connects: number
  close: () => Promise<void>
}

async function closingProxy(behaviour: Behaviour): Promise<ClosingProxy> {
  const sockets = new Set<Socket>()
  const state = { connects: 0 }
  const server: Server = createServer(socket => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => undefined)
    let head = ''
    socket.on('data', chunk => {
      head += chunk.toString('latin1')
      if (!head.includes('\r\n\r\n')) return
      head = ''
      state.connects++
      if (behaviour === 'close-after-connect') socket.end()
      else if (behaviour === 'reset-after-connect') socket.resetAndDestroy()
      else {
        socket.write('HTTP/1.1 200 Connection established\r\n\r\n')
        socket.end()
      }
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    get connects() {
      return state.connects
    },
    close: () =>
      new Promise<void>(resolve => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      })
  }
}

/** One deployment record through `proxy`; a step that loops is killed (a safety net only). */
function record(proxy: ClosingProxy, retries: string) {
  return runAction(
    {
      token: 'test-token',
      'api-url': 'https://api.corp.test',
      digest: 'ghcr.io/acme/web@sha256:' + 'ab'.repeat(32),
      environment: 'production',
      'max-retries': retries
    },
    { HTTPS_PROXY: proxy.url },
    { signals: [{ signal: 'SIGKILL', afterMs: 15_000 }] }
  )
}

describe('a proxy that closes the tunnel', () => {
  test.each(['close-after-connect', 'reset-after-connect', 'ok-then-close'] as Behaviour[])(
    '%s: with max-retries 0, one CONNECT, and the step ends naming the proxy',
    async behaviour => {
      const proxy = await closingProxy(behaviour)
      try {
        const run = await record(proxy, '0')
        // Before the fix (close-after-connect): 75,000 CONNECTs in 15 s and no end until killed.
        expect({ connects: proxy.connects, signal: run.signal, code: run.code }).toEqual({
          connects: 1,
          signal: null,
          code: 1
        })
        expect(run.stdout).toMatch(
          /::error::.*gave up after 0 retries|::error::.*on the only attempt/
        )
        expect(run.stdout).toMatch(new RegExp(`::error::.*the proxy ${proxy.url}`))
      } finally {
        await proxy.close()
      }
    },
    30_000
  )

  test('each closed tunnel is one attempt against max-retries, backed off before the next', async () => {
    const proxy = await closingProxy('close-after-connect')
    try {
      const run = await record(proxy, '1')
      expect({ connects: proxy.connects, signal: run.signal, code: run.code }).toEqual({
        connects: 2,
        signal: null,
        code: 1
      })
      expect(run.stdout).toMatch(/; retry 1 of 1 in \d/)
      expect(run.stdout).toMatch(new RegExp(`::error::.*closed the connection.*on all 2 attempts`))
    } finally {
      await proxy.close()
    }
  }, 30_000)
})
