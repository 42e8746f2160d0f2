import type { ServiceClient } from '../client/client.js'
import { ServiceError } from '../client/errors.js'
import type { Log } from '../client/log.js'
import { AnswerLostError } from '../client/lost-answer.js'
import {
  failureOf,
  firstLineOf,
  isFatal,
  recordIds,
  type RecordEffect,
  type RunResult
} from '../shared/result.js'
import {
  createDeploymentRecord,
  createStorageRecord,
  deploymentRecordKey,
  listDeploymentRecords,
  listStorageRecords,
  storageRecordPath,
  type StorageRecord,
  type StorageRecordBody
} from '../service/artifacts.js'
import type { WriteAnswer } from '../service/parse.js'
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
          ? await writeStorageRecord(client, org, request.body, what, log)
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

/**
 * The service creates a storage record per write: the published description states no upsert
 * rule for them (deployment and cluster records have one). So a write whose answer was lost after
 * it was sent is not simply sent again: the digest's storage records are read first, and when one
 * equal to the write is there, the lost answer's write took effect and is not repeated.
 */
async function writeStorageRecord(
  client: ServiceClient,
  org: string,
  body: StorageRecordBody,
  what: string,
  log: Log
): Promise<WriteAnswer<StorageRecord[]>> {
  let retriesMade: number | undefined
  for (;;) {
    try {
      return await createStorageRecord(client, org, body, { retriesMade })
    } catch (error) {
      if (!(error instanceof AnswerLostError)) throw error
      retriesMade = error.retriesMade
      log.info(
        `${what}: the answer was lost after the write was sent; reading the digest's storage records ` +
          'before sending it again (the service would add a second record)'
      )
      const equal = (await lookUp(client, org, body)).filter(r => sameStorageRecord(r, body))
      if (equal.length > 0) {
        log.info(`${what}: the service holds it already, so the write took effect; not sent again`)
        return { value: equal.slice(-1) }
      }
    }
  }
}

async function lookUp(
  client: ServiceClient,
  org: string,
  body: StorageRecordBody
): Promise<StorageRecord[]> {
  try {
    return await listStorageRecords(client, org, body.digest)
  } catch (error) {
    // Sending it again blind could add a second record; not sending it could lose it: say so.
    throw new ServiceError({
      method: 'POST',
      path: storageRecordPath(org),
      status: 0,
      serviceMessage:
        'the answer was lost after the write was sent, and reading the storage records of ' +
        `${body.digest} to see whether it took effect failed (${firstLineOf(error)}); it may have ` +
        'been recorded: look at the artifact before running the step again',
      fatal: isFatal(error)
    })
  }
}

/** The write, as the list answers it: what the list does not carry (path, version) is not compared. */
function sameStorageRecord(record: StorageRecord, body: StorageRecordBody): boolean {
  const same = (a: string | null | undefined, b: string | null | undefined) =>
    (a ?? '') === (b ?? '')
  return (
    same(record.digest ?? body.digest, body.digest) &&
    same(record.name, body.name) &&
    same(record.registry_url, body.registry_url) &&
    same(record.repository, body.repository) &&
    same(record.artifact_url, body.artifact_url) &&
    same(record.status, body.status)
  )
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
      result.failures.push(failureOf(`reading the current records for ${what}`, error))
    }
    const { method, path, body } = request
    result.preview.push({ method, path, body, effect })
    log.info(`Dry run: would ${method} ${path} (${what})${effect ? `: ${effect}s a record` : ''}`)
    // One log line each: a log line holds no line break (log-writer.ts escapes one).
    for (const line of JSON.stringify(body, null, 2).split('\n')) log.info(line)
  }
}

/**
 * The upsert rule, applied to the deployment records the service holds for the digest now. A
 * storage record has no upsert rule: every write creates one.
 */
async function predictEffect(
  client: ServiceClient,
  org: string,
  request: RecordRequest
): Promise<'create' | 'update'> {
  if (request.kind === 'storage-record') return 'create'
  const existing = await listDeploymentRecords(client, org, request.body.digest)
  const wanted = deploymentRecordKey(request.body)
  return existing.some(record => deploymentRecordKey(record) === wanted) ? 'update' : 'create'
}

/** The ids the service returned; a record without one (the description does not promise it) is left out. */
function ids(records: Array<{ id?: number | null }>): string {
  const known = recordIds(records)
  return known.length > 0 ? `: id ${known.join(', ')}` : ''
}
