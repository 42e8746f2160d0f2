// Over 300 lines: the reader's property, table and file cases share the list builders and the
// two-pass harness.
// The kubectl list read as a stream in two passes (read-list.ts, elements.ts, read-pods.ts): what
// is read is what JSON.parse reads, wherever the chunks are cut; the pods are told from the rest
// without parsing them; an error is the first in the file; and the owners kept small are the
// owners read (owners.ts). Memory itself is the benchmark's (bench/kubernetes-memory.ts).
import { appendFileSync, closeSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { kubectlList, realisticCluster } from '../../scripts/kubectl-list.js'
import { slimObject, type KubeObject } from '../../src/cluster/kubernetes/derive.js'
import { readObjects } from '../../src/cluster/kubernetes/inputs.js'
import { KeyTable } from '../../src/cluster/kubernetes/key-table.js'
import {
  keyOf,
  ListedWorkloads,
  OWNER_KINDS,
  OwnerIndex
} from '../../src/cluster/kubernetes/owners.js'
import { ListFormatError, ListSplitter, parseItem } from '../../src/cluster/kubernetes/read-list.js'
import { readListTwice } from '../../src/cluster/kubernetes/read-pods.js'
import { openRegularFile } from '../../src/shared/files.js'

/** What slimObject reads as a pod: an object whose kind is `Pod`, empty, absent or no string. */
const isPodLike = (item: unknown) =>
  typeof item === 'object' &&
  item !== null &&
  !Array.isArray(item) &&
  !(
    typeof (item as { kind?: unknown }).kind === 'string' &&
    !['Pod', ''].includes((item as { kind: string }).kind)
  )

/**
 * The two passes over `text` cut at `cuts`: the first pass's items (those it parsed), the places
 * it handed on (read back from the text) and the items as one list again, by index.
 */
function twoPasses(text: string, cuts: number[]) {
  const bytes = Buffer.from(text, 'utf8')
  const parsed: Array<[number, unknown]> = []
  const later: Array<[number, unknown]> = []
  const seen = new Set<number>()
  const splitter = new ListSplitter(
    (item, index) => {
      seen.add(index)
      if (isPodLike(item)) return 'later'
      parsed.push([index, item])
      return undefined
    },
    (start, end, index) => later.push([index, parseItem(bytes.subarray(start, end), index)])
  )
  let from = 0
  for (const cut of [...cuts.filter(c => c > 0 && c < bytes.length)].sort((a, b) => a - b)) {
    splitter.push(Buffer.from(bytes.subarray(from, cut)))
    from = cut
  }
  splitter.push(Buffer.from(bytes.subarray(from)))
  const header = splitter.end()
  const all = [...parsed, ...later].sort((a, b) => a[0] - b[0]).map(([, item]) => item)
  /** The items handed on without being parsed first. */
  const unparsed = later.map(([index]) => index).filter(index => !seen.has(index))
  return { parsed, later, unparsed, all, header }
}

/** JSON text with every letter of every string and key written as a \u escape. */
function escaped(value: unknown): string {
  if (typeof value === 'string')
    return `"${[...JSON.stringify(value).slice(1, -1)].map(c => (/[a-zA-Z]/.test(c) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c)).join('')}"`
  if (Array.isArray(value)) return `[ ${value.map(escaped).join(' , ')} ]`
  if (typeof value === 'object' && value !== null)
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${escaped(k)} :\n ${escaped(v)}`)
      .join(',\t')} }`
  return JSON.stringify(value)
}

const textArb = fc.string({ unit: 'binary', maxLength: 12 })
const objectArb = fc.record(
  {
    kind: fc.oneof(
      fc.constantFrom('Pod', 'ReplicaSet', 'Deployment', 'Job', 'Service', ''),
      fc.constantFrom(null, 7, true),
      textArb
    ),
    metadata: fc.record({
      name: textArb,
      namespace: fc.constantFrom('shop', 'ünï 🚀', 'a"b\\c'),
      annotations: fc.dictionary(textArb, textArb, { maxKeys: 3 })
    }),
    spec: fc.jsonValue({ maxDepth: 3 }),
    status: fc.anything({ maxDepth: 2, withNullPrototype: false, withObjectString: false })
  },
  { requiredKeys: ['metadata'] }
)
const itemArb = fc.oneof(
  { weight: 8, arbitrary: objectArb },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) }
)

