import * as z from 'zod/mini'
import type { ServiceClient } from '../client/client.js'
import { path, withQuery } from '../client/paths.js'
import { parseResponse } from './parse.js'

// Built at its first use (`z.lazy`), as the other services' schemas, not when the module loads.
const tagListSchema = z.lazy(() => z.array(z.looseObject({ name: z.string() })))

/**
 * The names of the repository's tags, every page of them (`GET /repos/{o}/{r}/tags`, in no
 * order the caller may count on). Any token that can see the repository may list them.
 */
export async function listTagNames(
  client: ServiceClient,
  owner: string,
  repo: string
): Promise<string[]> {
  const tags = await client.paginate(
    withQuery(path`/repos/${owner}/${repo}/tags`, { per_page: 100 }),
    body => parseResponse(tagListSchema, body, 'tag list')
  )
  return tags.map(tag => tag.name)
}
