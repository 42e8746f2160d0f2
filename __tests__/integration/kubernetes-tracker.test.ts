/**
 * `kubernetes-file` agrees with GitHub's Kubernetes deployment tracker (github/deployment-tracker),
 * and drops nothing without a word: each test quotes the tracker's rule it holds (file path in
 * that repository), builds the kubectl output by hand and says what must be sent, worked out by
 * hand from the rule. All run the bundled action, as the runner starts it, against the emulator.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { TOKEN, withEmulator, writesOf } from '../../__fixtures__/emulator.js'
import type { Emulator } from '../../emulator/index.js'
import {
  digestOf,
  kubectlList,
  pod,
  realisticCluster,
  REALISTIC_ITEMS,
  workload,
  type ContainerSpec
} from '../../scripts/kubectl-list.js'
import { runAction } from '../../scripts/run-action.js'

let emulator: Emulator
let workspace: string
beforeAll(async () => {
  emulator = await withEmulator({ jobStepMs: 5 })
  workspace = await mkdtemp(join(tmpdir(), 'kubernetes-tracker-'))
})
afterAll(async () => {
  await emulator.close()
  await rm(workspace, { recursive: true, force: true })
})
beforeEach(() => emulator.reset())

let files = 0
/** Writes the list (or raw bytes) into the workspace and runs the action on it. */
async function go(list: unknown, inputs: Record<string, string> = {}) {
  const file = `cluster-${files++}.json`
  await writeFile(
    join(workspace, file),
    Buffer.isBuffer(list) ? list : JSON.stringify(list, null, 4)
  )
  return runAction(
    {
      token: TOKEN,
      'api-url': emulator.url,
      cluster: 'prod-eu-1',
      environment: 'production',
      'kubernetes-file': file,
      ...inputs
    },
    {},
    { context: { repository: 'acme/web', workspace } }
  )
}
const warningsOf = (stdout: string) =>
  stdout
    .split('\n')
    .filter(l => l.startsWith('::warning'))
    .map(l => l.replace(/%0A/g, '\n').replace(/%25/g, '%'))
const errorOf = (stdout: string) =>
  (stdout.split('\n').find(l => l.startsWith('::error')) ?? '').replace(/%0A/g, '\n')
type Sent = Record<string, unknown>
const sent = (): Sent[] =>
  (writesOf(emulator.requests)[0]?.body as { deployments?: Sent[] })?.deployments ?? []
const sentByName = () => Object.fromEntries(sent().map(d => [String(d['deployment_name']), d]))

const container = (name: string, image: string, label = image): ContainerSpec => ({
  name,
  image,
  imageID: `${image.replace(/:[^/:]*$/, '')}@${digestOf(label)}`
})
const running = (
  namespace: string,
  name: string,
  owner: { kind: string; name: string } | undefined,
  created: string,
  containers: ContainerSpec[],
  extra: { phase?: string; annotations?: Record<string, string> } = {}
) =>
  pod({
    namespace,
    name,
    ...(owner ? { owner } : {}),
    phase: extra.phase ?? 'Running',
    created,
    containers,
    ...(extra.annotations ? { annotations: extra.annotations } : {})
  })

