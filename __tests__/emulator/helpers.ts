import { request } from 'node:http'
import type { Emulator } from '../../emulator/index.js'

export const TOKEN = 'test-token'
export const DIGEST = 'sha256:' + 'a'.repeat(64)
export const DIGEST_B = 'sha256:' + 'b'.repeat(64)

export interface Answer {
  status: number
  headers: Headers
  // Loosely typed on purpose: tests read into JSON bodies freely.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any
}

export interface CallOptions {
  headers?: Record<string, string>
  redirect?: 'follow' | 'manual' | 'error'
  signal?: AbortSignal
}

/** A well-formed API call, the way the action makes them; `headers` override the defaults. */
export async function call(
  emulator: Emulator,
  method: string,
  path: string,
  body?: unknown,
  options: CallOptions = {}
): Promise<Answer> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${TOKEN}`,
    'user-agent': 'emulator-tests',
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2026-03-10',
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    ...options.headers
  }
  const response = await fetch(path.startsWith('http') ? path : emulator.url + path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    redirect: options.redirect ?? 'follow',
    signal: options.signal
  })
  const text = await response.text()
  let parsed: unknown = undefined
  if (text !== '') parsed = JSON.parse(text)
  return { status: response.status, headers: response.headers, json: parsed }
}

/** A request with exactly these headers and this raw target, bypassing fetch's defaults. */
export function rawRequest(
  emulator: Emulator,
  method: string,
  target: string,
  headers: Record<string, string>
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(emulator.url + target, { method, headers }, res => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', chunk => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

export const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

/** Polls `check` every few ms until it returns true or `limitMs` passes. */
export async function waitFor(check: () => boolean | Promise<boolean>, limitMs = 1000) {
  const end = Date.now() + limitMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await sleep(10)
  }
}
