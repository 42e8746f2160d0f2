// Over 300 lines: the kubectl reader's and derivation's unit and property cases share their object builders.
import { closeSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import fc from 'fast-check'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  digestOf,
  kubectlList,
  realisticCluster,
  REALISTIC_ITEMS
} from '../../scripts/kubectl-list.js'
import {
  DEFAULT_DEPLOYMENT_NAME_TEMPLATE,
  deploymentNameOf,
  deriveItems,
  digestOf as digestOfImageId,
  nameAndVersion,
  slimObject,
  type KubeObject
} from '../../src/cluster/kubernetes/derive.js'
import {
  ListFormatError,
  ListSplitter,
  readListFrom
} from '../../src/cluster/kubernetes/read-list.js'
import { readObjects } from '../../src/cluster/kubernetes/inputs.js'
import { openRegularFile } from '../../src/shared/files.js'

/** Splits `text` into chunks of `size` bytes and returns what the splitter saw. */
function split(text: string, size: number) {
  const items: unknown[] = []
  const splitter = new ListSplitter(item => items.push(item))
  const bytes = Buffer.from(text, 'utf8')
  for (let i = 0; i < bytes.length; i += size) splitter.push(bytes.subarray(i, i + size))
  return { items, header: splitter.end() }
}
const failure = (text: string) => {
  try {
    split(text, 5)
  } catch (error) {
    if (error instanceof ListFormatError) return error.message
    throw error
  }
  return 'no error'
}

