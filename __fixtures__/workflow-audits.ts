/**
 * The audit classes of zizmor (docs/audits.md of zizmorcore/zizmor), checked by hand on a parsed
 * workflow: zizmor installs from PyPI only, which the project's machines cannot reach. Each
 * returns its findings in words; __tests__/conformance/workflow-linters.test.ts runs them on
 * every documented workflow, and on one made of every fault.
 */
export interface Step {
  id?: string
  name?: string
  uses?: string
  run?: string
  shell?: string
  with?: Record<string, unknown>
}
export interface Job {
  uses?: string
  permissions?: Record<string, string> | string
  steps?: Step[]
  secrets?: unknown
}
export interface Workflow {
  on?: unknown
  permissions?: Record<string, string> | string
  jobs: Record<string, Job>
}

const SHA_PIN = /^[\w.-]+\/[\w.-]+(\/[\w./-]+)?@[0-9a-f]{40}$/
/** Ours, with its placeholder owner: README says how to pin it (`@<sha> # v1.0.0`). */
const OURS = /^OWNER\/record-deployment@v1$/

export function stepsOf(workflow: Workflow): Array<[string, Step]> {
  return Object.entries(workflow.jobs).flatMap(([name, job]) =>
    (job.steps ?? []).map(step => [name, step] as [string, Step])
  )
}

/** Each `uses:` by a full commit SHA, its version in a comment on the same line (zizmor: unpinned-uses, ref-version-mismatch). */
export function unpinnedUses(text: string, workflow: Workflow): string[] {
  const uses = [
    ...stepsOf(workflow).map(([, s]) => s.uses),
    ...Object.values(workflow.jobs).map(j => j.uses)
  ].filter((u): u is string => u !== undefined && !u.startsWith('./') && !OURS.test(u))
  return uses.flatMap(u => {
    if (!SHA_PIN.test(u)) return [`${u}: not pinned by a full commit SHA`]
    const line = text.split('\n').find(l => l.includes(u)) ?? ''
    return new RegExp(
      `${u.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} # v\\d+(\\.\\d+){0,2}\\s*$`
    ).test(line)
      ? []
      : [`${u}: no \`# vX.Y.Z\` comment naming the version`]
  })
}

/** What each job's steps use, in permission scopes: the most a job may be granted. */
export function scopesUsed(
  job: Job,
  called: (path: string) => Workflow | undefined
): Record<string, string> {
  const used: Record<string, string> = {}
  const need = (scope: string, level: 'read' | 'write') => {
    if (used[scope] !== 'write') used[scope] = level
  }
  if (job.uses) {
    // a caller grants what the called workflow's jobs use (their token has no more)
    const workflow = called(job.uses)
    for (const inner of Object.values(workflow?.jobs ?? {}))
      for (const [scope, level] of Object.entries(scopesUsed(inner, called)))
        need(scope, level as 'read' | 'write')
    return used
  }
  for (const step of job.steps ?? []) {
    const uses = step.uses ?? ''
    const run = step.run ?? ''
    const given = (name: string) => String(step.with?.[name] ?? '') !== ''
    if (/^actions\/checkout@/.test(uses)) need('contents', 'read')
    if (/\/record-deployment@/.test(uses)) {
      const dryRun = /^true$/i.test(String(step.with?.['dry-run'] ?? ''))
      // `environment` alone (no digest) names the environment for `since: previous-deployment`
      const records = ['digest', 'deployments', 'deployments-file', 'kubernetes-file']
      if (records.some(given)) need('artifact-metadata', dryRun ? 'read' : 'write')
      if (given('labels') || given('remove-labels')) {
        need('contents', 'read') // the commits that name the pull requests
        need('pull-requests', dryRun ? 'read' : 'write')
        need('issues', dryRun ? 'read' : 'write')
      }
      if (/^previous-deployment$/i.test(String(step.with?.['since'] ?? '')))
        need('deployments', 'read')
    }
    if (/^docker\/build-push-action@/.test(uses) && String(step.with?.['push']) === 'true')
      need('packages', 'write')
    if (/\bgh release create\b/.test(run)) need('contents', 'write')
    if (/\bnpm publish\b.*--provenance/.test(run)) need('id-token', 'write')
  }
  return used
}

/**
 * `permissions: {}` (or read-only) at the workflow level and each job granting no more than its
 * steps use, and no less (zizmor: excessive-permissions); whole workflows only.
 */
