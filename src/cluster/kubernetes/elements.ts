/**
 * One element of a Kubernetes list's `items`, as the splitter (read-list.ts) cuts it: parsed with
 * the checks every pass makes, or told to be a pod without parsing it, from where its top-level
 * keys are.
 */
import { isUtf8 } from 'node:buffer'
import { jsonErrorPosition } from '../../shared/text.js'
import { WRITE_JSON } from './sniff.js'

/** The file is not a Kubernetes list; the message completes "`kubernetes-file` ...". */
export class ListFormatError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ListFormatError'
  }
}

const OPEN_OBJECT = 0x7b
const BACKSLASH = 0x5c

/**
 * One element of `items`, parsed: the same checks whichever pass reads it. Text in a Windows code
 * page (PowerShell's Set-Content) would be read with its non-ASCII letters replaced without a
 * word: said instead.
 */
export function parseItem(bytes: Buffer, index: number): unknown {
  if (!isUtf8(bytes))
    throw new ListFormatError(
      `is not UTF-8: item [${index}] has bytes that are not (a file in a Windows code page, as PowerShell's \`Set-Content\` writes?); ${WRITE_JSON}`
    )
  try {
    return JSON.parse(bytes.toString('utf8'))
  } catch (error) {
    throw new ListFormatError(`is not JSON: item [${index}] does not parse (${positionIn(error)})`)
  }
}

const KIND = Buffer.from('"kind"')

/**
 * Whether the element in `bytes` is an object whose last `kind` (JSON.parse keeps the last) is
 * `Pod`, empty or absent: what slimObject reads as a pod. `keys` holds where each top-level key
 * is. Its value is read alone, between its key and the next one; anything unsure is no (the
 * element is then parsed now, and handed on if it is a pod after all).
 */
export function isPod(bytes: Buffer, keys: readonly number[]): boolean {
  if (bytes[0] !== OPEN_OBJECT) return false
  for (let k = keys.length - 2; k >= 0; k -= 2) {
    const from = keys[k] as number
    const to = keys[k + 1] as number
    const length = to - from
    const plain = length === KIND.length && bytes.compare(KIND, 0, length, from, to) === 0
    if (!plain) {
      // `"\u006bind"` is `kind` too; no longer key is.
      const escape = length <= 32 ? bytes.indexOf(BACKSLASH, from) : -1
      if (escape < 0 || escape >= to || parsed(bytes, from, to) !== 'kind') continue
    }
    // `: "Pod",` up to the next key, or `: "Pod"}` up to the element's end.
    const next = k + 2 < keys.length ? (keys[k + 2] as number) : bytes.length
    if (next - to > 64) return false
    let value = bytes.toString('latin1', to, next).trim()
    if (!value.startsWith(':')) return false
    value = value.slice(1).trim()
    if (value.endsWith(next === bytes.length ? '}' : ',')) value = value.slice(0, -1).trimEnd()
    // Without an escape the text is the value: no parse.
    if (!value.includes('\\')) return value === '"Pod"' || value === '""'
    const kind = parsed(Buffer.from(value, 'latin1'), 0, value.length)
    return kind === 'Pod' || kind === ''
  }
  return true
}

/** The JSON value in bytes [from, to), or undefined when they are not one. */
function parsed(bytes: Buffer, from: number, to: number): unknown {
  try {
    return JSON.parse(bytes.toString('utf8', from, to)) as unknown
  } catch {
    return undefined
  }
}

/** Where JSON.parse stopped, in its words without the text it quotes. */
export function positionIn(error: unknown): string {
  const at = jsonErrorPosition(error)
  return at !== undefined ? `at position ${at} of the item` : 'it is cut short or malformed'
}
