// Over 300 lines on purpose: the byte-level splitter and the checks of what it cuts share one
// state machine (depth, strings, escapes, where the top-level keys are, and those of each
// element); split, each half would need the other's state.
import { readChunks } from '../../shared/files.js'
import { fieldName } from '../../shared/text.js'
import { isPod, ListFormatError, parseItem, positionIn } from './elements.js'
import { messageAfterHint, notJsonHint } from './sniff.js'

export { ListFormatError, parseItem } from './elements.js'

/**
 * Reads what `kubectl get ... -o json` prints (`{"apiVersion", "items": [...], "kind": "List",
 * "metadata"}`) without holding the file: the bytes go through a small splitter that tracks
 * strings, escapes and depth, cuts each element of the top-level `items` array and parses it
 * alone. A 20k-pod list is about 200 MB of JSON; only one element and what the caller keeps of
 * the others are in memory at a time. kubectl prints the top-level `kind` after the items, so
 * the list's kind is known only at the end. Given `later`, an element whose own `kind` is `Pod`
 * (or empty, or absent: a PodList's) is not parsed but handed on by where it is in the file, to
 * be read again once the owners are known (read-pods.ts): the splitter notes where each element's
 * top-level keys are, and reads the last `kind`'s value alone.
 */

export interface ListHeader {
  kind?: unknown
  apiVersion?: unknown
  /** How many elements `items` had. */
  count: number
}

/** One pod with all its status is a few KB; an element this big is not a Kubernetes object. */
export const MAX_ITEM_BYTES = 16 * 1024 * 1024
/** The top-level fields besides `items` (kind, apiVersion, metadata) are small. */
const MAX_HEADER_VALUE_BYTES = 64 * 1024
const CHUNK_BYTES = 1024 * 1024
/** Of the text after the list, what is read to tell what it is. */
const TRAILING_BYTES = 256

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const UTF8_BOM = [0xef, 0xbb, 0xbf]
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09

type Phase =
  | 'start' // before the top-level `{`
  | 'key' // in the top object, before a key (or its `}`)
  | 'colon'
  | 'value' // before a top-level value
  | 'header-value' // inside a top-level value other than `items`
  | 'after-value' // after a top-level value: `,` or `}`
  | 'items' // inside `items`, between elements
  | 'element' // inside one element of `items`
  | 'done'
  | 'trailing' // text after the list's end

/** Bytes kept across chunks: a key, a header value or one element. */
class Capture {
  private pieces: Buffer[] = []
  bytes = 0
  overflow = false
  constructor(private readonly limit: number) {}
  /** `kept`: the piece outlives the chunk it is in, which the next read reuses: copied. */
  add(piece: Buffer, kept: boolean): void {
    if (this.overflow) return
    this.bytes += piece.length
    if (this.bytes > this.limit) {
      this.overflow = true
      this.pieces = []
      return
    }
    this.pieces.push(kept ? Buffer.from(piece) : piece)
  }
  /** The bytes; valid until the next chunk is read when all were in this one (not copied). */
  buffer(): Buffer {
    return this.pieces.length === 1 ? (this.pieces[0] as Buffer) : Buffer.concat(this.pieces)
  }
  text(): string {
    return this.buffer().toString('utf8')
  }
}

/** Where a pod element is in the file: its bytes are [start, end), its place in `items`. */
export type Later = (start: number, end: number, index: number) => void

/**
 * What the splitter does with a parsed element: it returns 'later' when it is a pod after all
 * (its kind is not a string), to be read with the others; anything else, and it is taken.
 */
export type OnItem = (item: unknown, index: number) => unknown

/**
 * The splitter: push chunks, then `end()`; `onItem` gets each parsed element in order, but the
 * pods when `later` is given: those go to `later`, unparsed.
 */
export class ListSplitter {
  private phase: Phase = 'start'
  private depth = 0
  private inString = false
  private escaped = false
  private offset = 0
  private key = ''
  private capture?: Capture
  private captureStart = 0
  private headerKey = ''
  private readonly header: ListHeader = { count: 0 }
  private readonly seen = new Set<string>()
  private sawItems = false
  /** Where the element being cut starts in the file, and its top-level keys (from, to; in it). */
  private elementStart = 0
  private readonly elementKeys: number[] = []
  private expectKey = false
  private keyAt = -1
  private trailing = Buffer.alloc(0)
  private trailingAt = 0
  /** In `items`, what came last: its `[`, an element or a comma. */
  private between: 'open' | 'element' | 'comma' = 'open'

  constructor(
    private readonly onItem: OnItem,
    private readonly later?: Later
  ) {}

