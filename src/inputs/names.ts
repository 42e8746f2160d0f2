import { DEFAULT_API_VERSION, DEPLOYMENT_STATUSES, STORAGE_STATUSES } from '../shared/limits.js'

/** The inputs of the labels job (src/labels/ reads them). */
export const LABEL_INPUT_NAMES = [
  'labels',
  'remove-labels',
  'label-color',
  'label-description',
  'pull-requests',
  'since',
  'paths',
  'label-linked-issues'
] as const

/** Every input the action reads, as action.yml declares them. */
export const INPUT_NAMES = [
  'token',
  'api-url',
  'api-version',
  'org',
  'repository',
  'digest',
  'name',
  'version',
  'status',
  'environment',
  'physical-environment',
  'cluster',
  'deployment-name',
  'tags',
  'runtime-risks',
  'registry-url',
  'artifact-url',
  'registry-repository',
  'storage-path',
  'storage-status',
  'deployments',
  'deployments-file',
  'kubernetes-file',
  'deployment-name-template',
  'namespaces',
  'exclude-namespaces',
  'allow-empty-cluster',
  'kubernetes-repository',
  'cluster-mode',
  'partial-success',
  'job-timeout',
  'state-file',
  'allow-mass-decommission',
  ...LABEL_INPUT_NAMES,
  'dry-run',
  'max-retries',
  'job-summary',
  'time-budget'
] as const

export type InputName = (typeof INPUT_NAMES)[number]
export type RawInputs = Partial<Record<InputName, string>>

/**
 * The literal defaults action.yml declares. The runner fills them in whenever a workflow gives
 * none, so such a value says nothing about what the user wants: it is read as an empty input,
 * and no "belongs to" rule fires on it. (The `${{ github.* }}` defaults of `token`, `api-url` and
 * `repository` evaluate to the run's own values, which are the fallbacks anyway.)
 */
export const INPUT_DEFAULTS = {
  'api-version': DEFAULT_API_VERSION,
  status: 'deployed',
  'storage-status': 'active',
  'deployment-name-template': '{{namespace}}/{{deploymentName}}/{{containerName}}',
  'allow-empty-cluster': 'false',
  'cluster-mode': 'auto',
  'partial-success': 'false',
  'job-timeout': '300',
  'allow-mass-decommission': 'false',
  'pull-requests': 'auto',
  'label-linked-issues': 'false',
  'dry-run': 'false',
  'max-retries': '3',
  'job-summary': 'true',
  'time-budget': '330'
} as const satisfies RawInputs

const BOOLEAN = ['true', 'false'] as const

/**
 * The inputs that take one of a few words, and those words. One rule for all of them: a word is
 * read in any letter case (`Deployed`, `Decommissioned`, `JOB`, `True`) and sent as documented.
 * (`runtime-risks`, a list of such words, follows the same rule in its schema.)
 */
export const ENUMERATED_INPUTS = {
  status: DEPLOYMENT_STATUSES,
  'storage-status': STORAGE_STATUSES,
  'cluster-mode': ['auto', 'sync', 'job'],
  'pull-requests': ['auto', 'none'],
  'allow-empty-cluster': BOOLEAN,
  'partial-success': BOOLEAN,
  'label-linked-issues': BOOLEAN,
  'dry-run': BOOLEAN,
  'job-summary': BOOLEAN
} as const satisfies Partial<Record<InputName, readonly string[]>>

/** The word of `words` that `value` is in any letter case, or undefined. */
export function wordOf(words: readonly string[], value: string): string | undefined {
  const lower = value.trim().toLowerCase()
  return words.find(word => word === lower)
}

/**
 * `raw` with each enumerated word in its documented spelling, and every value that equals its
 * documented default made empty.
 */
export function withoutDefaults(raw: RawInputs): RawInputs {
  const chosen: RawInputs = { ...raw }
  for (const [name, words] of Object.entries(ENUMERATED_INPUTS) as Array<
    [InputName, readonly string[]]
  >) {
    // A value that is none of the words stays as given, so the message quotes the user's text.
    const word = wordOf(words, raw[name] ?? '')
    if (word !== undefined) chosen[name] = word
  }
  for (const [name, value] of Object.entries(INPUT_DEFAULTS) as Array<[InputName, string]>) {
    if ((chosen[name] ?? '').trim().toLowerCase() === value.toLowerCase()) chosen[name] = ''
  }
  return chosen
}

/**
 * Reads the raw inputs through the runner's accessor (`core.getInput`). A value that is a whole
 * `${{ ... }}` expression was never evaluated (the runner evaluates them; `@github/local-action`
 * hands action.yml's defaults over as written): it is read as unset, so the input falls back as
 * documented, and `debug` says so.
 */
export function readRawInputs(
  getInput: (name: string) => string,
  debug: (message: string) => void = () => {}
): RawInputs {
  const raw: RawInputs = {}
  for (const name of INPUT_NAMES) {
    const value = getInput(name)
    if (isUnevaluated(value)) {
      debug(`Input ${name} is \`${value.trim()}\`, an expression nothing evaluated: read as unset`)
      raw[name] = ''
    } else raw[name] = value
  }
  return raw
}

/** A value that is a whole `${{ ... }}` expression, as written in a workflow or action.yml. */
export function isUnevaluated(value: string): boolean {
  return /^\s*\$\{\{[\s\S]*\}\}\s*$/.test(value)
}
