import type { ServiceClient } from '../client/client.js'
import type { Log } from '../client/log.js'
import {
  failureOf,
  isFatal,
  messageOf,
  recordIds,
  type RecordEffect,
  type RunResult
} from '../result.js'
import {
  createDeploymentRecord,
  createStorageRecord,
  deploymentRecordKey,
  listDeploymentRecords,
  listStorageRecords
} from '../service/artifacts.js'
import { describeRequest, type RecordRequest } from './requests.js'

/**
 * Sends the record writes in order. A failing write is listed and the next is still tried,
 * unless the failure would repeat for every call: then the rest are not attempted.
 */
export async function writeRecords(
  client: ServiceClient,
  org: string,
  requests: RecordRequest[],
  result: RunResult,
  log: Log
): Promise<void> {
  for (const [index, request] of requests.entries()) {
    const what = describeRequest(request)
    log.info(`Recording ${what} in ${org}`)
    try {
      const answer =
        request.kind === 'storage-record'
          ? await createStorageRecord(client, org, request.body)
          : await createDeploymentRecord(client, org, request.body)
      if (request.kind === 'storage-record') result.storageRecords.push(...answer.value)
      else result.deploymentRecords.push(...answer.value)
      log.info(`Recorded ${what}${ids(answer.value)}`)
      if (answer.warning) log.warning(`${what}: ${answer.warning}`)
      if (answer.value.length === 0) {
        // `return_records: true` was sent: an answer without the record is worth a word.
        result.noRecordReturned.push(request.kind)
        log.warning(
          `${what}: the service accepted the write but returned no record (no id), although ` +
            '`return_records` was sent; it is reported as recorded, and the `no-record-returned` ' +
            'output names it'
        )
      }
      result.done.push(what)
    } catch (error) {
      result.failures.push(failureOf(what, error))
      if (isFatal(error)) {
        result.notAttempted.push(...requests.slice(index + 1).map(describeRequest))
        return
      }
    }
  }
}

/** The dry run: each write it would send, and whether it would create or update a record. */
export async function previewRecords(
  client: ServiceClient,
  org: string,
  requests: RecordRequest[],
  result: RunResult,
  log: Log
): Promise<void> {
  for (const request of requests) {
    const what = describeRequest(request)
    let effect: Exclude<RecordEffect, 'unknown'> | undefined
    try {
      effect = await predictEffect(client, org, request)
    } catch (error) {
      result.failures.push({
        what: `reading the current records for ${what}`,
        message: messageOf(error)
      })
    }
    const { method, path, body } = request
    result.preview.push({ method, path, body, effect })
    log.info(
      `Dry run: would ${method} ${path} (${what})${effect ? `: ${effect}s a record` : ''}\n` +
        JSON.stringify(body, null, 2)
    )
  }
}

/** The upsert rule, applied to the records the service holds for the digest now. */
async function predictEffect(
  client: ServiceClient,
  org: string,
  request: RecordRequest
): Promise<'create' | 'update'> {
  if (request.kind === 'deployment-record') {
    const existing = await listDeploymentRecords(client, org, request.body.digest)
    const wanted = deploymentRecordKey(request.body)
    return existing.some(record => deploymentRecordKey(record) === wanted) ? 'update' : 'create'
  }
  const existing = await listStorageRecords(client, org, request.body.digest)
  const same = existing.some(
    record =>
      record.registry_url === request.body.registry_url &&
      (record.repository ?? '') === (request.body.repository ?? '')
  )
  return same ? 'update' : 'create'
}

/** The ids the service returned; a record without one (the description does not promise it) is left out. */
function ids(records: Array<{ id?: number | null }>): string {
  const known = recordIds(records)
  return known.length > 0 ? `: id ${known.join(', ')}` : ''
}