  push(chunk: Buffer): void {
    let i = 0
    const n = chunk.length
    let nextBackslash = -2
    while (i < n) {
      if (this.inString) {
        // Strings are most of the bytes: jump to the next quote, minding escapes.
        if (this.escaped) {
          this.escaped = false
          i++
          continue
        }
        const quote = chunk.indexOf(QUOTE, i)
        if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = chunk.indexOf(BACKSLASH, i)
        if (nextBackslash !== -1 && (quote === -1 || nextBackslash < quote)) {
          i = nextBackslash + 1
          this.escaped = true
          continue
        }
        if (quote === -1) {
          i = n
          break
        }
        i = quote + 1
        this.inString = false
        if (this.phase === 'key') this.endKey(chunk, i)
        else if (this.keyAt >= 0) {
          this.elementKeys.push(this.keyAt, this.offset + i - this.elementStart)
          this.keyAt = -1
        }
        continue
      }
      const b = chunk[i] as number
      switch (this.phase) {
        case 'start':
          // A UTF-8 byte order mark, as editors on Windows write (in any chunking).
          if (this.offset + i < 3 && b === UTF8_BOM[this.offset + i]) break
          if (isSpace(b)) break
          if (b === OPEN_OBJECT) {
            this.depth = 1
            this.phase = 'key'
            break
          }
          if (b === OPEN_ARRAY)
            this.fail(
              'is a JSON array, not a Kubernetes list: give it as `deployments-file` if it holds deployment items, or print the list with `kubectl get ... -o json`'
            )
          this.unexpected(i)
          break
        case 'key':
          if (isSpace(b)) break
          if (b === QUOTE) {
            this.startCapture(i, 1024)
            this.inString = true
            break
          }
          if (b === CLOSE_OBJECT && this.seen.size === 0) {
            this.depth = 0
            this.phase = 'done'
            break
          }
          this.unexpected(i)
          break
        case 'colon':
          if (isSpace(b)) break
          if (b !== COLON) this.unexpected(i)
          this.phase = 'value'
          break
        case 'value':
          if (isSpace(b)) break
          if (this.key === 'items' && b === OPEN_ARRAY) {
            this.sawItems = true
            this.depth = 2
            this.phase = 'items'
            this.between = 'open'
            break
          }
          if (this.key === 'items')
            this.fail('has `items` that is not an array: it is not a Kubernetes list')
          this.headerKey = this.key
          this.startCapture(i, MAX_HEADER_VALUE_BYTES)
          this.phase = 'header-value'
          i = this.scanValue(chunk, i, 1)
          continue
        case 'header-value':
          i = this.scanValue(chunk, i, 1)
          continue
        case 'after-value':
          if (isSpace(b)) break
          if (b === COMMA) this.phase = 'key'
          else if (b === CLOSE_OBJECT) {
            this.depth = 0
            this.phase = 'done'
          } else this.unexpected(i)
          break
        case 'items':
          if (isSpace(b)) break
          // As JSON.parse: a comma only between two elements.
          if (b === COMMA) {
            if (this.between !== 'element') this.unexpected(i)
            this.between = 'comma'
            break
          }
          if (b === CLOSE_ARRAY) {
            if (this.between === 'comma') this.unexpected(i)
            this.depth = 1
            this.phase = 'after-value'
            break
          }
          if (this.between === 'element') this.unexpected(i)
          this.startCapture(i, MAX_ITEM_BYTES)
          this.phase = 'element'
          this.elementStart = this.offset + i
          this.elementKeys.length = 0
          i = this.scanValue(chunk, i, 2)
          continue
        case 'element':
          i = this.scanValue(chunk, i, 2)
          continue
        case 'done':
          if (b === OPEN_OBJECT)
            this.fail(
              `holds a second JSON document at byte ${this.offset + i} (two kubectl outputs appended with \`>>\`?): print the whole cluster with one \`kubectl get pods,replicasets,deployments,daemonsets,statefulsets,jobs,cronjobs -A -o json\``
            )
          if (isSpace(b)) break
          // Told when its first line is read (or the file ends): a message of kubectl's too?
          this.trailingAt = this.offset + i
          this.trailing = Buffer.alloc(0)
          this.phase = 'trailing'
          continue
        case 'trailing':
          {
            const want = TRAILING_BYTES - this.trailing.length
            this.trailing = Buffer.concat([this.trailing, chunk.subarray(i, i + want)])
            if (this.trailing.length >= TRAILING_BYTES || this.trailing.includes(0x0a))
              this.failTrailing()
            i = n
            continue
          }
          break
      }
      i++
    }
    if (this.capture) {
      this.capture.add(chunk.subarray(this.captureStart, n), true)
      this.captureStart = 0
    }
    this.offset += n
  }

  /** The text after the list: kubectl's messages (`2>&1`) are named as such (sniff.ts). */
  private failTrailing(): never {
    const at = this.trailingAt
    this.fail(
      messageAfterHint(this.trailing.toString('utf8'), at) ??
        `is not JSON: more text after the end, at byte ${at}`
    )
  }

