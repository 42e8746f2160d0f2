/**
 * A synthetic cluster of any size (the example table, the benchmark) and a writer that streams a
 * list to a file one object at a time (the benchmark's 20k pods).
 */
import { closeSync, openSync, writeSync } from 'node:fs'
import { type Json, G, digestOf, pod, workload } from './objects.js'

const NAMESPACES = ['shop', 'payments', 'search', 'data', 'kube-system']

/**
 * The objects of a clean synthetic cluster of `workloads` workloads (Deployments with two pods,
 * every fourth mid-rollout, DaemonSets, StatefulSets and CronJobs; init containers on every
 * fifth), each pod padded to about `padEnv` environment entries. Every pod has its digests.
 */
export function* syntheticObjects(
  workloads: number,
  { podsPerDeployment = 2, padEnv = 0 }: { podsPerDeployment?: number; padEnv?: number } = {}
): Generator<Json> {
  for (let i = 0; i < workloads; i++) {
    const namespace = NAMESPACES[i % NAMESPACES.length] as string
    const name = `svc-${i}`
    const image = (tag: string) => ({
      name: 'app',
      image: `ghcr.io/acme/${name}:${tag}`,
      imageID: `ghcr.io/acme/${name}@${digestOf(`${name}:${tag}`)}`
    })
    const init = i % 5 === 0 ? { initContainers: [{ ...image('1.0.0'), name: 'setup' }] } : {}
    const annotations = i % 3 === 0 ? { annotations: { [`${G}team`]: `team-${i % 7}` } } : {}
    const created = (minute: number) =>
      `2026-01-0${1 + (i % 9)}T10:${String(minute).padStart(2, '0')}:00Z`
    switch (i % 4) {
      case 0:
      case 1: {
        yield workload('Deployment', namespace, name, annotations)
        const hashes = i % 4 === 0 ? ['6b8f7c5d4', '7c9d8e6f5'] : ['5d7e6c4b3']
        for (const [r, hash] of hashes.entries()) {
          const rs = `${name}-${hash}`
          yield workload('ReplicaSet', namespace, rs, { owner: { kind: 'Deployment', name } })
          for (let p = 0; p < podsPerDeployment; p++) {
            yield pod({
              namespace,
              name: `${rs}-p${p}x${r}`,
              owner: { kind: 'ReplicaSet', name: rs },
              labels: { 'pod-template-hash': hash },
              phase: 'Running',
              created: created(r * 10 + p),
              containers: [image(`1.${r}.0`)],
              padEnv,
              ...init
            })
          }
        }
        break
      }
      case 2: {
        const kind = i % 8 === 2 ? 'DaemonSet' : 'StatefulSet'
        yield workload(kind, namespace, name, annotations)
        for (let p = 0; p < podsPerDeployment; p++) {
          yield pod({
            namespace,
            name: kind === 'StatefulSet' ? `${name}-${p}` : `${name}-n${p}`,
            owner: { kind, name },
            phase: 'Running',
            created: created(p),
            containers: [image('2.0.0')],
            padEnv,
            ...init
          })
        }
        break
      }
      default: {
        yield workload('CronJob', namespace, name, annotations)
        const job = `${name}-29401440`
        yield workload('Job', namespace, job, { owner: { kind: 'CronJob', name } })
        yield pod({
          namespace,
          name: `${job}-r2d2c`,
          owner: { kind: 'Job', name: job },
          phase: 'Succeeded',
          created: created(0),
          containers: [image('3.0.0')],
          padEnv,
          ...init
        })
      }
    }
  }
}

/** Writes a list of `objects` to `path` one object at a time, as kubectl prints it. */
export function writeKubectlList(path: string, objects: Iterable<Json>, kind = 'List'): number {
  const fd = openSync(path, 'w')
  let bytes = 0
  const write = (text: string) => {
    bytes += writeSync(fd, text)
  }
  try {
    write('{\n    "apiVersion": "v1",\n    "items": [')
    let first = true
    let batch = ''
    for (const object of objects) {
      batch += (first ? '\n' : ',\n') + JSON.stringify(object, null, 4)
      first = false
      if (batch.length > 1 << 20) {
        write(batch)
        batch = ''
      }
    }
    write(batch)
    write(
      `\n    ],\n    "kind": "${kind}",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n`
    )
  } finally {
    closeSync(fd)
  }
  return bytes
}
