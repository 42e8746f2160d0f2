import * as z from 'zod/mini'
import type { ServiceClient } from '../client/client.js'
import { isApiStatus, NoLongerNeeded, ServiceError } from '../client/errors.js'
import { path, withQuery } from '../client/paths.js'
import { parseResponse } from './parse.js'

/** Lenient: unknown fields are kept; `description` may be null. Built at its first use. */
export const labelSchema = z.lazy(() =>
  z.looseObject({
    name: z.string(),
    color: z.nullish(z.string()),
    description: z.nullish(z.string())
  })
)
export type Label = z.infer<typeof labelSchema>
const labelList = z.lazy(() => z.array(labelSchema))

export interface LabelFields {
  color?: string
  description?: string
}

export const repoLabelsPath = (owner: string, repo: string) => path`/repos/${owner}/${repo}/labels`
export const repoLabelPath = (owner: string, repo: string, name: string) =>
  path`/repos/${owner}/${repo}/labels/${name}`
export const issueLabelsPath = (owner: string, repo: string, issue: number) =>
  path`/repos/${owner}/${repo}/issues/${issue}/labels`
export const issueLabelPath = (owner: string, repo: string, issue: number, name: string) =>
  path`/repos/${owner}/${repo}/issues/${issue}/labels/${name}`

/** The repository's label of that name (the service compares names case-insensitively). */
export async function getLabel(
  client: ServiceClient,
  owner: string,
  repo: string,
  name: string
): Promise<Label | undefined> {
  try {
    const response = await client.request('GET', repoLabelPath(owner, repo, name))
    return parseResponse(labelSchema, response.body, 'label')
  } catch (error) {
    if (isApiStatus(error, 404)) return undefined
    throw error
  }
}

/**
 * Creates a label. A 422 `already_exists` (someone created it since it was read) answers
 * `'exists'`: the label is there, which is what the caller wanted.
 */
export async function createLabel(
  client: ServiceClient,
  owner: string,
  repo: string,
  label: { name: string } & LabelFields
): Promise<Label | 'exists'> {
  try {
    const response = await client.request('POST', repoLabelsPath(owner, repo), { body: label })
    return parseResponse(labelSchema, response.body, 'label')
  } catch (error) {
    if (isAlreadyExists(error)) return 'exists'
    throw error
  }
}

export function isAlreadyExists(error: unknown): boolean {
  return (
    error instanceof ServiceError &&
    error.status === 422 &&
    error.validationErrors.some(v => v.code === 'already_exists')
  )
}

export async function updateLabel(
  client: ServiceClient,
  owner: string,
  repo: string,
  name: string,
  fields: LabelFields
): Promise<Label> {
  const response = await client.request('PATCH', repoLabelPath(owner, repo, name), {
    body: fields
  })
  return parseResponse(labelSchema, response.body, 'label')
}

export async function listIssueLabels(
  client: ServiceClient,
  owner: string,
  repo: string,
  issue: number
): Promise<Label[]> {
  return client.paginate(withQuery(issueLabelsPath(owner, repo, issue), { per_page: 100 }), body =>
    parseResponse(labelList, body, 'issue label list')
  )
}

/** The add endpoint (never the replace one): labels others set meanwhile stay. */
export async function addIssueLabels(
  client: ServiceClient,
  owner: string,
  repo: string,
  issue: number,
  labels: string[],
  stillNeeded?: () => Promise<boolean>
): Promise<Label[]> {
  const response = await client.request('POST', issueLabelsPath(owner, repo, issue), {
    body: { labels },
    stillNeeded
  })
  return parseResponse(labelList, response.body ?? [], 'issue label list')
}

/**
 * Takes one label off; `false` when the issue no longer carried it (a 404 to every attempt that
 * was answered, or a re-read after a rate-limit wait found it gone): this request removed nothing.
 */
export async function removeIssueLabel(
  client: ServiceClient,
  owner: string,
  repo: string,
  issue: number,
  name: string,
  stillNeeded?: () => Promise<boolean>
): Promise<boolean> {
  try {
    await client.request('DELETE', issueLabelPath(owner, repo, issue, name), { stillNeeded })
    return true
  } catch (error) {
    // A 404 from the API after an attempt sent without an answer: that attempt took it off.
    // Otherwise someone else did, and this run removed nothing.
    if (isApiStatus(error, 404)) return error.unanswered > 0
    if (error instanceof NoLongerNeeded) return false
    throw error
  }
}
