// ServiceClient: an unreachable service, and what an error names (permission, validation, token).
import { API, setup, TOKEN } from '../../__fixtures__/service-client.js'
import { ServiceError } from '../../src/client/errors.js'

describe('an unreachable service', () => {
  const refused = () =>
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' })
  const unknownHost = () =>
    Object.assign(new Error('getaddrinfo ENOTFOUND api.example.test'), { code: 'ENOTFOUND' })
  const badCertificate = () =>
    Object.assign(new Error('certificate has expired'), { code: 'CERT_HAS_EXPIRED' })

  test.each([
    ['connection refused', refused, /connection refused \(ECONNREFUSED 127\.0\.0\.1:9\)/],
    ['no such host', unknownHost, /host name does not resolve \(ENOTFOUND api\.example\.test\)/],
    ['TLS refused', badCertificate, /TLS failed \(CERT_HAS_EXPIRED: certificate has expired\)/]
  ])('%s on every attempt is fatal and names the URL and the cause', async (_n, make, cause) => {
    const { client, on, seen } = setup({ maxRetries: 2 })
    on('POST', '/w', make(), make(), make())
    const error = (await client.request('POST', '/w', { body: {} }).catch(e => e)) as ServiceError
    expect(error.fatal).toBe(true)
    expect(error.attempts).toBe(3)
    expect(error.message).toContain(`the service at ${API} cannot be reached`)
    expect(error.message).toMatch(cause)
    expect(error.message).toMatch(/on all 3 attempts/)
    expect(seen).toHaveLength(0)
  })

  test('a service that answered once is not unreachable: the failure is not fatal', async () => {
    const { client, on } = setup({ maxRetries: 1 })
    on('GET', '/r', { status: 502 }, refused())
    const error = (await client.request('GET', '/r').catch(e => e)) as ServiceError
    expect(error.fatal).toBe(false)
  })
})

describe('errors', () => {
  test('a permission 403 names the permission from x-accepted-github-permissions', async () => {
    const { client, on } = setup()
    on('POST', '/orgs/acme/artifacts/metadata/deployment-record', {
      status: 403,
      body: { message: 'Resource not accessible by integration' },
      headers: {
        'x-accepted-github-permissions': 'artifact_metadata=write',
        'x-github-request-id': 'AB:12'
      }
    })
    const error = (await client
      .request('POST', '/orgs/acme/artifacts/metadata/deployment-record')
      .catch(e => e)) as ServiceError
    expect(error).toMatchObject({
      method: 'POST',
      path: '/orgs/acme/artifacts/metadata/deployment-record',
      status: 403,
      serviceMessage: 'Resource not accessible by integration',
      requestId: 'AB:12'
    })
    expect(error.message).toContain('artifact-metadata: write')
    expect(error.message).toContain('organization')
    expect(error.message).toContain('AB:12')
  })

  test('a 404 on an artifact endpoint without the header still names the permission', async () => {
    const { client, on } = setup()
    on('POST', '/orgs/acme/artifacts/metadata/storage-record', {
      status: 404,
      body: { message: 'Not Found' }
    })
    const error = (await client
      .request('POST', '/orgs/acme/artifacts/metadata/storage-record')
      .catch(e => e)) as ServiceError
    expect(error.hint).toMatch(/artifact-metadata: write/)
    expect(error.hint).toMatch(/owned by an organization/)
  })

  test('a 403 on a label endpoint names issues or pull-requests write', async () => {
    const { client, on } = setup()
    on('POST', '/repos/acme/web/issues/3/labels', {
      status: 403,
      body: { message: 'Resource not accessible by integration' }
    })
    const error = (await client
      .request('POST', '/repos/acme/web/issues/3/labels')
      .catch(e => e)) as ServiceError
    expect(error.hint).toMatch(/issues: write or pull-requests: write/)
    expect(error.hint).not.toMatch(/artifact/)
  })

  test('validation errors are listed', async () => {
    const { client, on } = setup()
    on('POST', '/w', {
      status: 422,
      body: {
        message: 'Validation Failed',
        errors: [
          {
            resource: 'DeploymentRecord',
            field: 'digest',
            code: 'invalid',
            message: 'must be sha256'
          }
        ]
      }
    })
    const error = (await client.request('POST', '/w').catch(e => e)) as ServiceError
    expect(error.validationErrors).toHaveLength(1)
    expect(error.message).toContain('DeploymentRecord.digest: invalid: must be sha256')
  })

  test('401 is fatal and says the token was refused', async () => {
    const { client, on } = setup()
    on('GET', '/r', { status: 401, body: { message: 'Bad credentials' } })
    const error = (await client.request('GET', '/r').catch(e => e)) as ServiceError
    expect(error.fatal).toBe(true)
    expect(error.hint).toMatch(/token was refused/)
  })

  test('an unsupported API version says which input to change', async () => {
    const { client, on } = setup()
    on('GET', '/r', {
      status: 400,
      body: { message: "API version '2099-01-01' is not supported." }
    })
    const error = (await client.request('GET', '/r').catch(e => e)) as ServiceError
    expect(error.hint).toMatch(/api-version/)
    expect(error.fatal).toBe(true)
  })

  test('the token appears in no error and no log line', async () => {
    const { client, on, log } = setup({ maxRetries: 1 })
    on('POST', '/w', { status: 503 }, { status: 401, body: { message: 'Bad credentials' } })
    const error = (await client.request('POST', '/w').catch(e => e)) as ServiceError
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain(TOKEN)
    expect(log.text()).not.toContain(TOKEN)
    expect(log.lines.some(l => l.level === 'debug')).toBe(true)
  })
})
