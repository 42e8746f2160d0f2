/**
 * `kubernetes-file` agrees with GitHub's Kubernetes deployment tracker (github/deployment-tracker)
 * on odd containers and odd files, and drops nothing without a word: runtime risks in another
 * case, a container the service would refuse, files that are not UTF-8 JSON, a new user's
 * kubectl output. Each test says what must be sent or said, worked out by hand; all run the
 * bundled action against the emulator (setup: __fixtures__/kubernetes-tracker.ts).
 */
import { gzipSync } from 'node:zlib'
import {
  container,
  emulator,
  errorOf,
  go,
  running,
  sent,
  useTrackerEmulator,
  warningsOf
} from '../../__fixtures__/kubernetes-tracker.js'
import { digestOf, kubectlList, workload } from '../../scripts/kubectl-list.js'

useTrackerEmulator()

// pkg/deploymentrecord/record.go, ValidateRuntimeRisk: "r := RuntimeRisk(strings.ToLower(
// strings.TrimSpace(risk)))": a risk in another letter case counts.
test('runtime risks in another letter case are lower-cased, not dropped', async () => {
  const list = kubectlList([
    workload('DaemonSet', 'edge', 'ingress', {
      annotations: { 'metadata.github.com/runtime-risks': 'Internet-Exposed, SENSITIVE-DATA' }
    }),
    running('edge', 'ingress-n1', { kind: 'DaemonSet', name: 'ingress' }, '2026-01-01T00:00:00Z', [
      container('controller', 'registry.k8s.io/ingress-nginx/controller:v1.10.0')
    ])
  ])
  const run = await go(list)
  expect(run.code).toBe(0)
  expect(sent()[0]?.['runtime_risks']).toEqual(['internet-exposed', 'sensitive-data'])
  expect(sent()).toEqual([
    {
      name: 'registry.k8s.io/ingress-nginx/controller',
      version: 'v1.10.0',
      digest: digestOf('registry.k8s.io/ingress-nginx/controller:v1.10.0'),
      deployment_name: 'edge/ingress/controller',
      runtime_risks: ['internet-exposed', 'sensitive-data']
    }
  ])
  expect(warningsOf(run.stdout)).toEqual([])
})

// internal/controller/reporting.go: a record the service refuses is logged ("Failed to post
// record") and the other containers are still recorded ("Make sure to not retry on client error
// messages"): one odd container never stops the rest. The service's limits: version 1-100,
// deployment_name at most 256.
test('one odd container is sent without its version or left out, with a warning naming it', async () => {
  const longTag = 'v' + '1'.repeat(110) // a valid OCI tag (up to 128), over the service's 100
  const longNamespace = 'n'.repeat(63)
  const longName = 'd'.repeat(200) // 63 + 1 + 200 + 1 + 3 = 268 characters with `app`
  const list = kubectlList([
    workload('StatefulSet', 'shop', 'db'),
    running('shop', 'db-0', { kind: 'StatefulSet', name: 'db' }, '2026-01-01T00:00:00Z', [
      container('postgres', `postgres:${longTag}`)
    ]),
    workload('DaemonSet', longNamespace, longName),
    running(
      longNamespace,
      `${longName.slice(0, 50)}-x`,
      { kind: 'DaemonSet', name: longName },
      '2026-01-01T00:00:00Z',
      [container('app', 'ghcr.io/acme/app:1')]
    ),
    workload('DaemonSet', 'shop', 'agent'),
    running('shop', 'agent-1', { kind: 'DaemonSet', name: 'agent' }, '2026-01-01T00:00:00Z', [
      container('agent', 'ghcr.io/acme/agent:3')
    ])
  ])
  const run = await go(list) // no partial-success
  expect(run.code).toBe(0)
  expect(sent()).toEqual([
    {
      name: 'postgres',
      digest: digestOf(`postgres:${longTag}`),
      deployment_name: 'shop/db/postgres'
    },
    {
      name: 'ghcr.io/acme/agent',
      version: '3',
      digest: digestOf('ghcr.io/acme/agent:3'),
      deployment_name: 'shop/agent/agent'
    }
  ])
  const warnings = warningsOf(run.stdout).join('\n')
  expect(warnings).toContain(
    "1 container is recorded without a version: the image tag is longer than the service's 100 characters for `version`: StatefulSet shop/db container postgres (pod db-0): tag of 111 characters"
  )
  expect(warnings).toContain(
    `1 container was not recorded: the deployment name from \`deployment-name-template\` is empty or longer than the service's 256 characters: DaemonSet ${longNamespace}/${longName} container app`
  )
})

describe('files that are not UTF-8 JSON get a hint', () => {
  const json = JSON.stringify(kubectlList([]))
  const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16()
  test.each([
    [
      'UTF-16 LE with BOM (Windows PowerShell 5.1 `>`)',
      Buffer.from('\ufeff' + json, 'utf16le'),
      'is UTF-16 text (little-endian, with a byte-order mark)'
    ],
    [
      'UTF-16 LE without BOM',
      Buffer.from(json, 'utf16le'),
      'is UTF-16 text (little-endian, without a byte-order mark)'
    ],
    [
      'UTF-16 BE with BOM',
      utf16be('\ufeff' + json),
      'is UTF-16 text (big-endian, with a byte-order mark)'
    ],
    [
      'UTF-16 BE without BOM',
      utf16be(json),
      'is UTF-16 text (big-endian, without a byte-order mark)'
    ],
    ['gzip', gzipSync(json), 'is gzip-compressed: decompress it first'],
    [
      'YAML (`-o yaml`)',
      Buffer.from('apiVersion: v1\nitems: []\nkind: List\n'),
      'is YAML, not JSON'
    ]
  ])('%s', async (_what, bytes, said) => {
    const run = await go(bytes)
    expect(run.code).not.toBe(0)
    const error = errorOf(run.stdout)
    expect(error).toContain(said)
    expect(error).toContain('-o json > cluster.json')
    expect(error).toContain('Out-File -Encoding utf8')
    expect(emulator.requests).toEqual([])
  })
})

