import * as z from 'zod/mini'
import type { ServiceClient } from '../client/client.js'
import { path, withQuery } from '../client/paths.js'
import { parseResponse } from './parse.js'

/** The most files `pulls/{n}/files` lists (the service's documented limit); a larger one is cut. */
export const MAX_PULL_FILES = 3000

/** What the token needs to list a pull request's files, said where the list answers 403/404. */
export const PULL_FILES_PERMISSION =
  "listing a pull request's files needs `pull-requests: read` (add it under `permissions:`; " +
  '`pull-requests: write` includes it)'

// Built at its first use, as the other services' schemas. Only the names are read: a rename
// changed both its old and its new path.
const fileListSchema = z.lazy(() =>
  z.array(
    z.looseObject({
      filename: z.string(),
      previous_filename: z.optional(z.string())
    })
  )
)

export interface PullFiles {
  /** every path the pull request changed, a renamed file's old path too, each once */
  files: string[]
  /** false when the service listed its limit and may have left files out */
  complete: boolean
}

/**
 * The files a pull request changed (`GET /repos/{o}/{r}/pulls/{n}/files`), every page of 100:
 * one read for most pull requests. The service lists at most MAX_PULL_FILES.
 */
export async function listPullFiles(
  client: ServiceClient,
  owner: string,
  repo: string,
  number: number
): Promise<PullFiles> {
  const listed = await client.paginate(
    withQuery(path`/repos/${owner}/${repo}/pulls/${number}/files`, { per_page: 100 }),
    body => parseResponse(fileListSchema, body, 'pull request file list')
  )
  const files = new Set<string>()
  for (const file of listed) {
    files.add(file.filename)
    if (file.previous_filename) files.add(file.previous_filename)
  }
  return { files: [...files], complete: listed.length < MAX_PULL_FILES }
}
