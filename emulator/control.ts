import type { ServerResponse } from 'node:http'
import { faultRuleFromJson } from './faults.js'
import type { Emulator } from './types.js'
import type { SeedData } from './seed.js'

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text))
  })
  res.end(text)
}

/**
 * Endpoints for scripts driving a standalone emulator. They need no token, are not recorded
 * and ignore faults, so that inspecting the emulator never changes what it records.
 */
export function handleControl(
  emulator: Emulator,
  method: string,
  path: string,
  raw: string,
  res: ServerResponse
): void {
  let body: unknown
  try {
    body = raw.trim() === '' ? {} : JSON.parse(raw)
  } catch {
    return reply(res, 400, { message: 'Problems parsing JSON' })
  }
  const route = `${method} ${path}`
  try {
    switch (route) {
      case 'GET /_emulator/requests':
        return reply(res, 200, emulator.requests)
      case 'GET /_emulator/state':
        return reply(res, 200, emulator.state)
      case 'POST /_emulator/faults':
        emulator.addFault(faultRuleFromJson(body))
        return reply(res, 201, { ok: true })
      case 'DELETE /_emulator/faults':
        emulator.clearFaults()
        return reply(res, 200, { ok: true })
      case 'POST /_emulator/reset':
        emulator.reset()
        return reply(res, 200, { ok: true })
      case 'POST /_emulator/seed':
        emulator.seed(body as SeedData)
        return reply(res, 200, { ok: true })
      default:
        return reply(res, 404, { message: 'Not Found' })
    }
  } catch (error) {
    return reply(res, 400, { message: error instanceof Error ? error.message : String(error) })
  }
}
