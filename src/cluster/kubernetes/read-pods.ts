/**
 * A Kubernetes list read in two passes over one open file, so that memory follows what is kept
 * and not how many objects there are: kubectl prints the pods before the ReplicaSets, Jobs and
 * Deployments they belong to, and a pod's deployment needs them. The first pass cuts every
 * element, parses those that are not pods and notes where each pod is (16 bytes a pod); the
 * second reads only the pods again, by where they are, in their order, each parsed alone.
 * Parsed once each; the pods' bytes are read twice, from the page cache.
 */
import { fstatSync, readSync, type Stats } from 'node:fs'
import { ListFormatError, parseItem } from './elements.js'
import { readListFrom, type ListHeader, type OnItem } from './read-list.js'

const READ_BYTES = 1024 * 1024

/** Where the pods are: their bytes [start, start + length) and their index in `items`. */
export class Places {
  private starts = new Float64Array(1024)
  private lengths = new Uint32Array(1024)
  private indexes = new Uint32Array(1024)
  size = 0

  add(start: number, end: number, index: number): void {
    if (this.size === this.starts.length) {
      const grow = <T extends Float64Array | Uint32Array>(from: T, to: T): T => {
        to.set(from)
        return to
      }
      const n = this.size * 2
      this.starts = grow(this.starts, new Float64Array(n))
      this.lengths = grow(this.lengths, new Uint32Array(n))
      this.indexes = grow(this.indexes, new Uint32Array(n))
    }
    this.starts[this.size] = start
    this.lengths[this.size] = end - start
    this.indexes[this.size] = index
    this.size++
  }

  /**
   * Reads each place of the open file `fd` again, in order, and gives it parsed (the checks of
   * parseItem) to `onItem`. Places close together are read with one read.
   */
  read(fd: number, onItem: (item: unknown, index: number) => void): void {
    let buffer = Buffer.allocUnsafe(READ_BYTES)
    for (let first = 0; first < this.size;) {
      const from = this.starts[first] as number
      // The places that end within READ_BYTES of the first one's start (at least that one).
      let last = first + 1
      while (last < this.size && this.end(last) - from <= READ_BYTES) last++
      const want = this.end(last - 1) - from
      // One pod over READ_BYTES (at most MAX_ITEM_BYTES, as the first pass saw).
      if (want > buffer.length) buffer = Buffer.allocUnsafe(want)
      let got = 0
      while (got < want) {
        const n = readSync(fd, buffer, got, want - got, from + got)
        if (n === 0) throw changed()
        got += n
      }
      for (let p = first; p < last; p++) {
        const start = (this.starts[p] as number) - from
        const bytes = buffer.subarray(start, start + (this.lengths[p] as number))
        onItem(parseItem(bytes, this.indexes[p] as number), this.indexes[p] as number)
      }
      first = last
    }
  }

  private end(p: number): number {
    return (this.starts[p] as number) + (this.lengths[p] as number)
  }
}

const changed = () =>
  new ListFormatError(
    'changed while it was read (written to by something else?): give it once it is written whole'
  )

const wasChanged = (fd: number, before: Stats) => {
  const after = fstatSync(fd)
  return after.size !== before.size || after.mtimeMs !== before.mtimeMs
}

/**
 * Reads the list in the open regular file `fd`, fresh from openRegularFile: `first` gets every
 * element that is not a pod, parsed, in order (it returns 'later' for a pod that only parsing
 * told), then `pods` gets each pod in order. An error of the first pass stands only when no pod
 * before where it stopped has one: the error named is the first in the file, as in one pass.
 */
export function readListTwice(
  fd: number,
  first: OnItem,
  pods: (item: unknown, index: number) => void,
  { chunkBytes, maxBytes }: { chunkBytes?: number; maxBytes?: number } = {}
): ListHeader {
  const before = fstatSync(fd)
  const places = new Places()
  // A pod that does not parse the second time may be the file rewritten since: said as that.
  const second = (onItem: (item: unknown, index: number) => void) => {
    try {
      places.read(fd, onItem)
    } catch (error) {
      if (error instanceof ListFormatError && wasChanged(fd, before)) throw changed()
      throw error
    }
  }
  let header: ListHeader
  try {
    header = readListFrom(fd, first, chunkBytes, maxBytes, (start, end, index) =>
      places.add(start, end, index)
    )
  } catch (error) {
    second(() => undefined)
    throw error
  }
  second(pods)
  if (wasChanged(fd, before)) throw changed()
  return header
}
