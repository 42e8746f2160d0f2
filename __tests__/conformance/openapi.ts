/*
 * GitHub's published OpenAPI description (`@octokit/openapi`, the version pinned in
 * scripts/openapi-excerpt.mjs) as the source of truth for the conformance tests.
 *
 * Why this way: the package ships OpenAPI 3.0 only (`generated/api.github.com.json` and a
 * dereferenced `.deref.json` five times its size; no 3.1 variant), and 3.0 schemas are not JSON
 * Schema: `nullable: true` has no meaning there, and `example`, `discriminator` and the `x-*`
 * extensions are not keywords. So the smaller, referenced file is read once per test file and
 * each schema an operation needs is turned into JSON Schema for ajv 8 (with ajv-formats) by a
 * small transform: `$ref`s are inlined (a cycle accepts anything), `nullable: true` becomes
 * `anyOf: [schema, {type: 'null'}]`, and the annotations are dropped. For request bodies the
 * transform also sets `additionalProperties: false` on every object schema that does not say
 * otherwise, so a body field the description does not name is refused.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { ErrorObject, ValidateFunction } from 'ajv'

const require = createRequire(import.meta.url)
const { Ajv } = require('ajv') as typeof import('ajv')
const addFormats = require('ajv-formats') as (ajv: InstanceType<typeof Ajv>) => unknown

type Json = Record<string, unknown>

export interface Parameter {
  name: string
  in: 'path' | 'query' | 'header' | 'cookie'
  required?: boolean
  schema?: Json
}

export interface Operation {
  method: string
  template: string
  operationId: string
  parameters: Parameter[]
  raw: Json
}

export interface Problem {
  where: string
  errors: string
}

/**
 * The endpoints the action calls, and every component they reference, as the pinned package
 * publishes them: `scripts/openapi-excerpt.mjs` writes it from the package and checks it against
 * the package (`__tests__/conformance/excerpt.test.ts`, `.ci/run`).
 */
const SPEC_FILE = new URL('./api.github.com.excerpt.json', import.meta.url)
const DROPPED = new Set(['example', 'examples', 'discriminator', 'xml', 'externalDocs'])

export class Description {
  readonly doc: Json
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true })
  private readonly compiled = new Map<string, ValidateFunction>()
  private readonly templates: Array<{ op: Operation; pattern: RegExp; literal: number }> = []

  constructor() {
    this.doc = JSON.parse(readFileSync(SPEC_FILE, 'utf8')) as Json
    addFormats(this.ajv)
    const paths = this.doc['paths'] as Record<string, Record<string, Json>>
    for (const [template, item] of Object.entries(paths)) {
      const shared = (item['parameters'] as Json[] | undefined) ?? []
      for (const [method, raw] of Object.entries(item)) {
        if (typeof raw !== 'object' || raw === null || !('operationId' in raw)) continue
        const parameters = [...shared, ...((raw['parameters'] as Json[] | undefined) ?? [])].map(
          p => this.resolve(p) as unknown as Parameter
        )
        const op: Operation = {
          method: method.toUpperCase(),
          template,
          operationId: String(raw['operationId']),
          parameters,
          raw
        }
        const source = template
          .split(/(\{[^}]+\})/)
          .map(part =>
            part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')
          )
          .join('')
        // Octokit adds deprecated aliases (`compare/{base}...{head}`): the current template wins.
        const deprecated =
          raw['deprecated'] === true || /^\*\*Deprecated\*\*/.test(String(raw['description']))
        const literal = template.replace(/\{[^}]+\}/g, '').length - (deprecated ? 10_000 : 0)
        this.templates.push({ op, pattern: new RegExp(`^${source}$`), literal })
      }
    }
  }

  /** Follows a `$ref` of this document (`#/components/...`); other values come back as they are. */
  resolve(value: Json): Json {
    let current = value
    for (let hops = 0; typeof current['$ref'] === 'string' && hops < 20; hops++) {
      const pointer = (current['$ref'] as string).replace(/^#\//, '').split('/')
      let target: unknown = this.doc
      for (const part of pointer)
        target = (target as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')]
      current = target as Json
    }
    return current
  }

  /** The operation whose template matches; a template with more literal text wins a tie, a deprecated one loses. */
  match(
    method: string,
    path: string
  ): { op: Operation; params: Record<string, string> } | undefined {
    let best: { op: Operation; params: Record<string, string>; literal: number } | undefined
    for (const { op, pattern, literal } of this.templates) {
      if (op.method !== method) continue
      const found = pattern.exec(path)
      if (!found) continue
      if (best && best.literal >= literal) continue
      const names = [...op.template.matchAll(/\{([^}]+)\}/g)].map(m => m[1] as string)
      const params: Record<string, string> = {}
      names.forEach((name, i) => (params[name] = decodeURIComponent(found[i + 1] ?? '')))
      best = { op, params, literal }
    }
    return best && { op: best.op, params: best.params }
  }

  byId(operationId: string): Operation {
    const found = this.templates.find(t => t.op.operationId === operationId)
    if (!found) throw new Error(`no operation ${operationId} in the description`)
    return found.op
  }

  /** JSON Schema for ajv from a schema of the description (see the comment at the top). */
  toJsonSchema(schema: Json, strictObjects: boolean, seen: string[] = []): Json {
    if (typeof schema['$ref'] === 'string') {
      const ref = schema['$ref']
      if (seen.includes(ref)) return {}
      return this.toJsonSchema(this.resolve(schema), strictObjects, [...seen, ref])
    }
    const out: Json = {}
    for (const [key, value] of Object.entries(schema)) {
      if (DROPPED.has(key) || key.startsWith('x-') || key === 'nullable') continue
      if (key === 'properties' || key === 'patternProperties') {
        out[key] = Object.fromEntries(
          Object.entries(value as Record<string, Json>).map(([name, sub]) => [
            name,
            this.toJsonSchema(sub, strictObjects, seen)
          ])
        )
      } else if (['items', 'additionalProperties', 'not'].includes(key) && isJson(value)) {
        out[key] = this.toJsonSchema(value, strictObjects, seen)
      } else if (['allOf', 'anyOf', 'oneOf'].includes(key) && Array.isArray(value)) {
        // Branches of allOf are checked one by one: closing them would refuse the others' fields.
        const strict = strictObjects && key !== 'allOf'
        out[key] = (value as Json[]).map(sub => this.toJsonSchema(sub, strict, seen))
      } else out[key] = value
    }
    const isObject = out['type'] === 'object' || 'properties' in out
    if (strictObjects && isObject && !('additionalProperties' in out))
      out['additionalProperties'] = false
    return schema['nullable'] === true ? { anyOf: [out, { type: 'null' }] } : out
  }

  /** Validates `value` against a schema of the description; `key` caches the compiled check. */
  check(key: string, schema: Json, strictObjects: boolean, value: unknown): string | undefined {
    let validate = this.compiled.get(key)
    if (!validate) {
      validate = this.ajv.compile(this.toJsonSchema(schema, strictObjects))
      this.compiled.set(key, validate)
    }
    return validate(value) ? undefined : describe(validate.errors)
  }

  /** The JSON schema of the request body, or undefined when the operation takes none. */
  requestSchema(op: Operation): { schema: Json; required: boolean } | undefined {
    const body = op.raw['requestBody'] as Json | undefined
    if (!body) return undefined
    const resolved = this.resolve(body)
    const content = resolved['content'] as Record<string, Json> | undefined
    const schema = content?.['application/json']?.['schema'] as Json | undefined
    return schema && { schema, required: resolved['required'] === true }
  }

  /** The JSON content of a response status: schema and examples (each resolved). */
  response(op: Operation, status: string): { schema?: Json; examples: Array<[string, unknown]> } {
    const responses = op.raw['responses'] as Record<string, Json>
    const response = responses[status] ? this.resolve(responses[status]) : undefined
    const content = (response?.['content'] as Record<string, Json> | undefined)?.[
      'application/json'
    ]
    if (!content) return { examples: [] }
    const examples: Array<[string, unknown]> = []
    if ('example' in content) examples.push(['example', content['example']])
    for (const [name, example] of Object.entries((content['examples'] as Json | undefined) ?? {})) {
      let value: unknown = this.resolve(example as Json)['value']
      // Some examples wrap a `$ref` in `value`.
      if (isJson(value) && typeof value['$ref'] === 'string') value = this.resolve(value)['value']
      examples.push([name, value])
    }
    return { schema: content['schema'] as Json | undefined, examples }
  }
}

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describe(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 5)
    .map(e => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('; ')
}

