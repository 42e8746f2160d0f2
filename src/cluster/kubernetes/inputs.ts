import { closeSync, fstatSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { booleanSchema, isRepositoryName, readText } from '../../inputs/fields.js'
import type { Collector } from '../../inputs/problems.js'
import { FileRefused, openRegularFile } from '../../shared/files.js'
import { splitList } from '../../shared/text.js'
import {
  validateClusterItems,
  type ClusterItem,
  type NamespaceFilter,
  type Workload
} from '../items.js'
import { DEFAULT_DEPLOYMENT_NAME_TEMPLATE, Deriver, type Derived } from './derive.js'
import { ListFormatError, quotedField } from './read-list.js'
import { MAX_KUBERNETES_FILE_BYTES, readList, type ReadList } from './read-objects.js'

export { MAX_KUBERNETES_FILE_BYTES, readObjects } from './read-objects.js'

/** The list kinds kubectl and the API print: `kubectl get a,b -o json` and `GET /api/v1/pods`. */
const LIST_KINDS = ['List', 'PodList']

/** The inputs that only mean something with `kubernetes-file`. */
const OWN_INPUTS = [
  'deployment-name-template',
  'namespaces',
  'exclude-namespaces',
  'allow-empty-cluster',
  'kubernetes-repository'
] as const

export interface KubernetesItems {
  items: ClusterItem[]
  /** Said in the log before anything is sent; each names the object it is about. */
  warnings: string[]
  /** Deployment name to the object it came from, and the owner objects the file lists. */
  workloads: Map<string, Workload>
  listedWorkloads: ReadonlySet<string>
  /** The namespaces read, when a filter is given: what it leaves out is not seen. */
  namespaceFilter?: NamespaceFilter
}

type Env = Record<string, string | undefined>

/**
 * The cluster's items derived from `kubernetes-file` (what kubectl printed), with its inputs;
 * undefined when it is not given (then its own inputs are refused) or when something is wrong
 * (each problem is in `c`).
 */
export function readKubernetesItems(
  c: Collector,
  env: Env,
  { org }: { org?: string } = {}
): KubernetesItems | undefined {
  const earlier = c.problems.length
  const template = c.take('deployment-name-template', templateSchema)
  const repository = c.take('kubernetes-repository', repositorySchema(org))
  const namespaces = c.take('namespaces', namespaceListSchema)
  const excluded = c.take('exclude-namespaces', namespaceListSchema)
  const allowEmpty = c.take('allow-empty-cluster', booleanSchema) ?? false
  if (!c.given('kubernetes-file')) {
    c.refuseGiven(OWN_INPUTS, 'belongs to `kubernetes-file`')
    return undefined
  }
  for (const other of ['deployments', 'deployments-file'] as const) {
    if (c.given(other))
      c.problem('kubernetes-file', `give either \`kubernetes-file\` or \`${other}\`, not both`)
  }
  if (namespaces && excluded) {
    c.problem('exclude-namespaces', 'give either `namespaces` or `exclude-namespaces`, not both')
  }
  if (c.problems.length > earlier) return undefined

  const given = c.text('kubernetes-file')
  const path = isAbsolute(given) ? given : resolve(env['GITHUB_WORKSPACE'] ?? process.cwd(), given)
  const wanted = (namespace: string) =>
    namespaces ? namespaces.has(namespace) : !(excluded?.has(namespace) ?? false)
  const namespaceFilter: NamespaceFilter | undefined = namespaces
    ? { input: 'namespaces', wanted }
    : excluded
      ? { input: 'exclude-namespaces', wanted }
      : undefined
  const filtered = namespaceFilter ? { namespaceFilter } : {}

  let read: ReadList<Derived>
  const deriver = new Deriver(template ?? DEFAULT_DEPLOYMENT_NAME_TEMPLATE)
  try {
    // Opened once: its size checked and its list read through the same descriptor, so the file
    // read is the file checked.
    const fd = openRegularFile(path)
    try {
      const size = fstatSync(fd).size
      if (size > MAX_KUBERNETES_FILE_BYTES) {
        c.problem(
          'kubernetes-file',
          `\`${given}\` is ${size} bytes; at most ${MAX_KUBERNETES_FILE_BYTES} are read`
        )
        return undefined
      }
      read = readList(fd, wanted, deriver, () => deriver.result())
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    if (error instanceof ListFormatError || error instanceof FileRefused) {
      c.problem('kubernetes-file', `\`${given}\` ${error.message}`)
      return undefined
    }
    const code = (error as { code?: string }).code
    c.problem(
      'kubernetes-file',
      `cannot read \`${given}\`${code === 'ENOENT' ? ': no such file' : code ? ` (${code})` : ''}`
    )
    return undefined
  }
  const { kept: derived, listKind, firstBadItem, firstKindless } = read
  if (typeof listKind !== 'string' || !LIST_KINDS.includes(listKind)) {
    c.problem(
      'kubernetes-file',
      `\`${given}\` is not a list of Kubernetes objects: its kind is ${typeof listKind === 'string' ? quotedField(listKind) : 'missing'}, not ${LIST_KINDS.map(k => `\`${k}\``).join(' or ')} (print it with \`kubectl get pods,replicasets,... -A -o json\`)`
    )
    return undefined
  }
  if (firstBadItem) {
    c.problem(
      'kubernetes-file',
      `\`${given}\` is not a list of Kubernetes objects: item [${firstBadItem.index}] ${firstBadItem.message}`
    )
    return undefined
  }
  if (listKind === 'List' && firstKindless !== undefined) {
    c.problem(
      'kubernetes-file',
      `\`${given}\` is not a list of Kubernetes objects: item [${firstKindless}] has no \`kind\``
    )
    return undefined
  }

  if (derived.items.length === 0 && !allowEmpty) {
    const filter = namespaces ? ' in `namespaces`' : excluded ? ' outside `exclude-namespaces`' : ''
    c.problem(
      'kubernetes-file',
      `\`${given}\` has no running pod${filter} with an image digest to record` +
        (derived.pods === 0
          ? ' (it lists no pods: print them with `kubectl get pods,replicasets,deployments,daemonsets,statefulsets,jobs,cronjobs -A -o json`)'
          : derived.counted === 0
            ? ` (of its ${derived.pods} pod${derived.pods === 1 ? '' : 's'}, none is running under a ReplicaSet, DaemonSet, StatefulSet or Job, or a finished Job's; pods without such an owner are not recorded, as by GitHub's tracker)`
            : '') +
        (derived.withoutDigest > 0 ? ` (${derived.withoutDigest} containers have no digest)` : '') +
        (derived.skipped > 0
          ? ` (${derived.skipped} containers have a name over the service's limits)`
          : '') +
        '; set `allow-empty-cluster: true` if an empty cluster is meant'
    )
    return undefined
  }
  const { workloads, listedWorkloads } = derived
  if (derived.items.length === 0)
    return { items: [], warnings: derived.warnings, workloads, listedWorkloads, ...filtered }
  // The same checks as a deployments file. The tracker sends no `github_repository`: the service
  // then attributes an image by its provenance attestation only, and skips one without. Only a
  // repository the user names is sent.
  const { items, problems } = validateClusterItems(
    derived.items,
    'kubernetes-file',
    repository ? { github_repository: repository } : {}
  )
  for (const p of problems) {
    const index = /^\[(\d+)\]/.exec(p.message)?.[1]
    const item = index !== undefined ? derived.items[Number(index)] : undefined
    c.problem(
      p.input,
      item ? p.message.replace(/^\[\d+\]/, `deployment \`${item.deployment_name}\``) : p.message
    )
  }
  if (problems.length > 0) return undefined
  return { items, warnings: derived.warnings, workloads, listedWorkloads, ...filtered }
}

const PLACEHOLDER = /\{\{\s*(namespace|deploymentName|containerName)\s*\}\}/i

/**
 * The names between `{{` and `}}` (no `}` between them), without the white space around them, in
 * one pass: the input is often filled from event text, and a pattern over it (`\s*` on either
 * side of a lazy name) took minutes for `{{` and some thousands of spaces with no `}}`.
 */
function placeholdersIn(value: string): string[] {
  const names: string[] = []
  for (let from = 0; ;) {
    const open = value.indexOf('{{', from)
    const close = open < 0 ? -1 : value.indexOf('}', open + 2)
    if (close < 0) return names
    // The first `}` after `{{` ends every `{{` before it: a name when a second one follows.
    if (value[close + 1] === '}') names.push(value.slice(open + 2, close).trim())
    from = close + 1
  }
}

const templateSchema = readText((value, problem) => {
  // As the tracker refuses to start: one name for every container would be one record.
  if (!PLACEHOLDER.test(value)) {
    problem(
      `\`${value}\` has no placeholder, so every container would get the same deployment name: use \`{{namespace}}\`, \`{{deploymentName}}\` and \`{{containerName}}\``
    )
    return value
  }
  const unknown = placeholdersIn(value).filter(
    name => !/^(namespace|deploymentName|containerName)$/i.test(name)
  )
  if (unknown.length > 0) {
    problem(
      `${unknown.map(u => `\`{{${u}}}\``).join(', ')}: the placeholders are \`{{namespace}}\`, \`{{deploymentName}}\` and \`{{containerName}}\``
    )
  }
  return value
})

const namespaceListSchema = readText((value, problem) => {
  const names = splitList(value)
  const bad = names.filter(n => !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(n))
  if (bad.length > 0)
    problem(
      `${bad.map(b => `\`${b}\``).join(', ')} ${bad.length === 1 ? 'is not a namespace name' : 'are not namespace names'} (lower-case letters, digits and \`-\`, at most 63)`
    )
  return new Set(names)
})

/**
 * `name` or `owner/name` of a repository of `org`, sent as `github_repository` with every
 * container; the bare name is what the service takes.
 */
const repositorySchema = (org: string | undefined) =>
  readText((value, problem) => {
    const slash = value.indexOf('/')
    const owner = slash >= 0 ? value.slice(0, slash) : undefined
    const name = slash >= 0 ? value.slice(slash + 1) : value
    if (!isRepositoryName(name)) {
      problem(`\`${value}\` is not a repository name (\`name\` or \`owner/name\`)`)
      return name
    }
    if (owner !== undefined && org !== undefined && owner.toLowerCase() !== org.toLowerCase())
      problem(
        `\`${value}\` is not a repository of \`org\` (${org}): the service attributes deployments only to the organization's own repositories`
      )
    return name
  })
