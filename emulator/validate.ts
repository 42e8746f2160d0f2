import type { DeploymentInput } from './state.js'

export interface FieldError {
  resource: string
  field: string
  code: 'missing' | 'missing_field' | 'invalid' | 'already_exists' | 'unprocessable' | 'custom'
  message?: string
  index?: number
  value?: unknown
}

export interface StringRule {
  required?: boolean
  min?: number
  max?: number
  pattern?: RegExp
  oneOf?: readonly string[]
  https?: boolean
}

export const DIGEST = /^sha256:[a-f0-9]{64}$/
export const CLUSTER = /^[a-zA-Z0-9._-]+$/
export const REPO_NAME = /^[A-Za-z0-9.\-_]+$/
export const RUNTIME_RISKS = [
  'critical-resource',
  'internet-exposed',
  'lateral-movement',
  'sensitive-data'
] as const

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isHttpsUrl(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:'
  } catch {
    return false
  }
}

/**
 * Reads fields of one JSON object and collects every problem instead of stopping at the
 * first, as the service reports all of them in one 422.
 */
export class Fields {
  constructor(
    readonly resource: string,
    readonly body: Record<string, unknown>,
    readonly errors: FieldError[] = [],
    readonly prefix = '',
    readonly index?: number
  ) {}

  nested(body: Record<string, unknown>, prefix: string, index: number): Fields {
    return new Fields(this.resource, body, this.errors, prefix, index)
  }

  fail(field: string, code: FieldError['code'], message?: string, value?: unknown): undefined {
    const error: FieldError = { resource: this.resource, field: this.prefix + field, code }
    if (message !== undefined) error.message = message
    if (this.index !== undefined) error.index = this.index
    if (value !== undefined) error.value = value
    this.errors.push(error)
    return undefined
  }

  private present(field: string, required: boolean | undefined): unknown {
    // null counts as absent: clients often send null for fields they leave unset.
    const value = this.body[field] ?? undefined
    if (value === undefined && required) this.fail(field, 'missing_field')
    return value
  }

  string(field: string, rule: StringRule = {}): string | undefined {
    const value = this.present(field, rule.required)
    if (value === undefined) return undefined
    if (typeof value !== 'string')
      return this.fail(field, 'invalid', `${field} must be a string`, value)
    const min = rule.min ?? (rule.required ? 1 : 0)
    if (value.length < min)
      return this.fail(field, 'invalid', `${field} must be at least ${min} characters`, value)
    if (rule.max !== undefined && value.length > rule.max)
      return this.fail(field, 'invalid', `${field} must be at most ${rule.max} characters`, value)
    if (rule.pattern && !rule.pattern.test(value))
      return this.fail(field, 'invalid', `${field} must match ${rule.pattern.source}`, value)
    if (rule.oneOf && !rule.oneOf.includes(value))
      return this.fail(field, 'invalid', `${field} must be one of: ${rule.oneOf.join(', ')}`, value)
    if (rule.https && !isHttpsUrl(value))
      return this.fail(field, 'invalid', `${field} must be an https URL`, value)
    return value
  }

  boolean(field: string, fallback: boolean): boolean {
    const value = this.present(field, false)
    if (value === undefined) return fallback
    if (typeof value !== 'boolean') {
      this.fail(field, 'invalid', `${field} must be a boolean`, value)
      return fallback
    }
    return value
  }

  array(field: string, rule: { required?: boolean; max?: number }): unknown[] | undefined {
    const value = this.present(field, rule.required)
    if (value === undefined) return undefined
    if (!Array.isArray(value)) return this.fail(field, 'invalid', `${field} must be an array`)
    if (rule.max !== undefined && value.length > rule.max)
      return this.fail(field, 'invalid', `${field} must have at most ${rule.max} items`)
    return value
  }

  tags(field: string): Record<string, string> {
    const value = this.present(field, false)
    if (value === undefined) return {}
    if (!isObject(value)) return this.fail(field, 'invalid', `${field} must be an object`) ?? {}
    const entries = Object.entries(value)
    if (entries.length > 5)
      return this.fail(field, 'invalid', `${field} has more than 5 keys`) ?? {}
    const bad = entries.find(([, v]) => typeof v !== 'string')
    if (bad) return this.fail(field, 'invalid', `${field}.${bad[0]} must be a string`) ?? {}
    return value as Record<string, string>
  }

  runtimeRisks(field: string): string[] {
    const value = this.array(field, { max: 4 })
    if (value === undefined) return []
    const allowed: readonly string[] = RUNTIME_RISKS
    if (!value.every(v => typeof v === 'string' && allowed.includes(v)))
      return (
        this.fail(field, 'invalid', `${field} items must be one of: ${allowed.join(', ')}`) ?? []
      )
    if (new Set(value).size !== value.length)
      return this.fail(field, 'invalid', `${field} items must be unique`) ?? []
    return value as string[]
  }
}

/** The artifact fields shared by single creates and cluster items. */
export function readDeployment(f: Fields, statusRequired: boolean): DeploymentInput {
  const name = f.string('name', { required: true, max: 256 })
  const digest = f.string('digest', { required: true, pattern: DIGEST })
  const deploymentName = f.string('deployment_name', { required: true, max: 256 })
  return {
    name: name ?? '',
    digest: digest ?? '',
    version: f.string('version', { min: 1, max: 100 }) ?? null,
    status:
      f.string('status', { required: statusRequired, oneOf: ['deployed', 'decommissioned'] }) ??
      'deployed',
    deployment_name: deploymentName ?? '',
    github_repository: f.string('github_repository', { max: 100, pattern: REPO_NAME }) ?? null,
    tags: f.tags('tags'),
    runtime_risks: f.runtimeRisks('runtime_risks')
  }
}