describe('the list read in two passes', () => {
  test('every item is what JSON.parse reads, wherever the chunks are cut; pods are handed on unparsed', () => {
    fc.assert(
      fc.property(
        fc.array(itemArb, { maxLength: 8 }),
        fc.constantFrom('plain', 'pretty', 'escaped'),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 12 }),
        (items, style, bom, cuts) => {
          const list = { apiVersion: 'v1', items, kind: 'List', metadata: {} }
          const body =
            style === 'escaped'
              ? escaped(JSON.parse(JSON.stringify(list)))
              : JSON.stringify(list, null, style === 'pretty' ? 4 : undefined)
          const text = (bom ? '\ufeff' : '') + body
          const expected = (JSON.parse(body) as { items: unknown[] }).items
          const size = Buffer.byteLength(text)
          const read = twoPasses(
            text,
            cuts.map(c => c % (size + 1))
          )
          expect(read.all).toEqual(expected)
          expect(read.header).toMatchObject({ kind: 'List', count: expected.length })
          // Handed on unparsed: exactly the objects whose own kind is a string `Pod` or `""`, or absent.
          const kindOf = (item: unknown) => (item as { kind?: unknown }).kind
          expect(read.unparsed).toEqual(
            expected.flatMap((item, index) => {
              if (!isPodLike(item)) return []
              const kind = kindOf(item)
              return kind === undefined || kind === 'Pod' || kind === '' ? [index] : []
            })
          )
        }
      ),
      { numRuns: 300 }
    )
  })

  test.each([
    ['an escaped key', '{"\\u006bind":"Pod","metadata":{}}', true],
    ['an escaped value', '{"kind":"P\\u006fd","metadata":{}}', true],
    ['the last of two kinds (Pod)', '{"kind":"ReplicaSet","metadata":{},"kind":"Pod"}', true],
    ['the last of two kinds (not Pod)', '{"kind":"Pod","metadata":{},"kind":"Job"}', false],
    ['a kind inside metadata only', '{"metadata":{"kind":"Job"},"spec":{"kind":"Job"}}', true],
    ['a kind that is null', '{"kind":null,"metadata":{}}', false],
    ['a key that only ends in kind', '{"xkind":"Job","metadata":{}}', true],
    ['kind as a value, not a key', '{"a":"kind","b":"Job","metadata":{}}', true],
    ['an array', '[{"kind":"Pod"}]', false]
  ])('%s: handed on unparsed is %s', (_, element, handedOn) => {
    const read = twoPasses(`{"items":[${element}],"kind":"List"}`, [3, 9, 17])
    expect(read.unparsed.length === 1).toBe(handedOn)
    expect(read.all).toEqual([JSON.parse(element)])
  })

  test('a pod of 12 MB (nested arrays, escapes, unicode) is read whole across 1 MiB chunks', () => {
    const pod = {
      kind: 'Pod',
      metadata: { name: 'big "one" \\ ✓', namespace: 'shop' },
      spec: { n: Array.from({ length: 20_000 }, (_, i) => [i, [`ü${i}\n`, { x: '}]' }]]) },
      status: { pad: 'a'.repeat(12 * 1024 * 1024) }
    }
    const text = JSON.stringify({ items: [pod, { kind: 'Job', metadata: {} }], kind: 'List' })
    const cuts = Array.from({ length: 14 }, (_, i) => (i + 1) * 1024 * 1024)
    const read = twoPasses(text, cuts)
    expect(read.unparsed).toEqual([0])
    expect(read.all).toEqual([pod, { kind: 'Job', metadata: {} }])
  })

  test('a list cut short anywhere is refused as such, never read as shorter', () => {
    const text = JSON.stringify(realisticCluster())
    fc.assert(
      fc.property(fc.integer({ min: 1, max: text.length - 2 }), fc.nat(), (end, cut) => {
        const short = text.slice(0, end)
        expect(() => twoPasses(short, [cut % end])).toThrow(ListFormatError)
      }),
      { numRuns: 200 }
    )
  })

  test.each([
    ['{"items":{"kind":"Pod"},"kind":"List"}', '`items` that is not an array'],
    ['{"items":"pods","kind":"List"}', '`items` that is not an array'],
    ['{"items":[{"kind":"Pod","metadata":{}}', 'before the list is closed'],
    ['{"items":[{"kind":"Pod","metadata":{"name":"a}]', 'before the list is closed']
  ])('%j is refused: %s', (text, message) => {
    expect(() => twoPasses(text, [5])).toThrow(message)
  })
})

