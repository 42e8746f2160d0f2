import {
  ApiError,
  notFound,
  paginate,
  validationFailed,
  type Reply,
  type RouteContext
} from './http.js'
import type { Route } from './router.js'
import {
  createLabel,
  ensureLabels,
  findIssue,
  findLabel,
  type IssueState,
  type LabelState
} from './state.js'
import { Fields } from './validate.js'

const WRITE = [['issues=write'], ['pull_requests=write']]
const READ = [['issues=read'], ['pull_requests=read']]
const DOCS = 'https://docs.github.com/rest/issues/labels'
const COLOR = /^[0-9a-fA-F]{6}$/

export function labelJson(ctx: RouteContext, label: LabelState) {
  return {
    id: label.id,
    node_id: label.node_id,
    url: `${ctx.baseUrl}/repos/${ctx.repo}/labels/${encodeURIComponent(label.name)}`,
    name: label.name,
    description: label.description,
    color: label.color,
    default: label.default
  }
}

function labelsJson(ctx: RouteContext, names: string[]) {
  return names.flatMap(name => {
    const label = findLabel(ctx.state, ctx.repo, name)
    return label ? [labelJson(ctx, label)] : []
  })
}

function requireLabel(ctx: RouteContext): LabelState {
  const label = findLabel(ctx.state, ctx.repo, ctx.params.name ?? '')
  if (!label) throw notFound()
  return label
}

/** Resolves the issue of the path; deleted ones answer 410 as the service does. */
export function requireIssue(ctx: RouteContext): IssueState {
  const raw = ctx.params.number ?? ''
  const issue = /^\d+$/.test(raw) ? findIssue(ctx.state, ctx.repo, Number(raw)) : undefined
  if (!issue) throw notFound()
  if (issue.deleted) throw new ApiError(410, 'This issue was deleted')
  return issue
}

function writableIssue(ctx: RouteContext): IssueState {
  const issue = requireIssue(ctx)
  // 403, as the service answers writes to locked conversations (comments); it lets the
  // client's "403 that is not a rate limit" path be exercised without touching permissions.
  if (issue.locked) throw new ApiError(403, 'Unable to modify labels because the issue is locked')
  return issue
}

function listRepoLabels(ctx: RouteContext): Reply {
  const page = paginate(ctx, ctx.state.labels[ctx.repo] ?? [])
  return { status: 200, headers: page.headers, body: page.items.map(l => labelJson(ctx, l)) }
}

function createRepoLabel(ctx: RouteContext): Reply {
  const f = new Fields('Label', ctx.body)
  const name = f.string('name', { required: true })
  const color = f.string('color', { pattern: COLOR })
  const description = f.string('description', { max: 100 })
  if (name !== undefined && name.trim() === '') f.fail('name', 'invalid', 'name must not be blank')
  if (name !== undefined && findLabel(ctx.state, ctx.repo, name)) f.fail('name', 'already_exists')
  if (f.errors.length || name === undefined) throw validationFailed(f.errors)
  const label = createLabel(ctx.state, ctx.repo, { name, color, description })
  return { status: 201, body: labelJson(ctx, label) }
}

function getRepoLabel(ctx: RouteContext): Reply {
  return { status: 200, body: labelJson(ctx, requireLabel(ctx)) }
}

function renameOnIssues(ctx: RouteContext, from: string, to: string | undefined): void {
  for (const issue of ctx.state.issues[ctx.repo] ?? []) {
    issue.labels = issue.labels.flatMap(name => (name === from ? (to ? [to] : []) : [name]))
  }
}

function updateRepoLabel(ctx: RouteContext): Reply {
  const label = requireLabel(ctx)
  const f = new Fields('Label', ctx.body)
  const newName = f.string('new_name', { min: 1 })
  const color = f.string('color', { pattern: COLOR })
  const description = f.string('description', { max: 100 })
  const clash = newName !== undefined ? findLabel(ctx.state, ctx.repo, newName) : undefined
  if (clash && clash !== label) f.fail('name', 'already_exists')
  if (f.errors.length) throw validationFailed(f.errors)
  if (newName !== undefined && newName !== label.name) {
    renameOnIssues(ctx, label.name, newName)
    label.name = newName
  }
  if (color !== undefined) label.color = color.toLowerCase()
  if (description !== undefined) label.description = description
  return { status: 200, body: labelJson(ctx, label) }
}

function deleteRepoLabel(ctx: RouteContext): Reply {
  const label = requireLabel(ctx)
  const labels = ctx.state.labels[ctx.repo] ?? []
  labels.splice(labels.indexOf(label), 1)
  renameOnIssues(ctx, label.name, undefined)
  return { status: 204 }
}