describe('github_repository', () => {
  // pkg/deploymentrecord/record.go: "BaseRecord represents a deployment record for the deployment
  // record cluster endpoint." Its fields: name, digest, version, status, deployment_name,
  // runtime_risks, tags. No github_repository: the tracker never sends one.
  test('is not sent for containers from kubectl unless kubernetes-repository names one', async () => {
    const run = await go(realisticCluster())
    expect(run.code).toBe(0)
    expect(sent()).toHaveLength(REALISTIC_ITEMS.length)
    expect(sent().filter(d => 'github_repository' in d)).toEqual([])

    emulator.reset()
    const named = await go(realisticCluster(), { 'kubernetes-repository': 'acme/web' })
    expect(named.code).toBe(0)
    expect(new Set(sent().map(d => d['github_repository']))).toEqual(new Set(['web']))
  })

  test('an image without an attestation is then rejected by the service, not attributed', async () => {
    // Only web 1.5.0 is attested: kube-system's node-exporter and the others are not_found.
    emulator.state.attestedDigests = [digestOf('web:1.5.0')]
    const run = await go(realisticCluster(), { 'partial-success': 'true' })
    expect(run.code).toBe(0)
    const records = emulator.state.deploymentRecords['acme'] ?? []
    expect(records.map(r => r.deployment_name)).toEqual(['shop/web/web'])
    const errors = JSON.parse(run.outputs['errors'] ?? '[]') as Array<{ cause: string }>
    expect(errors).toHaveLength(REALISTIC_ITEMS.length - 1)
    expect(warningsOf(run.stdout).join('\n')).toContain(
      'Deployment kube-system/node-exporter/node-exporter (quay.io/prometheus/node-exporter@sha256:'
    )
  })

  test('kubernetes-repository of another owner is refused before any request', async () => {
    const run = await go(realisticCluster(), { 'kubernetes-repository': 'someone/web' })
    expect(run.code).not.toBe(0)
    expect(errorOf(run.stdout)).toContain(
      'kubernetes-repository: `someone/web` is not a repository of `org` (acme)'
    )
    expect(emulator.requests).toEqual([])
  })
})

describe('deployment names shared by more than one container', () => {
  // internal/controller/config.go: "ValidTemplate verifies that at least one placeholder is
  // present in the provided template"; cmd/deployment-tracker/main.go refuses to start without.
  test('a template without a placeholder is refused before any request', async () => {
    const run = await go(realisticCluster(), { 'deployment-name-template': 'prod-cluster' })
    expect(run.code).not.toBe(0)
    expect(errorOf(run.stdout)).toContain(
      'deployment-name-template: `prod-cluster` has no placeholder'
    )
    expect(emulator.requests).toEqual([])
  })

  const web = [
    workload('Deployment', 'shop', 'web'),
    workload('ReplicaSet', 'shop', 'web-7d9f8', { owner: { kind: 'Deployment', name: 'web' } }),
    running(
      'shop',
      'web-7d9f8-a1',
      { kind: 'ReplicaSet', name: 'web-7d9f8' },
      '2026-01-10T08:00:00Z',
      [container('web', 'ghcr.io/acme/web:2.0'), container('envoy', 'envoyproxy/envoy:v1.30.1')]
    )
  ]

  // internal/controller/reporting.go, makeSyncRecords: "During a rollout the same deployment_name
  // can appear with multiple digests (old and new pods running at once), so we must collapse to a
  // single digest per workload and container name." Here two containers of one pod share the
  // name, which is not a rollout: the one kept (the first; a tie keeps it) is sent, and the other
  // is named in a warning instead of being dropped without a word.
  test('a template without {{containerName}}: the sidecar is named in a warning', async () => {
    const run = await go(kubectlList(web), {
      'deployment-name-template': '{{namespace}}/{{deploymentName}}'
    })
    expect(run.code).toBe(0)
    const warning = warningsOf(run.stdout).find(w => w.includes('more than one workload'))
    expect(warning).toContain('`shop/web` is recorded for Deployment shop/web container web')
    expect(warning).toContain('not for Deployment shop/web container envoy')
    expect(warning).toContain('deployment-name-template')
    expect(sent()).toEqual([
      {
        name: 'ghcr.io/acme/web',
        version: '2.0',
        digest: digestOf('ghcr.io/acme/web:2.0'),
        deployment_name: 'shop/web'
      }
    ])
  })

  // internal/controller/reporting.go, isPreferredSyncPod: "among pods in the same category the
  // most recently created pod wins". The StatefulSet's pod is newer, so it is the one recorded;
  // the Deployment is named in the warning.
  test('a Deployment and a StatefulSet of the same name: one recorded, the other named', async () => {
    const list = kubectlList([
      workload('Deployment', 'cache', 'redis'),
      workload('ReplicaSet', 'cache', 'redis-5f6c7', {
        owner: { kind: 'Deployment', name: 'redis' }
      }),
      running(
        'cache',
        'redis-5f6c7-x',
        { kind: 'ReplicaSet', name: 'redis-5f6c7' },
        '2026-01-01T00:00:00Z',
        [container('redis', 'redis:7.2')]
      ),
      workload('StatefulSet', 'cache', 'redis'),
      running('cache', 'redis-0', { kind: 'StatefulSet', name: 'redis' }, '2026-01-02T00:00:00Z', [
        container('redis', 'redis:7.4')
      ])
    ])
    const run = await go(list)
    expect(run.code).toBe(0)
    const warning = warningsOf(run.stdout).find(w => w.includes('more than one workload'))
    expect(warning).toContain(
      '`cache/redis/redis` is recorded for StatefulSet cache/redis container redis (pod redis-0), not for Deployment cache/redis container redis (pod redis-5f6c7-x)'
    )
    expect(sent()).toEqual([
      {
        name: 'redis',
        version: '7.4',
        digest: digestOf('redis:7.4'),
        deployment_name: 'cache/redis/redis'
      }
    ])
  })

  // A rollout is the one sharing that is meant: no warning (the realistic cluster has one).
  test('a rollout shares a name without a warning', async () => {
    const run = await go(realisticCluster())
    expect(run.code).toBe(0)
    expect(sentByName()['shop/web/web']?.['version']).toBe('1.5.0')
    expect(warningsOf(run.stdout).join('\n')).not.toContain('more than one workload')
  })
})

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

