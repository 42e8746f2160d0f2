/**
 * The files the inputs name (`deployments-file`, `kubernetes-file`, `state-file`), opened and read
 * so that no path can hold the step: opened without waiting (a FIFO opens at once), then required
 * to be a regular file (not a FIFO, a device such as `/dev/zero`, a socket or a folder), and read
 * with the byte limit counted as the bytes come (a file that grows, or that `stat` calls empty,
 * is stopped at the limit).
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs'

/** What is wrong with a file: the message completes "`<path>` ...". */
export class FileRefused extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'FileRefused'
  }
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a named pipe (FIFO)'
  if (stats.isCharacterDevice()) return 'a character device'
  if (stats.isBlockDevice()) return 'a block device'
  if (stats.isSocket()) return 'a socket'
  if (stats.isDirectory()) return 'a folder'
  return 'not a file'
}

/** An open descriptor of the regular file at `path`; FileRefused when it is anything else. */
export function openRegularFile(path: string): number {
  // O_NONBLOCK: opening a FIFO waits for a writer otherwise. (Windows has no such flag, nor FIFOs.)
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile())
      throw new FileRefused(`is ${kindOf(stats)}, not a regular file: give the path of a file`)
    return fd
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/** The refusal of a file over `maxBytes`. */
function tooLarge(maxBytes: number): FileRefused {
  return new FileRefused(`is larger than ${maxBytes} bytes, the most that is read`)
}

/**
 * Reads chunks of the open file `fd` into `onChunk` until its end; more than `maxBytes` in all
 * is FileRefused, found while reading. The chunk's buffer is reused for the next one.
 */
export function readChunks(
  fd: number,
  maxBytes: number,
  onChunk: (chunk: Buffer) => void,
  chunkBytes = 1024 * 1024
): void {
  const buffer = Buffer.allocUnsafe(chunkBytes)
  let total = 0
  for (;;) {
    const read = readSync(fd, buffer, 0, chunkBytes, null)
    if (read === 0) return
    total += read
    if (total > maxBytes) throw tooLarge(maxBytes)
    onChunk(buffer.subarray(0, read))
  }
}

/** The whole regular file at `path`, at most `maxBytes` of it (more is FileRefused). */
export function readRegularFile(path: string, maxBytes: number): Buffer {
  const fd = openRegularFile(path)
  try {
    const pieces: Buffer[] = []
    readChunks(fd, maxBytes, chunk => pieces.push(Buffer.from(chunk)), 64 * 1024)
    return Buffer.concat(pieces)
  } finally {
    closeSync(fd)
  }
}

/** The size of the regular file at `path`, as `stat` tells it (FileRefused for anything else). */
export function regularFileSize(path: string): number {
  const fd = openRegularFile(path)
  try {
    return fstatSync(fd).size
  } finally {
    closeSync(fd)
  }
}