export function excessivePermissions(
  workflow: Workflow,
  called: (path: string) => Workflow | undefined
): string[] {
  const found: string[] = []
  const top = workflow.permissions
  if (typeof top === 'string') found.push(`workflow: permissions: ${top}`)
  for (const [scope, level] of Object.entries(typeof top === 'object' ? top : {}))
    if (level !== 'read' || scope !== 'contents')
      found.push(`workflow: ${scope}: ${level} for every job`)
  for (const [name, job] of Object.entries(workflow.jobs)) {
    if (top === undefined && job.permissions === undefined)
      found.push(`${name}: no permissions: the token has the repository's default ones`)
    if (typeof job.permissions === 'string') found.push(`${name}: permissions: ${job.permissions}`)
    const granted = {
      ...(typeof top === 'object' ? top : {}),
      ...(typeof job.permissions === 'object' ? job.permissions : {})
    }
    const used = scopesUsed(job, called)
    for (const [scope, level] of Object.entries(granted)) {
      if (level === 'none' || (scope === 'contents' && level === 'read')) continue
      if (used[scope] === undefined) found.push(`${name}: ${scope}: ${level}, which no step uses`)
      else if (level === 'write' && used[scope] === 'read')
        found.push(`${name}: ${scope}: write, where read is enough`)
    }
    for (const [scope, level] of Object.entries(used)) {
      const has = granted[scope]
      if (has !== undefined && (level !== 'write' || has === 'write')) continue
      // a called workflow's job is checked against its caller's grant when GitHub loads the run
      found.push(
        job.uses
          ? `${name}: ${scope}: ${level} is requested by the called job and not granted: GitHub ` +
              `refuses the run before any job starts (The nested job '${name}' is requesting ` +
              `'${scope}: ${level}', but is only allowed '${scope}: ${has ?? 'none'}')`
          : `${name}: ${scope}: ${level} is used and not granted: the step would fail`
      )
    }
  }
  return found
}

/** An expression pasted into a script (zizmor: template-injection): values go through `env:`. */
export const templateInjection = (workflow: Workflow) =>
  stepsOf(workflow)
    .filter(([, s]) => /\$\{\{/.test(s.run ?? ''))
    .map(([job, s]) => `${job}: ${s.name ?? s.run}: an expression in run:`)

/** A checkout that leaves the token in .git/config (zizmor: artipacked). */
export const artipacked = (workflow: Workflow) =>
  stepsOf(workflow)
    .filter(
      ([, s]) =>
        /^actions\/checkout@/.test(s.uses ?? '') && s.with?.['persist-credentials'] !== false
    )
    .map(([job]) => `${job}: actions/checkout without persist-credentials: false`)

/** A cache restored where something is published (zizmor: cache-poisoning). */
export function cachePoisoning(workflow: Workflow): string[] {
  const on = JSON.stringify(workflow.on ?? {})
  const releaseTrigger = /"release"|"tags"/.test(on)
  return Object.entries(workflow.jobs).flatMap(([name, job]) => {
    const steps = job.steps ?? []
    const publishes = steps.some(
      s =>
        /\bnpm publish\b|\bdocker (image )?push\b|\bgh release create\b/.test(s.run ?? '') ||
        (/^docker\/build-push-action@/.test(s.uses ?? '') && String(s.with?.['push']) === 'true')
    )
    if (!releaseTrigger && !publishes) return []
    return steps
      .filter(
        s => /^actions\/cache(\/restore)?@/.test(s.uses ?? '') || s.with?.['cache'] !== undefined
      )
      .map(s => `${name}: ${s.uses}: a cache restored in a job that publishes or a release run`)
  })
}

/** pull_request_target and workflow_run (zizmor: dangerous-triggers); `secrets: inherit`. */
export function dangerousTriggers(workflow: Workflow): string[] {
  const on = workflow.on
  const events = typeof on === 'string' ? [on] : Array.isArray(on) ? on : Object.keys(on ?? {})
  return [
    ...events.filter(e => e === 'pull_request_target' || e === 'workflow_run').map(e => `on: ${e}`),
    ...Object.entries(workflow.jobs)
      .filter(([, job]) => job.secrets === 'inherit')
      .map(([name]) => `${name}: secrets: inherit`)
  ]
}