// internal/controller/reporting.go, isPreferredSyncPod: "Running pods are preferred over terminal
// pods; among pods in the same category the most recently created pod wins."
test('a Running pod wins over a newer pod of a finished Job of the same CronJob', async () => {
  const job = (name: string) =>
    workload('Job', 'batch', name, { owner: { kind: 'CronJob', name: 'sync' } })
  const list = kubectlList([
    workload('CronJob', 'batch', 'sync'),
    job('sync-29400000'),
    job('sync-29400060'),
    // concurrencyPolicy: Allow. The older run is still running; the newer one already finished.
    running(
      'batch',
      'sync-29400000-a',
      { kind: 'Job', name: 'sync-29400000' },
      '2026-01-12T10:00:00Z',
      [container('sync', 'ghcr.io/acme/sync:1.0')]
    ),
    running(
      'batch',
      'sync-29400060-b',
      { kind: 'Job', name: 'sync-29400060' },
      '2026-01-12T10:01:00Z',
      [container('sync', 'ghcr.io/acme/sync:1.1')],
      { phase: 'Succeeded' }
    )
  ])
  const run = await go(list)
  expect(run.code).toBe(0)
  expect(sent()[0]?.['version']).toBe('1.0')
  expect(sent()).toEqual([
    {
      name: 'ghcr.io/acme/sync',
      version: '1.0',
      digest: digestOf('ghcr.io/acme/sync:1.0'),
      deployment_name: 'batch/sync/sync'
    }
  ])
})

// internal/workload/workload.go, resolveJobWorkload: "Job not found in cache - try CronJob name
// derivation as fallback. CronJob-created Jobs follow the naming pattern:
// <cronjob-name>-<unix-timestamp>" (the suffix all digits, and the CronJob must exist);
// otherwise "Standalone Job (possibly already deleted)".
test('a pod whose Job was cleaned up belongs to the CronJob of that name prefix when it exists', async () => {
  const list = kubectlList([
    workload('CronJob', 'batch', 'cleanup'),
    // No Job objects listed: they were deleted between kubectl's listing of pods and of jobs.
    running(
      'batch',
      'cleanup-29401440-q',
      { kind: 'Job', name: 'cleanup-29401440' },
      '2026-01-12T02:00:00Z',
      [container('cleanup', 'ghcr.io/acme/cleanup:5')],
      { phase: 'Succeeded' }
    ),
    // Not digits after the last dash: a standalone Job's name.
    running(
      'batch',
      'cleanup-manual-r',
      { kind: 'Job', name: 'cleanup-manual' },
      '2026-01-12T03:00:00Z',
      [container('cleanup', 'ghcr.io/acme/cleanup:5')],
      { phase: 'Succeeded' }
    ),
    // Digits, but no CronJob `report` is listed.
    running(
      'batch',
      'report-42-s',
      { kind: 'Job', name: 'report-42' },
      '2026-01-12T03:00:00Z',
      [container('report', 'ghcr.io/acme/report:1')],
      { phase: 'Failed' }
    )
  ])
  const run = await go(list)
  expect(run.code).toBe(0)
  expect(sent().map(d => d['deployment_name'])).toEqual([
    'batch/cleanup/cleanup',
    'batch/cleanup-manual/cleanup',
    'batch/report-42/report'
  ])
})