function listIssueLabels(ctx: RouteContext): Reply {
  const issue = requireIssue(ctx)
  const page = paginate(ctx, labelsJson(ctx, issue.labels))
  return { status: 200, headers: page.headers, body: page.items }
}

/** Label names of an add or set body; the service also takes `{name}` objects as items. */
function readLabelNames(ctx: RouteContext, allowEmpty: boolean): string[] {
  const f = new Fields('Label', ctx.body)
  const value = ctx.body.labels
  // A single label may be passed as a bare string when setting labels.
  const list =
    allowEmpty && typeof value === 'string' ? [value] : f.array('labels', { required: true })
  if (!list) throw validationFailed(f.errors)
  if (!allowEmpty && list.length === 0)
    f.fail('labels', 'invalid', 'labels must contain at least one label')
  const names = list.flatMap((item, index) => {
    const name =
      typeof item === 'object' && item !== null ? (item as { name?: unknown }).name : item
    if (typeof name === 'string' && name.trim() !== '') return [name]
    f.fail(`labels[${index}]`, 'invalid', 'a label must be a non-empty string', item)
    return []
  })
  if (f.errors.length) throw validationFailed(f.errors)
  return names
}

function addIssueLabels(ctx: RouteContext): Reply {
  const issue = writableIssue(ctx)
  const names = readLabelNames(ctx, false)
  const added = ensureLabels(ctx.state, ctx.repo, names)
  issue.labels = [...issue.labels, ...added.filter(name => !issue.labels.includes(name))]
  return { status: 200, body: labelsJson(ctx, issue.labels) }
}

function setIssueLabels(ctx: RouteContext): Reply {
  const issue = writableIssue(ctx)
  issue.labels = ensureLabels(ctx.state, ctx.repo, readLabelNames(ctx, true))
  return { status: 200, body: labelsJson(ctx, issue.labels) }
}

function clearIssueLabels(ctx: RouteContext): Reply {
  writableIssue(ctx).labels = []
  return { status: 204 }
}

function removeIssueLabel(ctx: RouteContext): Reply {
  const issue = writableIssue(ctx)
  const wanted = (ctx.params.name ?? '').toLowerCase()
  const kept = issue.labels.filter(name => name.toLowerCase() !== wanted)
  if (kept.length === issue.labels.length) throw notFound('Label does not exist')
  issue.labels = kept
  return { status: 200, body: labelsJson(ctx, issue.labels) }
}

function listMilestoneLabels(ctx: RouteContext): Reply {
  const raw = ctx.params.milestone ?? ''
  const milestone = /^\d+$/.test(raw) ? Number(raw) : NaN
  const issues = (ctx.state.issues[ctx.repo] ?? []).filter(
    issue => issue.milestone === milestone && !issue.deleted
  )
  // Milestones exist only through the issues seeded into them.
  if (issues.length === 0) throw notFound()
  const names = [...new Set(issues.flatMap(issue => issue.labels))]
  const page = paginate(ctx, labelsJson(ctx, names))
  return { status: 200, headers: page.headers, body: page.items }
}

const R = '/repos/:owner/:repo'

export const labelRoutes: Route[] = [
  { method: 'GET', pattern: `${R}/labels`, handler: listRepoLabels, read: true },
  { method: 'POST', pattern: `${R}/labels`, handler: createRepoLabel },
  { method: 'GET', pattern: `${R}/labels/:name`, handler: getRepoLabel, read: true },
  { method: 'PATCH', pattern: `${R}/labels/:name`, handler: updateRepoLabel },
  { method: 'DELETE', pattern: `${R}/labels/:name`, handler: deleteRepoLabel },
  { method: 'GET', pattern: `${R}/issues/:number/labels`, handler: listIssueLabels, read: true },
  { method: 'POST', pattern: `${R}/issues/:number/labels`, handler: addIssueLabels },
  { method: 'PUT', pattern: `${R}/issues/:number/labels`, handler: setIssueLabels },
  { method: 'DELETE', pattern: `${R}/issues/:number/labels`, handler: clearIssueLabels },
  { method: 'DELETE', pattern: `${R}/issues/:number/labels/:name`, handler: removeIssueLabel },
  {
    method: 'GET',
    pattern: `${R}/milestones/:milestone/labels`,
    handler: listMilestoneLabels,
    read: true
  }
].map(({ read, ...route }: Omit<Route, 'permission' | 'scope'> & { read?: boolean }) => ({
  ...route,
  scope: 'repo' as const,
  permission: read ? READ : WRITE,
  docs: DOCS
}))
