/**
 * The records GitHub's Kubernetes deployment tracker makes of the synthetic clusters that
 * scripts/kubectl-list.ts `syntheticObjects(n)` prints, worked out by hand from that generator's
 * design and README's rules (never computed with src/). The example table compares every record
 * a `kubernetes-file` example writes with these. When a derivation rule changes, change the
 * literal list below by hand, then the rule function so that the first test of the table
 * (`expectedSynthetic(3)` equals `SYNTHETIC_3`) holds again.
 */
import { createHash } from 'node:crypto'

export interface ExpectedItem {
  namespace: string
  deployment_name: string
  /** the image without tag or digest */
  name: string
  /** the image's tag */
  version: string
  /** `digestOf(this)` is the digest the node pulled (scripts/kubectl-list.ts names digests so) */
  pulled: string
  tags: Record<string, string>
  runtime_risks: string[]
}

/** sha256 of a label, as scripts/kubectl-list.ts names the digests of its images. */
export const digestOf = (label: string) =>
  'sha256:' + createHash('sha256').update(label).digest('hex')

/**
 * `syntheticObjects(3)`, by hand:
 * - workload 0, namespace shop: a Deployment (annotated `team: team-0`) half way through a rollout,
 *   ReplicaSet 6b8f7c5d4 (pods of `:1.0.0` made at 10:00, 10:01) and 7c9d8e6f5 (pods of `:1.1.0`
 *   at 10:10, 10:11): the newest pod wins, so `app` is 1.1.0; every fifth workload has the init
 *   container `setup` of `:1.0.0`. Tags come from the Deployment through the ReplicaSet.
 * - workload 1, namespace payments: a Deployment of one ReplicaSet, pods of `:1.0.0`.
 * - workload 2, namespace search: a DaemonSet (2 % 8 === 2), pods of `:2.0.0`.
 */
export const SYNTHETIC_3: ExpectedItem[] = [
  {
    namespace: 'shop',
    deployment_name: 'shop/svc-0/app',
    name: 'ghcr.io/acme/svc-0',
    version: '1.1.0',
    pulled: 'svc-0:1.1.0',
    tags: { team: 'team-0' },
    runtime_risks: []
  },
  {
    namespace: 'shop',
    deployment_name: 'shop/svc-0/setup',
    name: 'ghcr.io/acme/svc-0',
    version: '1.0.0',
    pulled: 'svc-0:1.0.0',
    tags: { team: 'team-0' },
    runtime_risks: []
  },
  {
    namespace: 'payments',
    deployment_name: 'payments/svc-1/app',
    name: 'ghcr.io/acme/svc-1',
    version: '1.0.0',
    pulled: 'svc-1:1.0.0',
    tags: {},
    runtime_risks: []
  },
  {
    namespace: 'search',
    deployment_name: 'search/svc-2/app',
    name: 'ghcr.io/acme/svc-2',
    version: '2.0.0',
    pulled: 'svc-2:2.0.0',
    tags: {},
    runtime_risks: []
  }
]

const NAMESPACES = ['shop', 'payments', 'search', 'data', 'kube-system']

/**
 * The same, by the generator's design, for a cluster of any size (the job-sized runs): workload i
 * lives in NAMESPACES[i % 5] and is named `svc-i`; i % 4 of 0 is a Deployment mid-rollout (the
 * newer ReplicaSet's `:1.1.0` wins), 1 a Deployment of `:1.0.0`, 2 a DaemonSet or StatefulSet of
 * `:2.0.0`, 3 a CronJob whose Job's succeeded pod runs `:3.0.0` (recorded under the CronJob);
 * every fifth (i % 5 === 0) also has the init container `setup` of `:1.0.0`; every third
 * (i % 3 === 0) is annotated `team: team-<i % 7>`. Every pod has its digests.
 */
export function expectedSynthetic(workloads: number): ExpectedItem[] {
  const items: ExpectedItem[] = []
  for (let i = 0; i < workloads; i++) {
    const namespace = NAMESPACES[i % NAMESPACES.length] as string
    const workload = `svc-${i}`
    const version = ['1.1.0', '1.0.0', '2.0.0', '3.0.0'][i % 4] as string
    const tags: Record<string, string> = i % 3 === 0 ? { team: `team-${i % 7}` } : {}
    const item = (container: string, tag: string): ExpectedItem => ({
      namespace,
      deployment_name: `${namespace}/${workload}/${container}`,
      name: `ghcr.io/acme/${workload}`,
      version: tag,
      pulled: `${workload}:${tag}`,
      tags,
      runtime_risks: []
    })
    items.push(item('app', version))
    if (i % 5 === 0) items.push(item('setup', '1.0.0'))
  }
  return items
}