describe('the two passes over a file', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'read-twice-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  /** readListTwice over `text`: the error's message, or the items in the order each pass gave them. */
  async function readTwice(text: string | Buffer, chunkBytes = 7) {
    const file = join(dir, 'list.json')
    await writeFile(file, text)
    const fd = openRegularFile(file)
    const order: string[] = []
    try {
      readListTwice(
        fd,
        (item, index) => {
          if (isPodLike(item)) return 'later'
          order.push(`first ${index}`)
          return undefined
        },
        (_, index) => {
          order.push(`pod ${index}`)
        },
        { chunkBytes }
      )
      return order
    } catch (error) {
      if (error instanceof ListFormatError) return error.message
      throw error
    } finally {
      closeSync(fd)
    }
  }
  const list = (...items: string[]) => `{"items":[${items.join(',')}],"kind":"List"}`
  const POD = '{"kind":"Pod","metadata":{}}'
  const JOB = '{"kind":"Job","metadata":{}}'

  test('the owners come first, then the pods in their order', async () => {
    expect(await readTwice(list(POD, JOB, POD, JOB, POD))).toEqual([
      'first 1',
      'first 3',
      'pod 0',
      'pod 2',
      'pod 4'
    ])
  })

  test('the error named is the first in the file, whichever pass meets it', async () => {
    const badPod = '{"kind":"Pod","metadata":{]}'
    const badJob = '{"kind":"Job","metadata":{]}'
    expect(await readTwice(list(POD, badPod, JOB, badJob))).toContain('item [1] does not parse')
    expect(await readTwice(list(POD, badJob, JOB, badPod))).toContain('item [1] does not parse')
    // A list cut short after a bad pod: the pod's error, as one pass read it.
    expect(await readTwice(list(JOB, badPod).slice(0, -10))).toContain('item [1] does not parse')
    expect(await readTwice(list(JOB, POD).slice(0, -10))).toContain('before the list is closed')
    // Not UTF-8 in a pod: found by the second pass, named as before.
    const latin1 = Buffer.from(list(JOB, '{"kind":"Pod","metadata":{"name":"café"}}'), 'latin1')
    expect(await readTwice(latin1)).toContain('is not UTF-8: item [1]')
    expect(await readTwice(list(JOB, POD))).toEqual(['first 0', 'pod 1'])
  })

  test('a file rewritten in place between the passes is named as changed, not as a bad item', async () => {
    const file = join(dir, 'list.json')
    const text = list(POD, JOB)
    await writeFile(file, text)
    const fd = openRegularFile(file)
    try {
      let rewritten = false
      expect(() =>
        readListTwice(
          fd,
          item => {
            if (isPodLike(item)) return 'later'
            if (!rewritten) {
              rewritten = true
              // The same size, the pod's bytes no longer JSON: another `kubectl ... >` began.
              writeFileSync(file, text.replace('"kind":"Pod"', '"kind" "Pod"'))
            }
            return undefined
          },
          () => undefined
        )
      ).toThrow('changed while it was read')
    } finally {
      closeSync(fd)
    }
  })

  test('a file changed between the passes is refused, not read half old and half new', async () => {
    const file = join(dir, 'list.json')
    await writeFile(file, list(POD, JOB))
    const fd = openRegularFile(file)
    try {
      let grown = false
      expect(() =>
        readListTwice(
          fd,
          (item, index) => {
            if (isPodLike(item)) return 'later'
            if (!grown) {
              grown = true
              // Written to while the first pass reads (the end of the first pass sees it).
              appendFileSync(file, ' ')
            }
            return index
          },
          () => undefined
        )
      ).toThrow('changed while it was read')
    } finally {
      closeSync(fd)
    }
  })

  test("the objects read are the file's, in its order, whatever order kubectl printed them in", async () => {
    const items = (realisticCluster() as { items: unknown[] }).items
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(items, { minLength: 1 }), async some => {
        const file = join(dir, 'cluster.json')
        await writeFile(
          file,
          JSON.stringify(kubectlList(some as Array<Record<string, unknown>>), null, 4)
        )
        const fd = openRegularFile(file)
        let read
        try {
          read = readObjects(fd, () => true)
        } finally {
          closeSync(fd)
        }
        const slim = some
          .map(item => slimObject(item, 'Pod'))
          .filter((o): o is KubeObject => typeof o === 'object')
        expect(read.objects).toEqual([
          ...slim.filter(o => o.kind !== 'Pod'),
          ...slim.filter(o => o.kind === 'Pod')
        ])
      }),
      { numRuns: 40 }
    )
  })
})

