/**
 * Kubernetes lists shaped like what `kubectl get pods,replicasets,deployments,daemonsets,
 * statefulsets,jobs,cronjobs -A -o json` prints: the realistic cluster the tests read (every
 * rule of the derivation in a handful of namespaces), a synthetic one of any size for the
 * example table, and a writer that streams a list to a file (the benchmark's 20k pods).
 * The pieces live in scripts/kubectl/ (objects, realistic, synthetic); this is their one door.
 */
export {
  type ContainerSpec,
  type PodSpec,
  digestOf,
  kubectlList,
  pod,
  workload
} from './kubectl/objects.js'
export { REALISTIC_ITEMS, realisticCluster } from './kubectl/realistic.js'
export { syntheticObjects, writeKubectlList } from './kubectl/synthetic.js'
