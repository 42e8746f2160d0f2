import { STATUS_CODES, type ServerResponse } from 'node:http'
import type { Fault } from './faults.js'
import { DOCS, type Reply } from './http.js'
import type { Limits } from './limits.js'
import type { RecordedRequest } from './types.js'
import { isObject } from './validate.js'

const RATE_LIMIT = 5000

export function parseLoose(raw: string): unknown {
  if (raw === '') return undefined
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

/** Writes replies and faults with the service's headers, and keeps the rate-limit window. */
export class Responder {
  private responses = 0
  private rate = { used: 0, reset: 0 }
  /** Marks a response finished; called just before its last bytes are written. */
  private readonly ending = new WeakMap<ServerResponse, () => void>()

  /** With the documented limits enforced, the headers are theirs (limits.ts). */
  constructor(private readonly limits?: Limits) {}

  onEnding(res: ServerResponse, finish: () => void): void {
    this.ending.set(res, finish)
  }

  resetRate(): void {
    this.rate = { used: 0, reset: 0 }
  }

  private rateHeaders(counted: boolean): Record<string, string> {
    if (this.limits) {
      if (!counted) this.limits.uncount()
      return this.limits.rateHeaders()
    }
    const nowSeconds = Math.floor(Date.now() / 1000)
    // The emulator never enforces the primary limit (tests inject it with a status fault, or the
    // `limits` option), so it opens a new window before an answer would say none is left: the
    // client waits for the reset when told 0 remain, and a long test would wait an hour.
    if (nowSeconds >= this.rate.reset || (counted && this.rate.used + 1 >= RATE_LIMIT))
      this.rate = { used: 0, reset: nowSeconds + 3600 }
    // A 304 to an authenticated conditional request is free, as on the service.
    if (counted) this.rate.used++
    return {
      'x-ratelimit-limit': String(RATE_LIMIT),
      'x-ratelimit-remaining': String(RATE_LIMIT - this.rate.used),
      'x-ratelimit-reset': String(this.rate.reset),
      'x-ratelimit-used': String(this.rate.used),
      'x-ratelimit-resource': 'core'
    }
  }

  private baseHeaders(status: number): Record<string, string> {
    this.responses++
    return {
      'x-github-request-id': `EMU:${this.responses.toString(16).toUpperCase().padStart(6, '0')}`,
      ...this.rateHeaders(status !== 304)
    }
  }

  send(res: ServerResponse, record: RecordedRequest, reply: Reply, docs: string): void {
    const { status } = reply
    const headers: Record<string, string> = { ...this.baseHeaders(status) }
    let text = ''
    if (status !== 204 && status !== 304) {
      let body = reply.body ?? { message: STATUS_CODES[status] ?? 'Error' }
      if (docs && status >= 400 && isObject(body) && !('documentation_url' in body))
        body = { ...body, documentation_url: docs }
      text = typeof body === 'string' ? body : JSON.stringify(body)
      headers['content-type'] = 'application/json; charset=utf-8'
      headers['content-length'] = String(Buffer.byteLength(text))
    }
    Object.assign(headers, reply.headers)
    record.status = status
    record.response = text === '' ? undefined : parseLoose(text)
    res.writeHead(status, headers)
    // Stamped before the bytes leave: 'finish' can fire late on a busy event loop, after the client
    // already has the response, which would make the gap to its next write look too short.
    this.ending.get(res)?.()
    res.end(text)
  }

  answerFault(fault: Fault, record: RecordedRequest, res: ServerResponse): void {
    record.fault = fault.kind
    switch (fault.kind) {
      case 'status':
        // A body the test chose goes out verbatim; only the default one gets documentation_url.
        return this.send(res, record, fault, fault.body === undefined ? DOCS : '')
      case 'redirect':
        return this.send(
          res,
          record,
          {
            status: fault.status,
            headers: fault.location === undefined ? {} : { location: fault.location },
            body: {
              message: STATUS_CODES[fault.status],
              url: fault.location,
              documentation_url: DOCS
            }
          },
          DOCS
        )
      case 'reset':
        res.socket?.destroy()
        return
      case 'hang':
        return
      case 'lose-answer':
        // Handled by the server: the request goes through the routes first.
        return
      case 'html': {
        const page =
          '<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Sign in to continue</body></html>\n'
        record.status = 200
        record.response = page
        res.writeHead(200, {
          ...this.baseHeaders(200),
          'content-type': 'text/html; charset=utf-8',
          'content-length': String(Buffer.byteLength(page))
        })
        this.ending.get(res)?.()
        res.end(page)
        return
      }
      case 'truncate': {
        const partial = '{"total_count":1,"deployment_records":[{"id":1,"digest":"sha256:'
        res.writeHead(200, {
          ...this.baseHeaders(200),
          'content-type': 'application/json; charset=utf-8',
          'content-length': String(Buffer.byteLength(partial) + 512)
        })
        res.write(partial, () => res.destroy())
        return
      }
    }
  }

  /** `huge` and `deep`: the reply the routes gave (its write committed), then the fault's body. */
  answerHandled(fault: Fault, record: RecordedRequest, reply: Reply, res: ServerResponse): void {
    record.fault = fault.kind
    record.status = reply.status
    record.response = reply.body
    const headers: Record<string, string> = {
      ...this.baseHeaders(reply.status),
      'content-type': 'application/json; charset=utf-8'
    }
    if (fault.kind === 'deep') {
      const text = deepBody(reply.body, fault.depth, fault.into)
      res.writeHead(reply.status, { ...headers, 'content-length': String(Buffer.byteLength(text)) })
      this.ending.get(res)?.()
      res.end(text)
      return
    }
    if (fault.kind !== 'huge') return
    const total = fault.bytes ?? Infinity
    if (fault.announce && Number.isFinite(total)) headers['content-length'] = String(total)
    res.writeHead(reply.status, headers)
    this.ending.get(res)?.()
    const chunk = Buffer.alloc(64 * 1024, 'a')
    const head = Buffer.from('{"deployment_records":[{"id":1,"padding":"')
    let sent = 0
    const pump = () => {
      while (sent < total && !res.destroyed) {
        const piece = sent === 0 ? head : chunk.subarray(0, Math.min(chunk.length, total - sent))
        sent += piece.length
        if (!res.write(piece)) return void res.once('drain', pump)
      }
      if (!res.destroyed) res.end()
    }
    res.on('close', () => (sent = total))
    pump()
  }
}

/** `body` as JSON with `{"unknown_field": {"unknown_field": ... 1}}` nested `depth` deep in it. */
function deepBody(body: unknown, depth: number, into?: string): string {
  const deep = '{"unknown_field":'.repeat(depth) + '1' + '}'.repeat(depth)
  const withField = (text: string) =>
    text === '{}' ? `{"unknown_field":${deep}}` : `{"unknown_field":${deep},${text.slice(1)}`
  const list = into !== undefined && isObject(body) ? body[into] : undefined
  if (Array.isArray(list) && isObject(list[0])) {
    const marker = '"__deep_item__"'
    const text = JSON.stringify({
      ...(body as Record<string, unknown>),
      [into as string]: ['__deep_item__', ...list.slice(1)]
    })
    return text.replace(marker, withField(JSON.stringify(list[0])))
  }
  return isObject(body) ? withField(JSON.stringify(body)) : JSON.stringify(body)
}