/** What a recorded request must satisfy; the emulator's `RecordedRequest` has these fields. */
export interface WireRequest {
  method: string
  url: string
  path: string
  headers: Record<string, string>
  body: unknown
}

/**
 * Every way `request` strays from the description: an unknown operation, a path or query
 * parameter outside its schema or not declared, a body outside the requestBody schema (unknown
 * fields refused), or missing the headers the service asks for. `adjust` may amend a body schema
 * (where the description contradicts its own examples).
 */
export function checkRequest(
  description: Description,
  request: WireRequest,
  adjust: (op: Operation, schema: Json) => Json = (_op, schema) => schema
): { op?: Operation; problems: Problem[] } {
  const where = `${request.method} ${request.url}`
  const found = description.match(request.method, request.path)
  if (!found) return { problems: [{ where, errors: 'no operation of the description matches' }] }
  const { op, params } = found
  const problems: Problem[] = []
  const fail = (errors: string | undefined) => errors && problems.push({ where, errors })
  const value = (p: Parameter, raw: string): unknown =>
    p.schema?.['type'] === 'integer' && /^-?\d+$/.test(raw) ? Number(raw) : raw
  for (const p of op.parameters.filter(p => p.in === 'path')) {
    const raw = params[p.name]
    if (raw === undefined) fail(`path parameter ${p.name} missing`)
    else
      fail(
        description
          .check(`${op.operationId}:path:${p.name}`, p.schema ?? {}, false, value(p, raw))
          ?.replace(/^/, `path parameter ${p.name}: `)
      )
  }
  const query = new URLSearchParams(request.url.split('?')[1] ?? '')
  for (const [name, raw] of query) {
    const p = op.parameters.find(p => p.in === 'query' && p.name === name)
    if (!p) fail(`query parameter ${name} is not declared`)
    else
      fail(
        description
          .check(`${op.operationId}:query:${name}`, p.schema ?? {}, false, value(p, raw))
          ?.replace(/^/, `query parameter ${name}: `)
      )
  }
  for (const p of op.parameters.filter(p => p.in === 'query' && p.required))
    if (!query.has(p.name)) fail(`required query parameter ${p.name} missing`)
  const body = description.requestSchema(op)
  if (!body) {
    if (request.body !== undefined) fail('a body where the operation takes none')
  } else if (request.body === undefined) {
    if (body.required) fail('the required body is missing')
  } else {
    fail(
      description
        .check(`${op.operationId}:body`, adjust(op, body.schema), true, request.body)
        ?.replace(/^/, 'body: ')
    )
  }
  const headers = request.headers
  if (headers['accept'] !== 'application/vnd.github+json')
    fail('accept is not the GitHub media type')
  if (!headers['x-github-api-version']) fail('no x-github-api-version header')
  if (!headers['user-agent']) fail('no user-agent header')
  return { op, problems }
}