describe('rejections by a cluster job', () => {
  const cluster = '/orgs/acme/artifacts/metadata/deployment-record/cluster/prod-eu-1/jobs'
  const list = kubectlList([
    workload('DaemonSet', 'ops', 'a'),
    running('ops', 'a-1', { kind: 'DaemonSet', name: 'a' }, '2026-01-01T00:00:00Z', [
      container('a', 'ghcr.io/acme/a:1')
    ]),
    workload('DaemonSet', 'ops', 'b'),
    running('ops', 'b-1', { kind: 'DaemonSet', name: 'b' }, '2026-01-01T00:00:00Z', [
      container('b', 'ghcr.io/acme/b:1')
    ]),
    workload('DaemonSet', 'ops', 'c'),
    running('ops', 'c-1', { kind: 'DaemonSet', name: 'c' }, '2026-01-01T00:00:00Z', [
      container('c', 'ghcr.io/acme/c:1')
    ])
  ])
  // pkg/deploymentrecord/record.go: "JobError represents a rejected deployment from the async job
  // submission. Name is the image/container name from the deployment record" (`{name, cause}`).
  // Two deployments rejected for the same cause stay two; the final status repeats those of the
  // creation, and names one more: three in all, a warning each.
  test('in the final status, flat or ours, each gets a warning and stays in errors', async () => {
    const atCreation = [
      { name: 'ghcr.io/acme/a', cause: 'not_found' },
      { name: 'ghcr.io/acme/b', cause: 'not_found' }
    ]
    emulator.addFault({
      method: 'POST',
      path: cluster,
      fault: { kind: 'status', status: 202, body: { job_id: 501, errors: atCreation } }
    })
    const ours = {
      cause: 'unauthorized',
      deployment: {
        name: 'ghcr.io/acme/c',
        digest: digestOf('ghcr.io/acme/c:1'),
        deployment_name: 'ops/c/c'
      }
    }
    emulator.addFault({
      method: 'GET',
      path: `${cluster}/501`,
      fault: {
        kind: 'status',
        status: 200,
        body: { job_id: 501, status: 'completed', total_count: 0, errors: [...atCreation, ours] }
      }
    })
    const run = await go(list, { 'cluster-mode': 'job', 'partial-success': 'true' })
    expect(run.code).toBe(0)
    expect(run.outputs['job-status']).toBe('completed')
    expect(JSON.parse(run.outputs['errors'] ?? '[]')).toEqual([...atCreation, ours])
    const rejected = warningsOf(run.stdout).filter(w => w.includes('was not recorded'))
    expect(rejected).toEqual([
      expect.stringContaining(
        'Deployment of image ghcr.io/acme/a (ops/a/a) was not recorded: not_found'
      ),
      expect.stringContaining(
        'Deployment of image ghcr.io/acme/b (ops/b/b) was not recorded: not_found'
      ),
      expect.stringContaining('Deployment ops/c/c (ghcr.io/acme/c@sha256:')
    ])
    expect(rejected[2]).toContain('unauthorized')
  })

  test('without partial-success the final rejections fail the step, counted', async () => {
    emulator.addFault({
      method: 'GET',
      path: /\/jobs\/\d+$/,
      fault: {
        kind: 'status',
        status: 200,
        body: {
          job_id: 1,
          status: 'completed',
          total_count: 2,
          errors: [{ name: 'ghcr.io/acme/c', cause: 'not_found' }]
        }
      }
    })
    const run = await go(list, { 'cluster-mode': 'job' })
    expect(run.code).not.toBe(0)
    expect(errorOf(run.stdout)).toContain('1 of 3 deployments were rejected')
    expect(warningsOf(run.stdout).join('\n')).toContain(
      'Deployment of image ghcr.io/acme/c (ops/c/c) was not recorded: not_found'
    )
  })

  // The description's 202 is `{job_id, errors}` (pkg/deploymentrecord/record.go: "JobResponse
  // represents the 202 Accepted response from CreateClusterJob", JobID `json:"job_id"`). Without
  // a job_id there is no job to follow: an unexpected answer, said in our words.
  test('a 202 without job_id fails the step in our words', async () => {
    emulator.addFault({
      method: 'POST',
      path: cluster,
      fault: {
        kind: 'status',
        status: 202,
        body: {
          errors: [
            {
              cause: 'not_found',
              deployment: {
                name: 'ghcr.io/acme/a',
                digest: digestOf('ghcr.io/acme/a:1'),
                deployment_name: 'ops/a/a'
              }
            }
          ]
        }
      }
    })
    const run = await go(list, { 'cluster-mode': 'job' })
    expect(run.code).not.toBe(0)
    const error = errorOf(run.stdout)
    expect(error).toContain('answered the job for cluster prod-eu-1 with 202 but named no `job_id`')
    expect(error).toContain('whether the 3 deployments were recorded is unknown (1 were rejected')
    expect(run.stdout).not.toMatch(/Invalid input|expected number/)
    expect(JSON.parse(run.outputs['errors'] ?? '[]')).toHaveLength(1)
  })
})