describe('the list splitter', () => {
  const tricky = {
    apiVersion: 'v1',
    items: [
      { kind: 'Pod', metadata: { name: 'a "quoted" \\ name', annotations: { x: '}]{[,:' } } },
      { kind: 'Pod', metadata: { name: 'ünïcödé 🚀 ✓' }, spec: { n: [1, 2.5e3, null, true] } },
      42,
      'a string',
      []
    ],
    kind: 'List',
    metadata: { resourceVersion: '' }
  }
  const text = '\ufeff' + JSON.stringify(tricky, null, 2)

  test.each([1, 2, 3, 7, 64, 1 << 20])(
    'cuts every element whole whatever the chunk size (%i bytes)',
    size => {
      const { items, header } = split(text, size)
      expect(items).toEqual(tricky.items)
      expect(header).toEqual({ kind: 'List', apiVersion: 'v1', count: 5 })
    }
  )

  test('reads the kind wherever it comes, and an empty list', () => {
    expect(split('{"kind":"PodList","items":[]}', 4).header).toEqual({ kind: 'PodList', count: 0 })
  })

  test.each([
    ['', 'is empty'],
    ['[{"name":"x"}]', 'is a JSON array, not a Kubernetes list'],
    ['{"items":[{"kind":"Pod"}', 'before the list is closed'],
    ['{"items":[{"kind": nope}],"kind":"List"}', 'item [0] does not parse'],
    ['{"kind":"List"}', 'has no `items`'],
    ['{"items":{},"kind":"List"}', '`items` that is not an array'],
    ['{"items":[],"kind":"List"} trailing', 'more text after the end'],
    ['hello', 'an unexpected character at byte 0'],
    ['{"items":[],"items":[]}', 'twice'],
    // JSON.parse refuses each; the splitter once took them as the items around the commas.
    ['{"items":[{"kind":"Pod"},],"kind":"List"}', 'an unexpected character at byte 25'],
    ['{"items":[,{"kind":"Pod"}],"kind":"List"}', 'an unexpected character at byte 10'],
    [
      '{"items":[{"kind":"Pod"},,{"kind":"Job"}],"kind":"List"}',
      'an unexpected character at byte 25'
    ],
    [
      '{"items":[{"kind":"Pod"} {"kind":"Job"}],"kind":"List"}',
      'an unexpected character at byte 25'
    ],
    ['{"metadata":{x},"items":[],"kind":"List"}', '`metadata` does not parse'],
    // kubectl's messages after its output (`2>&1`), named as those before it are.
    [
      '{"items":[],"kind":"List"}\nWarning: v1 ComponentStatus is deprecated in v1.19+\n',
      "has a message of kubectl's (`Warning: ...`) at byte 27, after the JSON: send only kubectl's output to the file, not its messages (no `2>&1`)"
    ],
    [
      '{"items":[],"kind":"List"}\r\nE1127 16:00:00.000000  7 memcache.go:265] an error',
      "has a message of kubectl's (`E1127: ...`) at byte 28, after the JSON"
    ],
    ['{"metadata":{"a":1,},"items":[],"kind":"List"}', '`metadata` does not parse']
  ])('refuses %j: %s', (input, message) => {
    expect(failure(input)).toContain(message)
  })

  test('an item of 16 MiB is read; one byte more is named as no Kubernetes object', () => {
    // An element of exactly `bytes` bytes: {"kind":"Pod","pad":"aaa..."}.
    const element = (bytes: number) => {
      const shell = '{"kind":"Pod","pad":""}'
      return `{"kind":"Pod","pad":"${'a'.repeat(bytes - shell.length)}"}`
    }
    const list = (bytes: number) => `{"items":[${element(bytes)}],"kind":"List"}`
    const limit = 16 * 1024 * 1024
    expect(split(list(limit), 1 << 20).header).toEqual({ kind: 'List', count: 1 })
    expect(() => split(list(limit + 1), 1 << 20)).toThrow(
      `has an item ([0]) of more than ${limit} bytes`
    )
  })

  test('reads a file in chunks', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'read-list-'))
    try {
      await writeFile(join(dir, 'list.json'), text)
      const items: unknown[] = []
      // as the action reads it: the one open of kubernetes-file, then its list through the descriptor
      const fd = openRegularFile(join(dir, 'list.json'))
      try {
        expect(readListFrom(fd, i => items.push(i), 16).count).toBe(5)
      } finally {
        closeSync(fd)
      }
      expect(items).toEqual(tricky.items)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('the parts of an item', () => {
  test.each([
    ['ghcr.io/acme/web:1.5.0', { name: 'ghcr.io/acme/web', version: '1.5.0' }],
    ['nginx', { name: 'nginx' }],
    ['postgres:16.2', { name: 'postgres', version: '16.2' }],
    ['localhost:5000/app', { name: 'localhost:5000/app' }],
    ['localhost:5000/app:v1', { name: 'localhost:5000/app', version: 'v1' }],
    [`ghcr.io/a/b:1.2@${digestOf('x')}`, { name: 'ghcr.io/a/b', version: '1.2' }],
    [`registry.internal:5000/a/b@${digestOf('x')}`, { name: 'registry.internal:5000/a/b' }]
  ])('the image %s is named without tag or digest', (image, expected) => {
    expect(nameAndVersion(image)).toEqual(expected)
  })

  test.each([
    [`docker-pullable://ghcr.io/a/b@${digestOf('x')}`, digestOf('x')],
    [`ghcr.io/a/b@${digestOf('x').toUpperCase().replace('SHA256', 'sha256')}`, digestOf('x')],
    [digestOf('x'), digestOf('x')],
    ['', undefined],
    ['docker://sha256:abc', undefined]
  ])('the digest of imageID %j', (imageId, expected) => {
    expect(digestOfImageId(imageId)).toEqual(expected)
  })

  test('the template fills its three placeholders, in any case and spacing', () => {
    const values = { namespace: 'shop', deploymentName: 'web', containerName: 'app' }
    expect(deploymentNameOf('{{namespace}}/{{deploymentName}}/{{containerName}}', values)).toBe(
      'shop/web/app'
    )
    expect(deploymentNameOf('prod-{{ NAMESPACE }}-{{deploymentname}}', values)).toBe(
      'prod-shop-web'
    )
  })
})

/** The realistic cluster's objects as the reader keeps them. */
function realisticObjects(): KubeObject[] {
  const list = realisticCluster() as { items: unknown[] }
  return list.items.map(i => slimObject(i)).filter((o): o is KubeObject => typeof o === 'object')
}

describe('the tracker rules on a realistic cluster', () => {
  const derived = deriveItems(
    realisticObjects(),
    '{{namespace}}/{{deploymentName}}/{{containerName}}'
  )
  const byName = new Map(derived.items.map(i => [i.deployment_name, i]))

  test('one item per workload container, as worked out by hand', () => {
    const sort = (items: Array<{ deployment_name: string }>) =>
      [...items].sort((a, b) => a.deployment_name.localeCompare(b.deployment_name))
    expect(sort(derived.items)).toEqual(sort(REALISTIC_ITEMS))
  })

  test('a rollout keeps the newest running pod (1.5.0, not 1.4.0)', () => {
    expect(byName.get('shop/web/web')?.digest).toBe(digestOf('web:1.5.0'))
  })

  test('init containers are items too', () => {
    expect(byName.has('shop/web/migrate')).toBe(true)
  })

  test("a CronJob's Jobs are one workload; the newer (succeeded) pod wins over the failed one", () => {
    expect(byName.get('batch/nightly-report/report')?.version).toBe('2026.02')
  })

  test('pending and ownerless pods are not recorded', () => {
    expect([...byName.keys()].some(n => n.includes('debug') || n.includes('shell'))).toBe(false)
  })

  test('a ReplicaSet missing from the list: its name without the pod-template-hash', () => {
    expect(byName.has('payments/api/api')).toBe(true)
  })

  test('a container without a digest is skipped and counted, naming it', () => {
    expect(derived.withoutDigest).toBe(1)
    expect(derived.warnings).toContainEqual(
      expect.stringContaining('1 container has no image digest') as string
    )
    expect(derived.warnings.join('\n')).toContain('payments/api-6f7d8c9b5-q4w9z/envoy')
  })

  test('invalid annotations are skipped with a warning naming the object', () => {
    const text = derived.warnings.join('\n')
    expect(text).toContain('StatefulSet shop/db: tag `owner-team`')
    expect(text).toContain('StatefulSet shop/db: runtime risk `teleportation`')
    expect(text).toContain('Pod payments/api-6f7d8c9b5-q4w9z: tag `slo` is over the limit of 5')
    expect(derived.warnings).toHaveLength(4)
  })

  test('a ReplicaSet without a Deployment in the list still resolves through its own owner first', () => {
    const objects = realisticObjects().map(o =>
      o.kind === 'ReplicaSet' && o.name === 'web-5c6b7d9f8'
        ? { ...o, owners: [{ kind: 'Deployment', name: 'storefront' }] }
        : o
    )
    const names = deriveItems(
      objects,
      '{{namespace}}/{{deploymentName}}/{{containerName}}'
    ).items.map(i => i.deployment_name)
    expect(names).toEqual(expect.arrayContaining(['shop/storefront/web', 'shop/web/web']))
  })

  test('a bare PodList (items without kind) reads as pods', async () => {
    const pod = (realisticCluster() as { items: Array<Record<string, unknown>> }).items.find(
      i => i['kind'] === 'Pod'
    ) as Record<string, unknown>
    const { kind: _kind, ...withoutKind } = pod
    expect(slimObject(withoutKind, 'Pod')).toMatchObject({ kind: 'Pod' })
    // Through the reader, from a file: the list's kind comes from what it read (kubectl prints
    // it after the items), and the kindless item is a pod.
    const dir = await mkdtemp(join(tmpdir(), 'podlist-'))
    try {
      const file = join(dir, 'pods.json')
      await writeFile(file, JSON.stringify(kubectlList([withoutKind], 'PodList')))
      const fd = openRegularFile(file)
      const read = readObjects(fd, () => true)
      closeSync(fd)
      expect(read.listKind).toBe('PodList')
      expect(read.firstBadItem).toBeUndefined()
      const { name } = pod['metadata'] as { name: string }
      expect(read.objects.map(o => [o.kind, o.name])).toEqual([['Pod', name]])
    } finally {
      await rm(dir, { recursive: true })
    }
  })
})

/**
 * Generated clusters: workloads of every kind in two namespaces, pods in every phase, each with
 * one or two containers, under templates that may leave a placeholder out. The tracker keeps one
 * record per deployment name, collapsing "to a single digest per workload and container name"
 * (internal/controller/reporting.go); whatever else shares a name must be said.
 */
describe('warnings about the pods of one workload', () => {
  // A pod template's bad annotation is on every pod: one warning named by its first pod and a
  // count, not one a pod (a Deployment of 300k pods would keep and print 300k lines).
  const pod = (name: string): KubeObject => ({
    kind: 'Pod',
    namespace: 'shop',
    name,
    owners: [{ kind: 'ReplicaSet', name: 'api-5d7f8' }],
    annotations: [['metadata.github.com/runtime-risks', 'teleportation']],
    pod: {
      phase: 'Running',
      created: '2026-01-01T00:00:00Z',
      templateHash: '5d7f8',
      containers: [{ name: 'api', image: 'ghcr.io/acme/api:1' }],
      imageIds: { api: `ghcr.io/acme/api@sha256:${'b'.repeat(64)}` }
    }
  })
  const owners: KubeObject[] = [
    {
      kind: 'ReplicaSet',
      namespace: 'shop',
      name: 'api-5d7f8',
      owners: [{ kind: 'Deployment', name: 'api' }],
      annotations: []
    },
    { kind: 'Deployment', namespace: 'shop', name: 'api', owners: [], annotations: [] }
  ]

  test('the same warning for many pods of one workload is said once, with how many pods', () => {
    const pods = Array.from({ length: 1000 }, (_, i) => pod(`api-5d7f8-${i}`))
    const { warnings } = deriveItems([...owners, ...pods], DEFAULT_DEPLOYMENT_NAME_TEMPLATE)
    expect(warnings).toEqual([
      'Pod shop/api-5d7f8-0: runtime risk `teleportation` in metadata.github.com/runtime-risks is not one of critical-resource, internet-exposed, lateral-movement, sensitive-data; skipped (and so for 999 more pods of Deployment shop/api)'
    ])
  })
})

describe('nothing is dropped without a word (generated clusters)', () => {
  const KINDS = ['ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job'] as const
  /** The workload kind a pod of this owner belongs to, by the tracker's rules (no owners listed). */
  const workloadKind = {
    ReplicaSet: 'Deployment',
    StatefulSet: 'StatefulSet',
    DaemonSet: 'DaemonSet',
    Job: 'Job'
  }
  const podArb = fc.record({
    namespace: fc.constantFrom('shop', 'ops'),
    kind: fc.constantFrom(...KINDS),
    workload: fc.constantFrom('web', 'redis'),
    phase: fc.constantFrom('Running', 'Succeeded', 'Failed', 'Pending'),
    minute: fc.integer({ min: 0, max: 59 }),
    containers: fc.uniqueArray(fc.constantFrom('app', 'sidecar'), { minLength: 1, maxLength: 2 }),
    tag: fc.constantFrom('1', '2')
  })
  const templates = [
    '{{namespace}}/{{deploymentName}}/{{containerName}}',
    '{{namespace}}/{{deploymentName}}',
    '{{deploymentName}}-{{containerName}}',
    '{{containerName}}'
  ]

  test('each name is sent once; a name from two workloads or containers is in a warning', () => {
    fc.assert(
      fc.property(
        fc.array(podArb, { maxLength: 12 }),
        fc.constantFrom(...templates),
        (pods, template) => {
          const objects: KubeObject[] = pods.map((p, i) => ({
            kind: 'Pod',
            namespace: p.namespace,
            // A ReplicaSet's name is the Deployment's with a hash; the others own the pod by name.
            name: `${p.workload}-${i}`,
            owners: [
              { kind: p.kind, name: p.kind === 'ReplicaSet' ? `${p.workload}-5d7f8` : p.workload }
            ],
            annotations: [],
            pod: {
              phase: p.phase,
              created: `2026-01-01T10:${String(p.minute).padStart(2, '0')}:00Z`,
              containers: p.containers.map(c => ({ name: c, image: `ghcr.io/acme/${c}:${p.tag}` })),
              imageIds: Object.fromEntries(p.containers.map(c => [c, digestOf(`${c}:${p.tag}`)]))
            }
          }))
          const derived = deriveItems(objects, template)
          // Counted by the tracker's rule: Running, or a finished Job's pod.
          const counted = pods.filter(
            p => p.phase === 'Running' || (p.kind === 'Job' && p.phase !== 'Pending')
          )
          const sources = new Map<string, Set<string>>()
          for (const p of counted)
            for (const c of p.containers) {
              const name = template
                .replace('{{namespace}}', p.namespace)
                .replace('{{deploymentName}}', p.workload)
                .replace('{{containerName}}', c)
              const identity = `${p.namespace} ${workloadKind[p.kind]} ${p.workload} ${c}`
              sources.set(name, (sources.get(name) ?? new Set()).add(identity))
            }
          const sent = derived.items.map(i => i.deployment_name)
          expect(new Set(sent).size).toBe(sent.length)
          expect(new Set(sent)).toEqual(new Set(sources.keys()))
          const warned = derived.warnings.join('\n')
          for (const [name, from] of sources) {
            if (from.size > 1) expect(warned).toContain(`\`${name}\` is recorded for`)
            else expect(warned).not.toContain(`\`${name}\` is recorded for`)
          }
        }
      ),
      { numRuns: 300 }
    )
  })
})
