import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { handleControl } from './control.js'
import { dispatch } from './dispatch.js'
import { AFTER_HANDLING, FaultQueue, type FaultRule } from './faults.js'
import type { TokenGrant } from './http.js'
import { Limits } from './limits.js'
import { parseLoose, Responder } from './respond.js'
import { seedState, type SeedData } from './seed.js'
import { createState, type EmulatorState } from './state.js'
import type { Emulator, EmulatorOptions, RecordedRequest } from './types.js'

const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE'])

const now = () => performance.timeOrigin + performance.now()

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return headers
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = []
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer)
  } catch {
    return undefined // the client went away mid-body; nobody is left to answer
  }
  return Buffer.concat(chunks).toString('utf8')
}

class EmulatorServer implements Emulator {
  url = ''
  readonly requests: RecordedRequest[] = []
  state: EmulatorState
  private readonly faults = new FaultQueue()
  private readonly sockets = new Set<Socket>()
  readonly limits: Limits | undefined
  private readonly responder: Responder
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly server = createServer((req, res) => void this.handle(req, res))
  private readonly tokens: Record<string, TokenGrant>
  private readonly apiVersions: string[]
  private writesInFlight = 0
  private lastWriteFinishedAt = -Infinity

  constructor(private readonly options: EmulatorOptions) {
    this.tokens = options.tokens ?? { 'test-token': { permissions: 'all' } }
    this.apiVersions = options.apiVersions ?? ['2022-11-28', '2026-03-10']
    this.limits = options.limits ? new Limits(options.limits) : undefined
    this.responder = new Responder(this.limits)
    this.state = this.freshState()
    this.server.on('connection', socket => {
      this.sockets.add(socket)
      socket.on('close', () => this.sockets.delete(socket))
    })
  }

  async listen(): Promise<void> {
    const host = this.options.host ?? '127.0.0.1'
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(this.options.port ?? 0, host, () => resolve())
    })
    const { port } = this.server.address() as AddressInfo
    this.url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  }

  private freshState(): EmulatorState {
    const { orgs = ['acme'], repos = ['acme/web'], attestedDigests = 'any' } = this.options
    const state = createState(orgs, repos, attestedDigests)
    if (this.options.seed) seedState(state, this.options.seed)
    return state
  }

  addFault(rule: FaultRule): void {
    this.faults.add(rule)
  }

  clearFaults(): void {
    this.faults.clear()
  }

  seed(data: SeedData): void {
    seedState(this.state, data)
  }

  reset(): void {
    this.requests.length = 0
    this.faults.clear()
    this.cancelTimers()
    // Mutated in place so that a test holding `emulator.state` sees the reset.
    Object.assign(this.state, this.freshState())
    this.lastWriteFinishedAt = -Infinity
    this.responder.resetRate()
    this.limits?.reset()
  }

  async close(): Promise<void> {
    this.cancelTimers()
    const closed = new Promise<void>(resolve => this.server.close(() => resolve()))
    for (const socket of this.sockets) socket.destroy()
    await closed
  }

  private cancelTimers(): void {
    this.timers.forEach(timer => clearTimeout(timer))
    this.timers.clear()
  }

  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      fn()
    }, ms)
    // Jobs must never keep a test process or the CLI alive on their own.
    timer.unref()
    this.timers.add(timer)
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrivedAt = now()
    const method = (req.method ?? 'GET').toUpperCase()
    const url = req.url ?? '/'
    const path = url.split('?')[0] as string
    if (path === '/_emulator' || path.startsWith('/_emulator/')) {
      const raw = await readBody(req)
      if (raw !== undefined) handleControl(this, method, path, raw, res)
      return
    }

    const record: RecordedRequest = {
      seq: this.requests.length + 1,
      method,
      url,
      path,
      headers: flatHeaders(req),
      body: undefined,
      arrivedAt,
      finishedAt: 0,
      status: 0
    }
    this.requests.push(record)
    const isWrite = WRITES.has(method)
    if (isWrite) this.writesInFlight++
    const finish = () => {
      if (record.finishedAt !== 0) return
      record.finishedAt = now()
      if (isWrite) {
        this.writesInFlight--
        this.lastWriteFinishedAt = record.finishedAt
      }
      this.options.onRequest?.(record)
    }
    res.on('finish', finish)
    res.on('close', finish)
    this.responder.onEnding(res, finish)

    const raw = await readBody(req)
    if (raw === undefined) return
    record.body = parseLoose(raw)

    const fault = this.faults.take(method, path)
    if (fault && !AFTER_HANDLING.has(fault.kind))
      return this.responder.answerFault(fault, record, res)

    const { reply, docs } = dispatch(
      {
        url: this.url,
        state: this.state,
        tokens: this.tokens,
        apiVersions: this.apiVersions,
        options: this.options,
        writesInFlight: this.writesInFlight,
        lastWriteFinishedAt: this.lastWriteFinishedAt,
        limits: this.limits,
        later: (ms, fn) => this.later(ms, fn)
      },
      record,
      raw,
      isWrite
    )
    if (fault && fault.kind !== 'lose-answer')
      return this.responder.answerHandled(fault, record, reply, res)
    if (fault) {
      // Committed, then lost: what the handler did stays done; the answer never leaves.
      record.fault = fault.kind
      record.status = reply.status
      record.response = reply.body
      res.socket?.destroy()
      return
    }
    this.responder.send(res, record, reply, docs)
  }
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const emulator = new EmulatorServer(options)
  await emulator.listen()
  return emulator
}
