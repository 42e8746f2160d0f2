// Over 300 lines: the emulator's artifact-metadata routes (single, storage, cluster set and job) each need their own cases of the description's rules.
import { startEmulator, type Emulator } from '../../emulator/index.js'
import { call, DIGEST, DIGEST_B, sleep, waitFor } from './helpers.js'

const SINGLE = '/orgs/acme/artifacts/metadata/deployment-record'
const STORAGE = '/orgs/acme/artifacts/metadata/storage-record'
const CLUSTER = `${SINGLE}/cluster/prod-eu-1`
const UNATTESTED = 'sha256:' + 'c'.repeat(64)

const record = (extra: Record<string, unknown> = {}) => ({
  name: 'ghcr.io/acme/web',
  digest: DIGEST,
  status: 'deployed',
  logical_environment: 'production',
  deployment_name: 'web',
  ...extra
})

const item = (deploymentName: string, extra: Record<string, unknown> = {}) => ({
  name: 'ghcr.io/acme/web',
  digest: DIGEST,
  deployment_name: deploymentName,
  ...extra
})

describe('artifact metadata', () => {
  let emulator: Emulator

  beforeAll(async () => {
    emulator = await startEmulator({
      attestedDigests: [DIGEST, DIGEST_B],
      jobStepMs: 200,
      pollIntervalSeconds: 2,
      repos: ['acme/web', 'other/web']
    })
  })
  afterAll(() => emulator.close())
  beforeEach(() => emulator.reset())

  describe('single deployment record', () => {
    test('same key updates the record, a different key creates one', async () => {
      const first = await call(emulator, 'POST', SINGLE, record({ tags: { team: 'web' } }))
      expect(first.status).toBe(200)
      expect(first.json.total_count).toBe(1)
      const created = first.json.deployment_records[0]
      expect(created).toMatchObject({
        id: 1,
        digest: DIGEST,
        logical_environment: 'production',
        physical_environment: '',
        cluster: '',
        deployment_name: 'web',
        tags: { team: 'web' },
        runtime_risks: []
      })
      expect(typeof created.attestation_id).toBe('number')
      expect(created).not.toHaveProperty('name')
      expect(created).not.toHaveProperty('status')

      await sleep(2)
      const again = await call(emulator, 'POST', SINGLE, record({ digest: DIGEST_B }))
      const updated = again.json.deployment_records[0]
      expect(updated.id).toBe(created.id)
      expect(updated.digest).toBe(DIGEST_B)
      expect(updated.created_at).toBe(created.created_at)
      expect(updated.updated_at > created.updated_at).toBe(true)

      const elsewhere = await call(emulator, 'POST', SINGLE, record({ physical_environment: 'eu' }))
      expect(elsewhere.json.deployment_records[0].id).toBe(2)
      expect(emulator.state.deploymentRecords.acme).toHaveLength(2)
      expect(emulator.state.deploymentRecords.acme?.[0]).toMatchObject({
        name: 'ghcr.io/acme/web',
        status: 'deployed',
        version: null
      })
    })

    test('return_records false still writes but returns no records', async () => {
      const answer = await call(emulator, 'POST', SINGLE, record({ return_records: false }))
      expect(answer.json).toEqual({ total_count: 1, deployment_records: [] })
      expect(emulator.state.deploymentRecords.acme).toHaveLength(1)
    })

    test.each([
      ['missing name', { name: undefined }, 'name', 'missing_field'],
      ['upper-case digest', { digest: 'sha256:' + 'A'.repeat(64) }, 'digest', 'invalid'],
      ['sha512 digest', { digest: 'sha512:' + 'a'.repeat(128) }, 'digest', 'invalid'],
      ['unknown status', { status: 'running' }, 'status', 'invalid'],
      [
        'long environment',
        { logical_environment: 'x'.repeat(129) },
        'logical_environment',
        'invalid'
      ],
      ['long deployment name', { deployment_name: 'x'.repeat(257) }, 'deployment_name', 'invalid'],
      ['empty version', { version: '' }, 'version', 'invalid'],
      ['six tags', { tags: { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6' } }, 'tags', 'invalid'],
      ['numeric tag', { tags: { a: 1 } }, 'tags', 'invalid'],
      ['unknown risk', { runtime_risks: ['scary'] }, 'runtime_risks', 'invalid'],
      [
        'repeated risk',
        { runtime_risks: ['sensitive-data', 'sensitive-data'] },
        'runtime_risks',
        'invalid'
      ],
      ['owner/name repository', { github_repository: 'acme/web' }, 'github_repository', 'invalid'],
      ['string return_records', { return_records: 'yes' }, 'return_records', 'invalid']
    ])('422 for %s', async (_title, change, field, code) => {
      const answer = await call(emulator, 'POST', SINGLE, record(change))
      expect(answer.status).toBe(422)
      expect(answer.json.message).toBe('Validation Failed')
      expect(answer.json.documentation_url).toBeDefined()
      expect(answer.json.errors).toContainEqual(
        expect.objectContaining({ resource: 'DeploymentRecord', field, code })
      )
      expect(emulator.state.deploymentRecords.acme).toHaveLength(0)
    })

    test('every problem is reported at once and unknown fields are ignored', async () => {
      const answer = await call(emulator, 'POST', SINGLE, { surprise: true })
      expect(answer.status).toBe(422)
      const fields = answer.json.errors.map((e: { field: string }) => e.field).sort()
      expect(fields).toEqual(['deployment_name', 'digest', 'logical_environment', 'name', 'status'])
      const fine = await call(emulator, 'POST', SINGLE, record({ surprise: true }))
      expect(fine.status).toBe(200)
    })

    test('an unattested digest needs a repository of the org', async () => {
      const lost = await call(emulator, 'POST', SINGLE, record({ digest: UNATTESTED }))
      expect(lost.status).toBe(404)
      expect(lost.json.message).toContain('No attestation found')
      const foreign = await call(
        emulator,
        'POST',
        SINGLE,
        record({ digest: UNATTESTED, github_repository: 'missing' })
      )
      expect(foreign.status).toBe(404)
      const named = await call(
        emulator,
        'POST',
        SINGLE,
        record({ digest: UNATTESTED, github_repository: 'web' })
      )
      expect(named.status).toBe(200)
      expect(named.json.deployment_records[0].attestation_id).toBeNull()
      expect(emulator.state.deploymentRecords.acme?.[0]?.github_repository).toBe('web')
    })
  })

  describe('storage records', () => {
    const storage = (extra: Record<string, unknown> = {}) => ({
      name: 'ghcr.io/acme/web',
      digest: DIGEST,
      registry_url: 'https://ghcr.io',
      repository: 'acme/web',
      ...extra
    })

    test('every write creates a record (no upsert rule, as the description says); status defaults to active', async () => {
      const first = await call(emulator, 'POST', STORAGE, storage())
      expect(first.status).toBe(200)
      expect(first.json.storage_records[0]).toMatchObject({
        id: 1,
        name: 'ghcr.io/acme/web',
        digest: DIGEST,
        registry_url: 'https://ghcr.io',
        repository: 'acme/web',
        artifact_url: null,
        status: 'active'
      })
      // The same write again: a second record, the first one unchanged.
      const again = await call(emulator, 'POST', STORAGE, storage({ status: 'eol' }))
      expect(again.json.storage_records[0]).toMatchObject({ id: 2, status: 'eol' })
      const same = await call(emulator, 'POST', STORAGE, storage())
      expect(same.json.storage_records[0].id).toBe(3)
      expect(emulator.state.storageRecords.acme?.map(r => [r.id, r.status])).toEqual([
        [1, 'active'],
        [2, 'eol'],
        [3, 'active']
      ])
    })

    test.each([
      ['missing registry', { registry_url: undefined }, 'registry_url', 'missing_field'],
      ['http registry', { registry_url: 'http://ghcr.io' }, 'registry_url', 'invalid'],
      [
        'long registry',
        { registry_url: 'https://x.io/' + 'a'.repeat(250) },
        'registry_url',
        'invalid'
      ],
      [
        'long artifact url',
        { artifact_url: 'https://x.io/' + 'a'.repeat(140) },
        'artifact_url',
        'invalid'
      ],
      ['long path', { path: 'p'.repeat(513) }, 'path', 'invalid'],
      ['long repository', { repository: 'r'.repeat(129) }, 'repository', 'invalid'],
      ['long version', { version: 'v'.repeat(101) }, 'version', 'invalid'],
      ['inactive status', { status: 'inactive' }, 'status', 'invalid']
    ])('422 for %s', async (_title, change, field, code) => {
      const answer = await call(emulator, 'POST', STORAGE, storage(change))
      expect(answer.status).toBe(422)
      expect(answer.json.errors).toContainEqual(
        expect.objectContaining({ resource: 'StorageRecord', field, code })
      )
    })
  })

  describe('lists', () => {
    test('records of a digest, paginated with link headers', async () => {
      for (const name of ['a', 'b', 'c', 'd', 'e'])
        await call(emulator, 'POST', SINGLE, record({ deployment_name: name }))
      await call(emulator, 'POST', SINGLE, record({ deployment_name: 'x', digest: DIGEST_B }))
      const list = `/orgs/acme/artifacts/${DIGEST}/metadata/deployment-records`
      const page2 = await call(emulator, 'GET', `${list}?per_page=2&page=2`)
      expect(page2.status).toBe(200)
      expect(page2.json.total_count).toBe(5)
      expect(
        page2.json.deployment_records.map((r: { deployment_name: string }) => r.deployment_name)
      ).toEqual(['c', 'd'])
      const link = page2.headers.get('link') ?? ''
      const base = `${emulator.url}${list}`
      expect(link).toContain(`<${base}?per_page=2&page=3>; rel="next"`)
      expect(link).toContain(`<${base}?per_page=2&page=3>; rel="last"`)
      expect(link).toContain(`<${base}?per_page=2&page=1>; rel="prev"`)
      expect(link).toContain(`<${base}?per_page=2&page=1>; rel="first"`)
      const last = await call(emulator, 'GET', `${list}?per_page=2&page=3`)
      expect(last.headers.get('link')).not.toContain('rel="next"')
      const all = await call(emulator, 'GET', list)
      expect(all.headers.get('link')).toBeNull()
    })

    test('storage list and a malformed subject digest', async () => {
      await call(emulator, 'POST', STORAGE, {
        name: 'web',
        digest: DIGEST,
        registry_url: 'https://ghcr.io'
      })
      const list = await call(
        emulator,
        'GET',
        `/orgs/acme/artifacts/${DIGEST}/metadata/storage-records`
      )
      expect(list.json.total_count).toBe(1)
      expect(list.json.storage_records[0].registry_url).toBe('https://ghcr.io')
      const bad = await call(
        emulator,
        'GET',
        '/orgs/acme/artifacts/sha256:abc/metadata/storage-records'
      )
      expect(bad.status).toBe(422)
    })
  })

  describe('cluster set', () => {
    test('writes every item with the cluster and environment of the request', async () => {
      const answer = await call(emulator, 'POST', CLUSTER, {
        logical_environment: 'production',
        physical_environment: 'eu-west-1',
        deployments: [item('web'), item('worker', { status: 'decommissioned' })]
      })
      expect(answer.status).toBe(200)
      expect(answer.json.total_count).toBe(2)
      expect(answer.json.deployment_records[1]).toMatchObject({
        cluster: 'prod-eu-1',
        physical_environment: 'eu-west-1',
        deployment_name: 'worker'
      })
      expect(emulator.state.deploymentRecords.acme?.[0]?.status).toBe('deployed')
      expect(emulator.state.deploymentRecords.acme?.[1]?.status).toBe('decommissioned')
    })

    test('duplicate deployment names and bad cluster names are 422', async () => {
      const dup = await call(emulator, 'POST', CLUSTER, {
        logical_environment: 'production',
        deployments: [item('web'), item('web')]
      })
      expect(dup.status).toBe(422)
      expect(dup.json.errors).toContainEqual(
        expect.objectContaining({
          field: 'deployments[1].deployment_name',
          code: 'custom',
          index: 1
        })
      )
      const cluster = await call(emulator, 'POST', `${SINGLE}/cluster/bad%20name`, {
        logical_environment: 'production',
        deployments: [item('web')]
      })
      expect(cluster.status).toBe(422)
      const tooMany = await call(emulator, 'POST', CLUSTER, {
        logical_environment: 'production',
        deployments: Array.from({ length: 1001 }, (_, i) => item(`d${i}`))
      })
      expect(tooMany.status).toBe(422)
    })

    test('without partial_success one bad item fails the request and writes nothing', async () => {
      const answer = await call(emulator, 'POST', CLUSTER, {
        logical_environment: 'production',
        deployments: [item('web'), item('lost', { digest: UNATTESTED })]
      })
      expect(answer.status).toBe(404)
      expect(answer.json.message).toContain("'lost'")
      expect(emulator.state.deploymentRecords.acme).toHaveLength(0)
    })

    test('with partial_success good items are written and the rest reported with 207', async () => {
      const answer = await call(emulator, 'POST', CLUSTER, {
        logical_environment: 'production',
        partial_success: true,
        deployments: [
          item('web'),
          item('lost', { digest: UNATTESTED }),
          item('foreign', { github_repository: 'nope' })
        ]
      })
      expect(answer.status).toBe(207)
      expect(answer.json.total_count).toBe(1)
      expect(answer.json.deployment_records).toHaveLength(1)
      expect(answer.json.errors).toEqual([
        { cause: 'not_found', deployment: expect.objectContaining({ deployment_name: 'lost' }) },
        {
          cause: 'unauthorized',
          deployment: expect.objectContaining({ deployment_name: 'foreign' })
        }
      ])
      const clean = await call(emulator, 'POST', CLUSTER, {
        logical_environment: 'production',
        partial_success: true,
        return_records: false,
        deployments: [item('web')]
      })
      expect(clean.status).toBe(200)
      expect(clean.json).toEqual({ total_count: 1, deployment_records: [] })
    })
  })

  describe('cluster jobs', () => {
    const jobs = `${CLUSTER}/jobs`

    test('a job goes pending, processing, completed and then the records exist', async () => {
      const created = await call(emulator, 'POST', jobs, {
        logical_environment: 'production',
        deployments: [item('web'), item('lost', { digest: UNATTESTED })]
      })
      expect(created.status).toBe(202)
      expect(created.json.errors).toEqual([
        { cause: 'not_found', deployment: expect.objectContaining({ deployment_name: 'lost' }) }
      ])
      const status = `${jobs}/${created.json.job_id}`
      const first = await call(emulator, 'GET', status)
      expect(first.json).toMatchObject({
        job_id: created.json.job_id,
        status: 'pending',
        total_count: 1
      })
      expect(first.headers.get('x-poll-interval')).toBe('2')
      expect(emulator.state.deploymentRecords.acme).toHaveLength(0)

      const seen = new Set<string>()
      await waitFor(async () => {
        const now = await call(emulator, 'GET', status)
        seen.add(now.json.status)
        return now.json.status === 'completed'
      })
      expect(seen.has('processing') || seen.has('completed')).toBe(true)
      expect(emulator.state.deploymentRecords.acme?.[0]).toMatchObject({
        cluster: 'prod-eu-1',
        deployment_name: 'web'
      })
    })

    test('a second job while one runs gets 409', async () => {
      const body = { logical_environment: 'production', deployments: [item('web')] }
      expect((await call(emulator, 'POST', jobs, body)).status).toBe(202)
      const busy = await call(emulator, 'POST', jobs, body)
      expect(busy.status).toBe(409)
      expect(busy.json.message).toBe('A job is already in progress for this cluster')
      // another cluster is independent
      expect((await call(emulator, 'POST', `${SINGLE}/cluster/other/jobs`, body)).status).toBe(202)
      await waitFor(() => emulator.state.jobs.every(job => job.status === 'completed'))
      expect((await call(emulator, 'POST', jobs, body)).status).toBe(202)
    })

    test('failNextJob makes the next job fail without writing', async () => {
      emulator.seed({ failNextJob: true })
      const created = await call(emulator, 'POST', jobs, {
        logical_environment: 'production',
        deployments: [item('web')]
      })
      await waitFor(() => emulator.state.jobs[0]?.status === 'failed')
      const status = await call(emulator, 'GET', `${jobs}/${created.json.job_id}`)
      expect(status.json.status).toBe('failed')
      expect(emulator.state.deploymentRecords.acme).toHaveLength(0)
      expect(emulator.state.failNextJob).toBe(false)
    })

    test('job status answers 304 to a matching etag and 404 for unknown jobs', async () => {
      const created = await call(emulator, 'POST', jobs, {
        logical_environment: 'production',
        deployments: [item('web')]
      })
      const status = `${jobs}/${created.json.job_id}`
      const first = await call(emulator, 'GET', status)
      const etag = first.headers.get('etag') ?? ''
      expect(etag).not.toBe('')
      const same = await call(emulator, 'GET', status, undefined, {
        headers: { 'if-none-match': etag }
      })
      expect(same.status).toBe(304)
      expect(same.json).toBeUndefined()
      expect(same.headers.get('x-ratelimit-used')).toBe(first.headers.get('x-ratelimit-used'))
      await waitFor(() => emulator.state.jobs[0]?.status === 'completed')
      const changed = await call(emulator, 'GET', status, undefined, {
        headers: { 'if-none-match': etag }
      })
      expect(changed.status).toBe(200)
      expect((await call(emulator, 'GET', `${jobs}/999`)).status).toBe(404)
      expect(
        (await call(emulator, 'GET', `${SINGLE}/cluster/other/jobs/${created.json.job_id}`)).status
      ).toBe(404)
    })

    test('jobs take up to 5000 items', async () => {
      const deployments = Array.from({ length: 5001 }, (_, i) => item(`d${i}`))
      const over = await call(emulator, 'POST', jobs, { logical_environment: 'p', deployments })
      expect(over.status).toBe(422)
      const fine = await call(emulator, 'POST', jobs, {
        logical_environment: 'p',
        deployments: deployments.slice(0, 5000)
      })
      expect(fine.status).toBe(202)
    })
  })
})
