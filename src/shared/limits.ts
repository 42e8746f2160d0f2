/**
 * The service's values and limits that inputs and cluster items share, as its published OpenAPI
 * description gives them (__tests__/conformance/api.github.com.excerpt.json) and README.md's
 * Inputs tell them.
 */
export const RUNTIME_RISKS = [
  'critical-resource',
  'internet-exposed',
  'lateral-movement',
  'sensitive-data'
] as const
export type RuntimeRisk = (typeof RUNTIME_RISKS)[number]
export const DEPLOYMENT_STATUSES = ['deployed', 'decommissioned'] as const
export const STORAGE_STATUSES = ['active', 'eol', 'deleted'] as const
export const MAX_TAGS = 5
/** The most labels one issue or pull request holds: `labels` and `remove-labels` take at most this. */
export const MAX_LABELS_PER_ISSUE = 100

/** Sent as `X-GitHub-Api-Version` unless `api-version` says otherwise. */
export const DEFAULT_API_VERSION = '2026-03-10'