describe('the owners kept small', () => {
  const ownerArb = fc.record({
    kind: fc.constantFrom('ReplicaSet', 'Deployment', 'Job', 'CronJob'),
    namespace: fc.constantFrom('shop', 'ops'),
    name: fc.constantFrom('web', 'web-5d7f8', 'nightly', 'nightly-29401440'),
    owners: fc.array(
      fc.record({
        kind: fc.constantFrom('Deployment', 'CronJob', 'Job'),
        name: fc.constantFrom('web', 'nightly')
      }),
      { maxLength: 2 }
    ),
    annotations: fc.array(
      fc.tuple(fc.constantFrom('metadata.github.com/team', 'metadata.github.com/x'), fc.string()),
      {
        maxLength: 1
      }
    )
  })

  test('each key gives back the last object read with it, and the keys are those read', () => {
    fc.assert(
      fc.property(fc.array(ownerArb, { maxLength: 20 }), owners => {
        const index = new OwnerIndex()
        const last = new Map<string, KubeObject>()
        for (const o of owners) {
          index.add(o)
          last.set(keyOf(o.kind, o.namespace, o.name), o)
        }
        expect(new Set(index.keys())).toEqual(new Set(last.keys()))
        for (const [key, o] of last) {
          expect(index.has(key)).toBe(true)
          expect(index.get(key)).toEqual(o)
        }
        expect(index.get(keyOf('Job', 'shop', 'absent'))).toBeUndefined()
        // The workloads listed: the keys of the owner kinds, asked of the index.
        const listed = new ListedWorkloads(index)
        const want = [...last.keys()].filter(k => OWNER_KINDS.has(k.split('\0')[0] as string))
        expect(new Set(listed)).toEqual(new Set(want))
        expect(listed.size).toBe(want.length)
        for (const key of want) expect(listed.has(key)).toBe(true)
        expect(listed.has(keyOf('Pod', 'shop', 'web'))).toBe(false)
      }),
      { numRuns: 300 }
    )
  })

  test('the keys kept outside the heap answer as a Map does, through growth, deletes and any text', () => {
    // Few distinct keys so that sets, deletes and gets meet; long and non-ASCII ones too.
    const keyArb = fc.oneof(
      // Lone surrogates and the character UTF-8 writes for them: three keys, not one.
      fc.constantFrom(
        '',
        'a',
        'ReplicaSet\0shop\0web',
        'é\u{1F600}',
        '\0',
        'a\ud800',
        'a\udc00',
        'a\ufffd'
      ),
      fc.string({ maxLength: 3 }),
      fc.string({ minLength: 300, maxLength: 400 }).map(t => `${t}é`)
    )
    const opArb = fc.tuple(fc.constantFrom('set', 'delete', 'get'), keyArb, fc.integer())
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 1000 }), ops => {
        const table = new KeyTable()
        const map = new Map<string, number>()
        for (const [op, key, value] of ops) {
          if (op === 'set' && value !== -0x80000000) {
            table.set(key, value)
            map.set(key, value)
          } else if (op === 'delete') {
            table.delete(key)
            map.delete(key)
          } else expect(table.get(key)).toBe(map.get(key))
        }
        expect(table.size).toBe(map.size)
        expect(new Set(table.keys())).toEqual(new Set(map.keys()))
        for (const [key, value] of map) expect(table.get(key)).toBe(value)
      }),
      { numRuns: 50 }
    )
    // Past every first capacity (1024 entries, 64 KiB of keys): 50,000 keys, then every other gone.
    const table = new KeyTable()
    for (let i = 0; i < 50_000; i++) table.set(`ReplicaSet\0ns-${i % 7}\0svc-${i}`, i)
    for (let i = 0; i < 50_000; i += 2) table.delete(`ReplicaSet\0ns-${i % 7}\0svc-${i}`)
    expect(table.size).toBe(25_000)
    const wrong = []
    for (let i = 0; i < 50_000; i++)
      if (table.get(`ReplicaSet\0ns-${i % 7}\0svc-${i}`) !== (i % 2 ? i : undefined)) wrong.push(i)
    expect(wrong).toEqual([])
  })
})
