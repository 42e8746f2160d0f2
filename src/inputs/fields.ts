import * as z from 'zod/mini'
import { MAX_TAGS, RUNTIME_RISKS, type RuntimeRisk } from '../shared/limits.js'
import { splitList } from '../shared/text.js'
import { hasControlCharacters } from '../shared/untrusted.js'
import { nameAndVersion } from './image.js'
import { wordOf } from './names.js'

/** Field schemas more than one job's inputs use: each turns a raw string into a typed value. */

/**
 * A string input that `read` turns into a value, reporting each problem through `problem`; the
 * input is refused when any was reported (what `read` returns then does not matter).
 */
export function readText<T>(read: (value: string, problem: (message: string) => void) => T) {
  return z.pipe(
    z.string(),
    z.transform((value: string, ctx) => {
      let refused = false
      const result = read(value, message => {
        refused = true
        ctx.issues.push({ code: 'custom', message, input: value })
      })
      return refused ? z.NEVER : result
    })
  )
}

/**
 * A repository's bare name as the service takes it: letters, digits, `.`, `_` and `-`, at most
 * 100, and not dots alone (`.`, `..`): the one rule for the `repository` input, a deployments
 * item's and a kubectl run's `github_repository`, and the state file's entries.
 */
export function isRepositoryName(name: string): boolean {
  return /^[A-Za-z0-9._-]{1,100}$/.test(name) && !/^\.+$/.test(name)
}

export const oneOf = (values: readonly string[]) => (issue: { input?: unknown }) =>
  `\`${String(issue.input)}\` is not one of ${values.map(v => `\`${v}\``).join(', ')}`

export function boundedText(min: number, max: number) {
  return z.string().check(
    z.minLength(min, { error: `must not be empty` }),
    z.maxLength(max, {
      error: issue =>
        `is ${String((issue.input as string).length)} characters long; at most ${max} are allowed`
    }),
    z.refine(value => !hasControlCharacters(value, '\t\n'), {
      error: 'contains control characters'
    })
  )
}

/** The problem of a name that holds a control character, wherever the name was read. */
const CONTROL_IN_NAME =
  'contains a control character (a line break, a tab, an escape): a name is one line of text'

/** The check of a name read from a file: no control character. */
export const oneLine = z.refine<string>(value => !hasControlCharacters(value), {
  error: CONTROL_IN_NAME
})

/**
 * A name that reaches a record (`environment`, `deployment-name`, `name`, `version`, ...): like
 * `boundedText`, and one line: no control character at all, no tab, no line break.
 */
export function nameText(min: number, max: number) {
  return z.string().check(
    z.minLength(min, { error: `must not be empty` }),
    z.maxLength(max, {
      error: issue =>
        `is ${String((issue.input as string).length)} characters long; at most ${max} are allowed`
    }),
    oneLine
  )
}

export function httpsUrl(max: number) {
  return readText((value, problem) => {
    if (value.length > max) {
      problem(`is ${value.length} characters long; at most ${max} are allowed`)
      return value
    }
    let url: URL
    try {
      url = new URL(value)
    } catch {
      // `user:pass@` in a value that is no URL is still not quoted
      problem(value.includes('@') ? 'is not a URL (not shown)' : `\`${value}\` is not a URL`)
      return value
    }
    if (url.protocol !== 'https:') problem('must be an https:// URL')
    if (url.username || url.password)
      problem(
        'must not carry credentials (`user:password@`, not shown): the URL is published in the ' +
          'artifact metadata, readable by anyone who can read it; give it without them'
      )
    const secret = [...url.searchParams.keys()].find(name => SECRET_PARAMETER.test(name))
    if (secret !== undefined)
      problem(
        `must not carry a credential in its query (\`${secret.slice(0, 40)}=\`, its value not ` +
          'shown): the URL is published in the artifact metadata; give it without the query (a ' +
          'presigned URL is a credential)'
      )
    return value
  })
}

/**
 * A query parameter that carries a credential: a token or key, a password, a signature (a
 * presigned S3 or GCS URL, an Azure SAS `sig`). Such a URL grants access to whoever reads it,
 * and registry-url and artifact-url are published in the artifact metadata.
 */
