import * as z from 'zod/mini'
import {
  parseClusterInputs,
  wantsWholeCluster,
  type ClusterInputs,
  type FileReader
} from '../cluster/inputs.js'
import {
  LABEL_INPUT_NAMES,
  isPreviousDeploymentWord,
  parseLabelInputs,
  type LabelInputs
} from '../labels/inputs.js'
import { parseRecordInputs, type RecordInputs } from '../records/inputs.js'
import { readConnection, type Connection } from '../inputs/connection.js'
import { readText, booleanSchema, nameText } from '../inputs/fields.js'
import { INPUT_DEFAULTS, withoutDefaults, type RawInputs } from '../inputs/names.js'
import { Collector, InputError, type InputProblem } from '../inputs/problems.js'

export { INPUT_DEFAULTS, INPUT_NAMES, readRawInputs, withoutDefaults } from '../inputs/names.js'
export type { InputName, RawInputs } from '../inputs/names.js'
export { InputError, type InputProblem } from '../inputs/problems.js'
export type { Connection } from '../inputs/connection.js'
export type { Artifact, DeploymentRecordInput, StorageRecordInput } from '../records/inputs.js'
export type { ClusterInputs } from '../cluster/inputs.js'
export { defaultDeploymentName } from '../records/inputs.js'
export type { FileReader } from '../cluster/inputs.js'

export const MAX_RETRIES_LIMIT = 10
export const DEFAULT_MAX_RETRIES = Number(INPUT_DEFAULTS['max-retries'])
/** `time-budget`, in minutes: at most a day (a job runs at most 360 minutes, a self-hosted one longer). */
export const TIME_BUDGET_LIMIT = 1440
export const DEFAULT_TIME_BUDGET = Number(INPUT_DEFAULTS['time-budget'])

export interface Inputs {
  connection: Connection
  /** The artifact of the storage and / or deployment record. */
  artifact?: RecordInputs['artifact']
  deployment?: RecordInputs['deployment']
  storage?: RecordInputs['storage']
  cluster?: ClusterInputs
  labels?: LabelInputs
  dryRun: boolean
  maxRetries: number
  /** `job-summary`: write the job summary (the command line writes none either way). */
  jobSummary: boolean
  /** minutes the step's rate-limit waits may reach, from its start (`time-budget`) */
  timeBudget: number
}

type Env = Record<string, string | undefined>

/** The problem when no job was asked for (on `environment`, the input most runs set). */
export const NOTHING_TO_DO =
  'nothing to do: set `environment` for a deployment record, `registry-url` for a storage record, `deployments` for a whole cluster, or `labels` / `remove-labels`'

/**
 * Turns raw inputs into the typed object `run()` takes, or throws an `InputError` naming each
 * bad one. Each job parses its own inputs; what spans jobs is decided here.
 */
export function parseInputs(raw: RawInputs, env: Env = process.env, files?: FileReader): Inputs {
  raw = withoutDefaults(raw)
  const c = new Collector(raw)
  const { connection, repository } = readConnection(c, env)
  const wholeCluster = wantsWholeCluster(raw)
  // `since: previous-deployment` names its environment with `environment`; without `digest` (and
  // a whole cluster) no record is asked for: `environment` is then the labels' alone.
  const labelsEnvironment =
    isPreviousDeploymentWord(raw['since'] ?? '') && !wholeCluster && !c.given('digest')
      ? c.take('environment', nameText(1, 128))
      : undefined
  const records = parseRecordInputs(
    labelsEnvironment !== undefined || c.failed('environment')
      ? { ...raw, environment: undefined }
      : raw,
    { wholeCluster }
  )
  const cluster = parseClusterInputs(raw, env, files, {
    serviceRepository: connection?.serviceRepository,
    org: connection?.org
  })
  const labels = parseLabelInputs(raw)
  const dryRun = c.take('dry-run', booleanSchema) ?? false
  const maxRetries = c.take('max-retries', maxRetriesSchema) ?? DEFAULT_MAX_RETRIES
  const jobSummary = c.take('job-summary', booleanSchema) ?? true
  const timeBudget = c.take('time-budget', timeBudgetSchema) ?? DEFAULT_TIME_BUDGET

  const problems: InputProblem[] = [
    ...c.problems,
    ...records.problems,
    ...cluster.problems,
    ...labels.problems
  ]
  if (labels.value !== undefined && repository === undefined && !c.failed('repository')) {
    problems.push({
      input: 'repository',
      message: 'is required for labels: the repository whose issues and pull requests get them'
    })
  }
  const previousDeployment = labels.value?.previousDeployment && {
    environment:
      labelsEnvironment ??
      records.value?.deployment?.logicalEnvironment ??
      cluster.value?.logicalEnvironment
  }
  if (
    previousDeployment &&
    previousDeployment.environment === undefined &&
    !c.failed('environment') &&
    !c.given('environment')
  ) {
    problems.push({
      input: 'since',
      message:
        '`previous-deployment` starts at the previous successful deployment of `environment`, ' +
        'which is empty: set `environment` to the environment the job deploys to (its ' +
        '`environment:`), or set `since` to a ref or sha'
    })
  }
  const labelsFailed = labels.problems.some(p =>
    (LABEL_INPUT_NAMES as readonly string[]).includes(p.input)
  )
  if (!records.wanted && !wholeCluster && labels.value === undefined && !labelsFailed) {
    problems.push({
      input: 'environment',
      message: NOTHING_TO_DO
    })
  }
  if (problems.length > 0 || !connection) throw new InputError(problems)
  return {
    connection,
    artifact: records.value?.artifact,
    deployment: records.value?.deployment,
    storage: records.value?.storage,
    cluster: cluster.value,
    labels:
      labels.value && previousDeployment ? { ...labels.value, previousDeployment } : labels.value,
    dryRun,
    maxRetries,
    jobSummary,
    timeBudget
  }
}

const maxRetriesSchema = readText((value, problem) => {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n > MAX_RETRIES_LIMIT) {
    problem(`\`${value}\` is not a whole number from 0 to ${MAX_RETRIES_LIMIT}`)
    return z.NEVER
  }
  return n
})

const timeBudgetSchema = readText((value, problem) => {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < 1 || n > TIME_BUDGET_LIMIT) {
    problem(`\`${value}\` is not a whole number of minutes from 1 to ${TIME_BUDGET_LIMIT}`)
    return z.NEVER
  }
  return n
})