  /** The list's own fields once every element went to `onItem`. */
  end(): ListHeader {
    if (this.phase === 'trailing') this.failTrailing()
    if (this.phase === 'start') this.fail('is empty: there is no JSON in it')
    if (this.phase !== 'done')
      this.fail(
        `is not JSON: it ends at byte ${this.offset} before the list is closed (cut short?)`
      )
    if (!this.sawItems) {
      const kind = this.header.kind
      this.fail(
        typeof kind === 'string' && kind !== '' && !kind.endsWith('List')
          ? `is one \`${kind}\` object, not a list (\`kubectl get <kind> <name> -o json\` prints one): print the whole cluster with \`kubectl get pods,replicasets,deployments,daemonsets,statefulsets,jobs,cronjobs -A -o json\``
          : 'has no `items`: it is not a Kubernetes list'
      )
    }
    return this.header
  }

  /**
   * Scans a value that starts at or continues from `i` at container depth `base`; returns the
   * index to go on from. A value ends when its container closes back to `base`, or a scalar
   * meets `,` or the closing bracket of its parent.
   */
  private scanValue(chunk: Buffer, i: number, base: number): number {
    const n = chunk.length
    while (i < n) {
      const b = chunk[i] as number
      if (b === QUOTE) {
        this.inString = true
        // A key of the element's own object: where it is, for its kind.
        if (this.expectKey && this.depth === 3) {
          this.keyAt = this.offset + i - this.elementStart
          this.expectKey = false
        }
        return i + 1
      }
      if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
        this.depth++
        if (this.depth === 3 && b === OPEN_OBJECT && this.phase === 'element' && this.later)
          this.expectKey = true
      } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        if (this.depth === base) {
          this.endValue(chunk, i)
          return i // the parent's closing bracket, read by the phase after
        }
        this.depth--
        if (this.depth === base) {
          this.endValue(chunk, i + 1)
          return i + 1
        }
      } else if (b === COMMA) {
        if (this.depth === base) {
          this.endValue(chunk, i)
          return i
        }
        if (this.depth === 3 && this.phase === 'element' && this.later) this.expectKey = true
      }
      i++
    }
    return i
  }

  private startCapture(i: number, limit: number): void {
    this.capture = new Capture(limit)
    this.captureStart = i
  }

  private takeCapture(chunk: Buffer, end: number): Capture {
    const capture = this.capture as Capture
    capture.add(chunk.subarray(this.captureStart, end), false)
    this.capture = undefined
    return capture
  }

  private endKey(chunk: Buffer, end: number): void {
    const key = JSON.parse(this.takeCapture(chunk, end).text()) as string
    if (this.seen.has(key)) this.fail(`has the top-level field ${quotedField(key)} twice`)
    this.seen.add(key)
    this.key = key
    this.phase = 'colon'
  }

  private endValue(chunk: Buffer, end: number): void {
    const capture = this.takeCapture(chunk, end)
    if (this.phase === 'element') {
      const index = this.header.count++
      this.expectKey = false
      if (capture.overflow)
        this.fail(
          `has an item ([${index}]) of more than ${MAX_ITEM_BYTES} bytes: it is not a Kubernetes object`
        )
      const bytes = capture.buffer()
      const later = this.later
      const at = this.elementStart
      if (later && isPod(bytes, this.elementKeys)) later(at, at + bytes.length, index)
      else if (this.onItem(parseItem(bytes, index), index) === 'later')
        later?.(at, at + bytes.length, index)
      this.phase = 'items'
      this.between = 'element'
      return
    }
    this.phase = 'after-value'
    // Every top-level value is parsed (JSON.parse would refuse the file for any of them); only
    // kind and apiVersion are kept. One over MAX_HEADER_VALUE_BYTES is not.
    if (capture.overflow) return
    let value: unknown
    try {
      value = JSON.parse(capture.text())
    } catch (error) {
      this.fail(`is not JSON: ${quotedField(this.headerKey)} does not parse (${positionIn(error)})`)
    }
    if (this.headerKey === 'kind' || this.headerKey === 'apiVersion')
      this.header[this.headerKey] = value
  }

  private unexpected(i: number): never {
    // The character is not quoted: the file may be one that holds a secret.
    this.fail(`is not JSON: an unexpected character at byte ${this.offset + i}`)
  }

  private fail(message: string): never {
    throw new ListFormatError(message)
  }
}

/**
 * Reads the open regular file `fd` (see openRegularFile) from where it stands, in chunks through
 * a ListSplitter; at most `maxBytes`, counted as they come. The caller closes it. The places
 * given to `later` count from there: a descriptor fresh from openRegularFile, at the file's start.
 */
export function readListFrom(
  fd: number,
  onItem: OnItem,
  chunkBytes = CHUNK_BYTES,
  maxBytes = Infinity,
  later?: Later
): ListHeader {
  const splitter = new ListSplitter(onItem, later)
  let first = true
  readChunks(
    fd,
    maxBytes,
    chunk => {
      const hint = first ? notJsonHint(chunk) : undefined
      first = false
      if (hint) throw new ListFormatError(hint)
      splitter.push(chunk)
    },
    chunkBytes
  )
  return splitter.end()
}

/** A key of the file as a message names it: shared/text.ts's rule, in backticks when quoted. */
export function quotedField(key: string): string {
  const name = fieldName(key)
  return name === key ? `\`${key}\`` : name
}
