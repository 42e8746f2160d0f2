/**
 * Reads an answer's body with a size cap counted as the bytes come: an answer that never ends,
 * or a huge one, is cut at the cap instead of filling the memory. Every answer the step reads is
 * far smaller (the largest, a page of 100 pull requests with long descriptions, is a few MB).
 */
import { MAX_ANSWER_DEPTH } from './depth.js'
import { ServiceError } from './errors.js'
import { isWrite } from './pacer.js'
import { flattenHeaders, type Attempt } from './wire.js'

/** The most bytes of one answer the step reads. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024

interface Body extends AsyncIterable<Buffer | Uint8Array | string> {
  destroy(error?: Error): unknown
  on(event: 'error', listener: (error: Error) => void): unknown
}

/** Stops reading `body` and closes its connection; the abort error it then emits is expected. */
function discard(body: Body): void {
  body.on('error', () => {})
  body.destroy()
}

/** What `readAnswer` throws past the cap, caught by the client before anything else sees it. */
class AnswerTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes`)
    this.name = 'AnswerTooLarge'
  }
}

/** The body as text, or AnswerTooLarge (the body destroyed) once it passes `maxBytes`. */
async function readAnswer(body: Body, maxBytes: number, contentLength?: string): Promise<string> {
  // A promise past the cap is refused before any byte is read.
  if (contentLength !== undefined && Number(contentLength) > maxBytes) {
    discard(body)
    throw new AnswerTooLarge(maxBytes)
  }
  const chunks: Buffer[] = []
  let total = 0
  for await (const chunk of body) {
    const bytes = Buffer.from(chunk)
    total += bytes.length
    if (total > maxBytes) {
      discard(body)
      throw new AnswerTooLarge(maxBytes)
    }
    chunks.push(bytes)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * The failure of a call whose answer passed the cap: not retried (the same request gets the same
 * answer), and a write is never sent again (the service may have applied it: its status says).
 */
function answerTooLarge(
  method: string,
  path: string,
  status: number,
  maxBytes: number,
  write: boolean
): ServiceError {
  const applied =
    write && status >= 200 && status < 300
      ? ' The service took the write (it answered ' +
        `${status}), so it is not sent again; what it recorded is not known here.`
      : write
        ? ' The write is not sent again.'
        : ''
  return new ServiceError({
    method,
    path,
    status: 0,
    serviceMessage: `the service answered ${status} with more than ${maxBytes / (1024 * 1024)} MiB (${maxBytes} bytes), the most the step reads of one answer, so the answer was not read`,
    hint:
      `No API answer the step asks for is that large: check \`api-url\` and whether a proxy on the runner's network rewrites answers.` +
      applied
  })
}

interface Response {
  statusCode: number
  headers: Record<string, string | string[] | undefined>
  body: Body
}

/** One answer as the client reads it: the body within MAX_ANSWER_BYTES, or the failure past it. */
export async function answerOf(
  response: Response,
  method: string,
  path: string,
  maxBytes = MAX_ANSWER_BYTES
): Promise<Attempt> {
  const headers = flattenHeaders(response.headers)
  try {
    const text = await readAnswer(response.body, maxBytes, headers['content-length'])
    return { kind: 'response', status: response.statusCode, headers, text }
  } catch (error) {
    if (!(error instanceof AnswerTooLarge)) throw error
    throw answerTooLarge(method, path, response.statusCode, maxBytes, isWrite(method))
  }
}

/** The warning for an answer nested deeper than the step reads (depth.ts). */
export function deepNote(cut: number): string {
  return (
    `the answer nests deeper than ${MAX_ANSWER_DEPTH} levels; ${cut} value${cut === 1 ? ' was' : 's were'} ` +
    'left out of what the step reports (the service answered it this way; nothing was lost on its side)'
  )
}