// pkg/deploymentrecord/record.go: "JobStatus represents the response from GetClusterJobStatus"
// with `status`; internal/controller/reporting.go waits until it is "completed" or "failed". An
// answer without a status cannot be followed: said in our words, job-id kept. An odd entry of
// `errors` is left out, the others read.
describe('job status answers off the description', () => {
  const list = kubectlList([
    workload('DaemonSet', 'ops', 'a'),
    running('ops', 'a-1', { kind: 'DaemonSet', name: 'a' }, '2026-01-01T00:00:00Z', [
      container('a', 'ghcr.io/acme/a:1')
    ])
  ])
  test('without `status`: the step fails naming the job, not a schema', async () => {
    emulator.addFault({
      method: 'GET',
      path: /\/jobs\/\d+$/,
      fault: { kind: 'status', status: 200, body: { job_id: 1, state: 'done' } }
    })
    const run = await go(list, { 'cluster-mode': 'job' })
    expect(run.code).not.toBe(0)
    expect(errorOf(run.stdout)).toContain('answered the status of job 1 without a `status`')
    expect(run.stdout).not.toMatch(/Invalid input|expected string/)
    expect(run.outputs['job-id']).toBe('1')
  })

  test('an odd entry of `errors` is left out, the others warned', async () => {
    emulator.addFault({
      method: 'GET',
      path: /\/jobs\/\d+$/,
      fault: {
        kind: 'status',
        status: 200,
        body: {
          job_id: 1,
          status: 'completed',
          errors: [42, { name: 'ghcr.io/acme/a', cause: 'not_found' }]
        }
      }
    })
    const run = await go(list, { 'cluster-mode': 'job', 'partial-success': 'true' })
    expect(run.code).toBe(0)
    expect(run.outputs['job-status']).toBe('completed')
    expect(JSON.parse(run.outputs['errors'] ?? '[]')).toEqual([
      { name: 'ghcr.io/acme/a', cause: 'not_found' }
    ])
    expect(warningsOf(run.stdout).join('\n')).toContain(
      'Deployment of image ghcr.io/acme/a (ops/a/a) was not recorded: not_found'
    )
  })
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
      'is YAML (it starts with `apiVersion: v1`), not JSON'
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
      "starts with a message of kubectl's (`Warning: batch/v1beta1 CronJob is deprecated in v1.21+`), not JSON: send only kubectl's output to the file"
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