describe("a new user's kubectl output", () => {
  test.each([
    [
      "kubectl's messages in the file (`2>&1`)",
      'Warning: batch/v1beta1 CronJob is deprecated in v1.21+\n{"apiVersion":"v1","items":[],"kind":"List"}',
      "starts with a message of kubectl's (`Warning: ...`), not JSON: send only kubectl's output to the file"
    ],
    [
      'one object (`kubectl get pod web-1 -o json`)',
      JSON.stringify(
        running('shop', 'web-1', { kind: 'DaemonSet', name: 'web' }, '2026-01-01T00:00:00Z', [
          container('web', 'ghcr.io/acme/web:1')
        ])
      ),
      'is one `Pod` object, not a list'
    ],
    [
      'no pods (`kubectl get deployments -A -o json`)',
      JSON.stringify(kubectlList([workload('Deployment', 'shop', 'web')])),
      'has no running pod with an image digest to record (it lists no pods: print them with'
    ],
    [
      'only pods without an owner (`kubectl run`)',
      JSON.stringify(
        kubectlList([
          running('default', 'nginx', undefined, '2026-01-01T00:00:00Z', [
            container('nginx', 'nginx:1.27')
          ])
        ])
      ),
      "(of its 1 pod, none is running under a ReplicaSet, DaemonSet, StatefulSet or Job, or a finished Job's"
    ],
    [
      'two outputs appended (`>>`)',
      JSON.stringify(kubectlList([])) + '\n' + JSON.stringify(kubectlList([])),
      'holds a second JSON document at byte 79 (two kubectl outputs appended with `>>`?)'
    ],
    [
      "a Windows code page (PowerShell's Set-Content): Zürich in Latin-1",
      Buffer.from(
        JSON.stringify(
          kubectlList([
            workload('StatefulSet', 'shop', 'db', {
              annotations: { 'metadata.github.com/site': 'Zürich' }
            })
          ])
        ),
        'latin1'
      ),
      "is not UTF-8: item [0] has bytes that are not (a file in a Windows code page, as PowerShell's `Set-Content` writes?)"
    ]
  ])('%s: said before any request', async (_what, text, said) => {
    const run = await go(Buffer.isBuffer(text) ? text : Buffer.from(text))
    expect(run.code).not.toBe(0)
    expect(errorOf(run.stdout)).toContain(said)
    expect(emulator.requests).toEqual([])
  })

  // internal/controller/reporting.go, processEvent: "for _, container := range
  // pod.Spec.Containers" then "Also record init containers": ephemeral containers are not
  // recorded. pkg/ociutil/digest.go, ExtractDigest: "ImageID format is typically:
  // docker-pullable://image@sha256:abc123... or docker://sha256:abc123...". A pod without a
  // status has no phase: not Running, not counted; internal/workload/workload.go,
  // HasSupportedOwner: a Node (a static pod's mirror) is not a supported owner.
  test('ephemeral containers, odd image IDs, a missing status, a static pod', async () => {
    const debugged = running(
      'shop',
      'web-n1',
      { kind: 'DaemonSet', name: 'web' },
      '2026-01-01T00:00:00Z',
      [
        {
          name: 'a',
          image: 'ghcr.io/acme/a:1',
          imageID: `docker-pullable://ghcr.io/acme/a@${digestOf('a')}`
        },
        { name: 'b', image: 'ghcr.io/acme/b:1', imageID: `docker://${digestOf('b')}` },
        {
          name: 'c',
          image: 'ghcr.io/acme/c:1',
          imageID: `ghcr.io/acme/c@sha512:${'ab'.repeat(64)}`
        }
      ]
    ) as { spec: Record<string, unknown>; status: Record<string, unknown> }
    debugged.spec['ephemeralContainers'] = [{ name: 'debugger', image: 'busybox:1.36' }]
    debugged.status['ephemeralContainerStatuses'] = [
      { name: 'debugger', imageID: `docker.io/library/busybox@${digestOf('busybox')}` }
    ]
    const statusless = running(
      'shop',
      'db-0',
      { kind: 'StatefulSet', name: 'db' },
      '2026-01-01T00:00:00Z',
      [container('pg', 'postgres:16')]
    ) as Record<string, unknown>
    delete statusless['status']
    const list = kubectlList([
      workload('DaemonSet', 'shop', 'web'),
      debugged,
      workload('StatefulSet', 'shop', 'db'),
      statusless,
      running(
        'kube-system',
        'etcd-node-1',
        { kind: 'Node', name: 'node-1' },
        '2026-01-01T00:00:00Z',
        [container('etcd', 'registry.k8s.io/etcd:3.5')]
      )
    ])
    const run = await go(list)
    expect(run.code).toBe(0)
    expect(sent()).toEqual([
      {
        name: 'ghcr.io/acme/a',
        version: '1',
        digest: digestOf('a'),
        deployment_name: 'shop/web/a'
      },
      { name: 'ghcr.io/acme/b', version: '1', digest: digestOf('b'), deployment_name: 'shop/web/b' }
    ])
    expect(warningsOf(run.stdout).join('\n')).toContain(
      "1 container has no image digest in its pod's status (image not pulled yet, a runtime that reports none, or not sha256) and was not recorded: shop/web-n1/c"
    )
  })
})
