/**
 * A map from string keys to small integers kept outside V8's heap: the keys' UTF-8 bytes one after
 * another in one Buffer, and an open-addressing table of typed arrays over them. A Map of a
 * million short strings costs each its string and entry on the heap, and the heap grows to two or
 * three times what is live before it collects; here it is the bytes and 16 bytes a key, and
 * nothing for the collector to walk. Used for the owners kept small (owners.ts).
 */
const EMPTY = 0
/** String.prototype.isWellFormed (Node 20+), not in the ES2023 typings. */
const wellFormed = (key: string) => (key as string & { isWellFormed(): boolean }).isWellFormed()
/** A value deleted: the key stays in its slot, not counted, and comes back on `set`. */
const DELETED = -0x80000000

export class KeyTable {
  private bytes = Buffer.allocUnsafe(1 << 16)
  private used = 0
  /** Per entry: where its key is in `bytes`, how long, its hash and its value. */
  private starts = new Uint32Array(1024)
  private lengths = new Uint32Array(1024)
  private hashes = new Uint32Array(1024)
  private values = new Int32Array(1024)
  private entries = 0
  /** Entry number + 1 in each slot, EMPTY for none; a power of two, at most half full. */
  private slots = new Uint32Array(2048)
  private scratch = Buffer.allocUnsafe(1024)
  /**
   * Keys with a lone surrogate (JSON's `\ud800` in a name): UTF-8 would write each as U+FFFD,
   * one key for many. No Kubernetes name holds one; a file may: kept in a Map.
   */
  private readonly odd = new Map<string, number>()
  /** Keys with a value (not deleted). */
  size = 0

  get(key: string): number | undefined {
    if (!wellFormed(key)) return this.odd.get(key)
    const entry = this.find(this.encode(key))
    if (entry < 0) return undefined
    const value = this.values[entry] as number
    return value === DELETED ? undefined : value
  }

  has(key: string): boolean {
    return this.get(key) !== undefined
  }

  /** `value` is any int32 but -2^31. */
  set(key: string, value: number): void {
    if (!wellFormed(key)) {
      if (!this.odd.has(key)) this.size++
      this.odd.set(key, value)
      return
    }
    const length = this.encode(key)
    const found = this.find(length)
    if (found >= 0) {
      if (this.values[found] === DELETED) this.size++
      this.values[found] = value
      return
    }
    if (this.entries === this.starts.length) this.growEntries()
    if ((this.entries + 1) * 2 > this.slots.length) this.growSlots()
    while (this.used + length > this.bytes.length) {
      const bigger = Buffer.allocUnsafe(this.bytes.length * 2)
      this.bytes.copy(bigger, 0, 0, this.used)
      this.bytes = bigger
    }
    this.scratch.copy(this.bytes, this.used, 0, length)
    const entry = this.entries++
    this.starts[entry] = this.used
    this.lengths[entry] = length
    this.hashes[entry] = this.lastHash
    this.values[entry] = value
    this.used += length
    this.place(entry)
    this.size++
  }

  delete(key: string): void {
    if (!wellFormed(key)) {
      if (this.odd.delete(key)) this.size--
      return
    }
    const entry = this.find(this.encode(key))
    if (entry < 0 || this.values[entry] === DELETED) return
    this.values[entry] = DELETED
    this.size--
  }

  /** Every key with a value, in the order first set. */
  *keys(): Generator<string> {
    for (let e = 0; e < this.entries; e++) {
      if (this.values[e] === DELETED) continue
      const start = this.starts[e] as number
      yield this.bytes.toString('utf8', start, start + (this.lengths[e] as number))
    }
    yield* this.odd.keys()
  }

  private lastHash = 0
  private readonly basis = (Math.random() * 2 ** 32) >>> 0

  /** The key's bytes into `scratch` and its hash into lastHash; how many bytes. */
  private encode(key: string): number {
    if (key.length * 3 > this.scratch.length) this.scratch = Buffer.allocUnsafe(key.length * 3)
    const length = this.scratch.write(key, 0, 'utf8')
    // FNV-1a from a basis drawn per table: names chosen to share a slot (the file is not ours)
    // cannot be worked out ahead, as they could against a fixed one.
    let hash = this.basis
    for (let i = 0; i < length; i++)
      hash = Math.imul(hash ^ (this.scratch[i] as number), 0x01000193)
    this.lastHash = hash >>> 0
    return length
  }

  /** The entry of the key in `scratch` (its hash in lastHash), or -1. */
  private find(length: number): number {
    const mask = this.slots.length - 1
    for (let s = this.lastHash & mask; ; s = (s + 1) & mask) {
      const slot = this.slots[s] as number
      if (slot === EMPTY) return -1
      const entry = slot - 1
      const start = this.starts[entry] as number
      if (
        this.hashes[entry] === this.lastHash &&
        this.lengths[entry] === length &&
        this.scratch.compare(this.bytes, start, start + length, 0, length) === 0
      )
        return entry
    }
  }

  private place(entry: number): void {
    const mask = this.slots.length - 1
    let s = (this.hashes[entry] as number) & mask
    while (this.slots[s] !== EMPTY) s = (s + 1) & mask
    this.slots[s] = entry + 1
  }

  private growEntries(): void {
    const n = this.starts.length * 2
    const grow = <T extends Uint32Array | Int32Array>(from: T, to: T): T => {
      to.set(from)
      return to
    }
    this.starts = grow(this.starts, new Uint32Array(n))
    this.lengths = grow(this.lengths, new Uint32Array(n))
    this.hashes = grow(this.hashes, new Uint32Array(n))
    this.values = grow(this.values, new Int32Array(n))
  }

  private growSlots(): void {
    this.slots = new Uint32Array(this.slots.length * 2)
    for (let e = 0; e < this.entries; e++) this.place(e)
  }
}
