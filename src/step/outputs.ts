/**
 * The step's outputs from a RunResult, within GitHub's limits (output-budget.ts): what each holds,
 * how a large one is cut, and the sentence that says so.
 */
import {
  commaList,
  fitOutputs,
  jsonArray,
  jsonWithList,
  OUTPUTS_BUDGET_BYTES,
  sizeOf,
  text,
  type FittedOutputs,
  type OutputSpec
} from './output-budget.js'
import { NO_LEAD_TIME } from '../labels/lead-time.js'
import {
  recordIds,
  type PreviewRequest,
  type RunResult,
  type StepFailure
} from '../shared/result.js'

/**
 * The action's outputs, each with what it holds when there is nothing: `[]` for a JSON array,
 * `{}` for `truncated`, empty for the others (`fromJSON` is only for the JSON ones).
 */
function outputSpecs(result: RunResult): Record<string, OutputSpec> {
  return {
    'deployment-records': jsonArray(result.deploymentRecords),
    // A record the service returned without `id` (the description does not require it) is
    // skipped in the ids outputs; the records outputs still hold it with the fields it had.
    'deployment-record-ids': commaList(recordIds(result.deploymentRecords)),
    'storage-records': jsonArray(result.storageRecords),
    'storage-record-ids': commaList(recordIds(result.storageRecords)),
    'no-record-returned': text(result.noRecordReturned.join(',')),
    'job-id': text(result.jobId === undefined ? '' : String(result.jobId)),
    'job-status': text(result.jobStatus ?? ''),
    errors: jsonArray(result.deploymentErrors),
    decommissioned: jsonArray(result.decommissioned),
    labeled: jsonArray(result.labeled),
    'pull-requests': commaList(result.labeled.map(l => l.number)),
    planned: plannedOutput(result.preview),
    'lead-time': leadTimeOutput(result),
    failed: jsonArray(result.failures.map(failedItem))
  }
}

/** One item of `failed`: every key always there, `null` where it does not apply. */
function failedItem(failure: StepFailure) {
  const request = failure.request
  return {
    what: failure.what,
    method: request?.method ?? null,
    path: request?.path ?? null,
    status: request?.status ?? null,
    request_id: request?.requestId ?? null,
    message: failure.message
  }
}

/**
 * The outputs within GitHub's limits (output-budget.ts), and what was cut: `truncated` is a JSON
 * object of output name to the number of items left out of it, `{}` when nothing was cut.
 */
export function fittedOutputs(result: RunResult, budget = OUTPUTS_BUDGET_BYTES): FittedOutputs {
  const fitted = fitOutputs(outputSpecs(result), budget)
  fitted.outputs['truncated'] = JSON.stringify(fitted.cut)
  return fitted
}

/**
 * The action's outputs. Every one is set on every run, empty when there is nothing, so `fromJSON`
 * always works. `budget` is the action's; the command line gives `Infinity` (its stdout is not
 * an output of a job, nothing is cut).
 */
export function toOutputs(
  result: RunResult,
  budget = OUTPUTS_BUDGET_BYTES
): Record<string, string> {
  return fittedOutputs(result, budget).outputs
}

/** Each cut output in a sentence, for the log and the summary. */
export function describeCuts(fitted: Pick<FittedOutputs, 'cut' | 'total'>): string[] {
  return Object.entries(fitted.cut).map(
    ([name, leftOut]) =>
      `The \`${name}\` output holds the first ${(fitted.total[name] ?? leftOut) - leftOut} of ` +
      `${fitted.total[name] ?? leftOut} items: ${leftOut} were left out to keep the outputs within ` +
      "GitHub's 1 MB per job (the `truncated` output counts them)"
  )
}

/**
 * `planned`: the writes in order. A cluster request is one item holding every deployment (in
 * `body.deployments` and `records`), so it is cut inside: both lists alike, and each deployment
 * left out counts as one item, as does each whole request left out.
 */
function plannedOutput(requests: readonly PreviewRequest[]): OutputSpec {
  // `labels` is the summary's reading of a label write: `planned` holds the request itself.
  const preview = requests.map(({ labels: _summaryOnly, ...request }) => request)
  const entries = (p: PreviewRequest) =>
    Math.max(1, deploymentsOf(p).length, p.records?.length ?? 0)
  const parts = preview.map(p => JSON.stringify(p))
  return {
    full: `[${parts.join(',')}]`,
    count: preview.reduce((n, p) => n + entries(p), 0),
    cut: budget => {
      const kept: string[] = []
      let used = sizeOf('[]')
      for (const [index, request] of preview.entries()) {
        const separator = kept.length > 0 ? sizeOf(',') : 0
        const whole = parts[index] as string
        if (used + separator + sizeOf(whole) <= budget) {
          kept.push(whole)
          used += separator + sizeOf(whole)
          continue
        }
        const later = preview.slice(index + 1).reduce((n, p) => n + entries(p), 0)
        if (request.records) {
          // The most deployments that fit, found by halving.
          const room = budget - used - separator
          let [low, high] = [0, entries(request) - 1]
          let best: string | undefined
          while (low <= high) {
            const n = Math.floor((low + high) / 2)
            const part = JSON.stringify(firstDeployments(request, n))
            if (sizeOf(part) <= room) {
              best = part
              low = n + 1
            } else high = n - 1
          }
          if (best !== undefined) {
            kept.push(best)
            return { value: `[${kept.join(',')}]`, leftOut: entries(request) - high + later }
          }
        }
        return { value: `[${kept.join(',')}]`, leftOut: entries(request) + later }
      }
      return { value: `[${kept.join(',')}]`, leftOut: 0 }
    }
  }
}

/** `lead-time`: the figures always whole, its `pull_requests` cut between items. */
function leadTimeOutput(result: RunResult): OutputSpec {
  const { pull_requests, ...figures } = result.leadTime ?? NO_LEAD_TIME
  return jsonWithList(figures, 'pull_requests', pull_requests)
}

function deploymentsOf(p: PreviewRequest): unknown[] {
  const body = p.body as { deployments?: unknown } | null
  return Array.isArray(body?.deployments) ? body.deployments : []
}

/** A cluster request with its first `n` deployments, in `body.deployments` and `records` alike. */
function firstDeployments(p: PreviewRequest, n: number): PreviewRequest {
  return {
    ...p,
    body: { ...(p.body as object), deployments: deploymentsOf(p).slice(0, n) },
    ...(p.records ? { records: p.records.slice(0, n) } : {})
  }
}