const SECRET_PARAMETER =
  /token|secret|passw|pwd|signature|credential|api[-_]?key|access[-_]?key|^sig$|^key$|^auth$|^authorization$/i

export const clusterSchema = z
  .string()
  .check(
    z.maxLength(128, { error: 'is longer than 128 characters' }),
    z.regex(/^[A-Za-z0-9._-]+$/, { error: 'may hold only letters, digits, `.`, `_` and `-`' })
  )

/**
 * Accepts `sha256:<hex>`, `<image>@sha256:<hex>` or bare hex; the hex is lower-cased. The image is
 * read as the kubectl path reads it (`nameAndVersion`): `name` without tag and digest, and its tag.
 */
export const digestSchema = readText((value, problem) => {
  const at = value.lastIndexOf('@')
  const image = at > 0 ? value.slice(0, at) : undefined
  const ref = at >= 0 ? value.slice(at + 1) : value
  const colon = ref.indexOf(':')
  const algorithm = colon >= 0 ? ref.slice(0, colon).toLowerCase() : 'sha256'
  const hex = colon >= 0 ? ref.slice(colon + 1) : ref
  if (algorithm !== 'sha256') {
    problem(`only sha256 digests can be recorded, not ${algorithm}`)
    return z.NEVER
  }
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    problem('must be sha256:<64 hex digits>, <image>@sha256:<64 hex digits> or 64 hex digits')
    return z.NEVER
  }
  const { name, version: tag } = image === undefined ? { name: '' } : nameAndVersion(image)
  return {
    digest: `sha256:${hex.toLowerCase()}`,
    ...(name !== '' ? { name } : {}),
    ...(tag !== undefined ? { tag } : {})
  }
})

export const tagsSchema = readText((value, problem) => {
  let entries: Array<[string, unknown]>
  if (value.startsWith('{')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(value)
    } catch {
      problem('looks like JSON but does not parse')
      return z.NEVER
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      problem('must be a JSON object of strings')
      return z.NEVER
    }
    entries = Object.entries(parsed)
  } else {
    entries = []
    for (const item of splitList(value)) {
      const eq = item.indexOf('=')
      if (eq <= 0) {
        problem(`\`${item}\` is not key=value`)
        continue
      }
      entries.push([item.slice(0, eq).trim(), item.slice(eq + 1).trim()])
    }
  }
  // A null-prototype object: keys like __proto__ stay plain keys.
  const tags: Record<string, string> = Object.create(null) as Record<string, string>
  for (const [key, tagValue] of entries) {
    if (typeof tagValue !== 'string') {
      problem(`the value of \`${key}\` is not a string`)
    } else if (key === '') {
      problem('a key is empty')
    } else if (hasControlCharacters(key) || hasControlCharacters(tagValue)) {
      // No control characters, as in every other text input; a tag is one line: no tab, no line break.
      problem(`\`${JSON.stringify(key).slice(1, -1)}\` contains control characters`)
    } else if (Object.prototype.hasOwnProperty.call(tags, key)) {
      problem(`\`${key}\` is given twice`)
    } else {
      tags[key] = tagValue
    }
  }
  if (entries.length > MAX_TAGS) {
    problem(`has ${entries.length} keys; at most ${MAX_TAGS} are allowed`)
  }
  return { ...tags }
})

export const runtimeRisksSchema = readText((value, problem) => {
  // In any letter case, as every enumerated input (see ENUMERATED_INPUTS).
  const given = splitList(value)
  const unknown = given.filter(item => wordOf(RUNTIME_RISKS, item) === undefined)
  if (unknown.length > 0) {
    problem(
      `${unknown.map(u => `\`${u}\``).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not one of ${RUNTIME_RISKS.join(', ')}`
    )
    return z.NEVER
  }
  return [...new Set(given.map(item => wordOf(RUNTIME_RISKS, item) as RuntimeRisk))]
})

export const booleanSchema = readText((value, problem) => {
  if (/^true$/i.test(value)) return true
  if (/^false$/i.test(value)) return false
  problem(`\`${value}\` is not true or false`)
  return z.NEVER
})
