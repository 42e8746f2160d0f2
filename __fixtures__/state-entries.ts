import {
  InputError,
  parseInputs,
  type FileReader,
  type RawInputs
} from '../src/step/parse-inputs.js'

/**
 * Numbered deployments for the state file's unit tests: `item(n)` is deployment `s<n>` of image
 * `ghcr.io/acme/s<n>`, its digest spelled from `n`.
 */
export const digest = (n: number) => 'sha256:' + n.toString(16).padStart(64, '0')

export const item = (n: number) => ({
  name: `ghcr.io/acme/s${n}`,
  digest: digest(n),
  deployment_name: `s${n}`
})

/** `from`, `from + 1`, … `to`. */
export const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i)

/** The inputs of a run that reads `deployments.json` and keeps `state.json`, for prod-eu-1. */
export const STATE_INPUTS: RawInputs = {
  token: 't',
  'api-url': 'https://api.github.com',
  repository: 'acme/web',
  cluster: 'prod-eu-1',
  environment: 'production',
  'deployments-file': 'deployments.json',
  'state-file': 'state.json'
}

/** What parseInputs makes of `raw` in workspace /work with `files`, or the problems it names. */
export function parsedOrProblems(raw: RawInputs, files: FileReader) {
  try {
    return { inputs: parseInputs(raw, { GITHUB_WORKSPACE: '/work' }, files) }
  } catch (error) {
    if (error instanceof InputError) return { problems: error.problems }
    throw error
  }
}
