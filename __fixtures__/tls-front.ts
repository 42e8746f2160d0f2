import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:tls'

export interface TlsFront {
  /** `https://<hostname>:<port>`: a name only the forward proxy resolves (to loopback) */
  url: string
  hostname: string
  port: number
  /** the self-signed certificate, for NODE_EXTRA_CA_CERTS */
  caFile: string
  /** TLS connections accepted */
  connections: number
  close(): Promise<void>
}

/**
 * The emulator behind https, as the service is: a TLS server on loopback with a self-signed
 * certificate for `hostname` (made with openssl for the test run), passing each connection on to
 * `target` (the emulator's port). A name like `api.corp.test` does not resolve on the runner, so
 * the action can reach it only through a forward proxy that maps it (`hosts` of
 * startForwardProxy), the way a corporate proxy resolves names the runner cannot: a request
 * that goes around the proxy fails with "does not resolve", one through it is counted there.
 */
export async function startTlsFront(target: number, hostname = 'api.corp.test'): Promise<TlsFront> {
  const dir = mkdtempSync(join(tmpdir(), 'record-deployment-tls-'))
  const keyFile = join(dir, 'key.pem')
  const caFile = join(dir, 'cert.pem')
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      caFile,
      '-days',
      '2',
      '-subj',
      `/CN=${hostname}`,
      '-addext',
      `subjectAltName=DNS:${hostname}`
    ],
    { stdio: 'ignore' }
  )
  const sockets = new Set<Socket>()
  let connections = 0
  const server = createServer(
    { key: readFileSync(keyFile), cert: readFileSync(caFile) },
    secure => {
      connections++
      const upstream = connect(target, '127.0.0.1')
      sockets.add(secure)
      sockets.add(upstream)
      secure.pipe(upstream).pipe(secure)
      const drop = () => {
        secure.destroy()
        upstream.destroy()
        sockets.delete(secure)
        sockets.delete(upstream)
      }
      secure.on('error', drop).on('close', drop)
      upstream.on('error', drop).on('close', drop)
    }
  )
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `https://${hostname}:${port}`,
    hostname,
    port,
    caFile,
    get connections() {
      return connections
    },
    close: async () => {
      const closed = new Promise<void>(resolve => server.close(() => resolve()))
      for (const socket of sockets) socket.destroy()
      await closed
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
