/*
 * Every example the published description gives for the 2xx answers of the operations the
 * action uses, served by a tiny HTTP server to the action's own readers in src/service/ through
 * the real client: each must be read without an error and without a warning. See openapi.ts for
 * why the description is read the way it is.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ScaledClock } from '../../__fixtures__/scaled-clock.js'
import { ServiceClient } from '../../src/client/client.js'
import {
  createClusterJob,
  createDeploymentRecord,
  createStorageRecord,
  getClusterJob,
  listDeploymentRecords,
  listStorageRecords,
  setClusterRecords
} from '../../src/service/artifacts.js'
import {
  addIssueLabels,
  createLabel,
  getLabel,
  listIssueLabels,
  removeIssueLabel,
  updateLabel
} from '../../src/service/labels.js'
import { compareCommits, getIssue, getPull, pullsForCommit } from '../../src/service/pulls.js'
import { Description } from './openapi.js'

const description = new Description()
const DIGEST = 'sha256:' + '0'.repeat(64)
const body = { logical_environment: 'prod', deployments: [] }

/** Per operation: the status whose examples are read, and the reader that reads them. */
const READERS: Array<[string, string, (c: ServiceClient) => Promise<unknown>]> = [
  [
    'orgs/create-artifact-deployment-record',
    '200',
    async c => {
      const answer = await createDeploymentRecord(c, 'acme', {} as never)
      expect(answer.warning).toBeUndefined()
      return answer.value
    }
  ],
  [
    'orgs/set-cluster-deployment-records',
    '200',
    async c => noWarning(await setClusterRecords(c, 'acme', 'k', body))
  ],
  [
    'orgs/set-cluster-deployment-records',
    '207',
    async c => noWarning(await setClusterRecords(c, 'acme', 'k', body))
  ],
  [
    'orgs/create-cluster-deployment-records-job',
    '202',
    async c => {
      const job = noWarning(await createClusterJob(c, 'acme', 'k', body))
      expect(job.jobId).toEqual(expect.any(Number))
      return job
    }
  ],
  [
    'orgs/get-cluster-deployment-records-job',
    '200',
    async c => {
      const { job } = await getClusterJob(c, 'acme', 'k', 1)
      expect(job?.status).toEqual(expect.any(String))
      return job
    }
  ],
  [
    'orgs/create-artifact-storage-record',
    '200',
    async c => {
      const answer = await createStorageRecord(c, 'acme', {} as never)
      expect(answer.warning).toBeUndefined()
      return answer.value
    }
  ],
  ['orgs/list-artifact-deployment-records', '200', c => listDeploymentRecords(c, 'acme', DIGEST)],
  ['orgs/list-artifact-storage-records', '200', c => listStorageRecords(c, 'acme', DIGEST)],
  ['issues/get-label', '200', c => getLabel(c, 'acme', 'web', 'bug')],
  ['issues/create-label', '201', c => createLabel(c, 'acme', 'web', { name: 'bug' })],
  ['issues/update-label', '200', c => updateLabel(c, 'acme', 'web', 'bug', { color: 'ffffff' })],
  ['issues/list-labels-on-issue', '200', c => listIssueLabels(c, 'acme', 'web', 1)],
  ['issues/add-labels', '200', c => addIssueLabels(c, 'acme', 'web', 1, ['bug'])],
  ['issues/remove-label', '200', c => removeIssueLabel(c, 'acme', 'web', 1, 'bug')],
  ['issues/get', '200', c => getIssue(c, 'acme', 'web', 1)],
  ['pulls/get', '200', c => getPull(c, 'acme', 'web', 1)],
  [
    'repos/list-pull-requests-associated-with-commit',
    '200',
    c => pullsForCommit(c, 'acme', 'web', 'a'.repeat(40))
  ],
  ['repos/compare-commits-with-basehead', '200', c => compareCommits(c, 'acme', 'web', 'a', 'b')]
]

function noWarning<T extends { warning?: string }>(answer: T): T {
  expect(answer.warning).toBeUndefined()
  return answer
}

let server: Server
let client: ServiceClient
let next: { status: number; body: unknown } = { status: 200, body: {} }
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(next.status, { 'content-type': 'application/json; charset=utf-8' })
      res.end(JSON.stringify(next.body))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  client = new ServiceClient({
    baseUrl: `http://127.0.0.1:${port}`,
    token: 'example',
    apiVersion: '2026-03-10',
    maxRetries: 0,
    userAgent: 'record-deployment-examples',
    // Writes pace themselves a second apart: a scaled clock keeps that from costing seconds.
    clock: new ScaledClock(1000)
  })
})
afterAll(async () => {
  await client.close()
  await new Promise(resolve => server.close(resolve))
})

test('the action reads every example answer the description gives for its operations', async () => {
  const accepted: string[] = []
  const refused: Array<{ example: string; error: string }> = []
  for (const [operationId, status, read] of READERS) {
    const { examples } = description.response(description.byId(operationId), status)
    expect({ operationId, status, examples: examples.length > 0 }).toEqual({
      operationId,
      status,
      examples: true
    })
    for (const [name, example] of examples) {
      next = { status: Number(status), body: example }
      const label = `${operationId} ${status} ${name}`
      try {
        await read(client)
        accepted.push(label)
      } catch (error) {
        refused.push({ example: label, error: String(error) })
      }
    }
  }
  console.log(
    `conformance: ${accepted.length} example answers accepted, ${refused.length} refused ` +
      `(${READERS.length} operation answers)`
  )
  expect(refused).toEqual([])
})
