// On GitHub Enterprise Server the artifact-metadata endpoints do not exist: a record's 403/404
// says so, naming the host kind, instead of asking for a permission that cannot help there.
import { setup } from '../../__fixtures__/service-client.js'
import { isEnterpriseServer, permissionHint, ServiceError } from '../../src/client/errors.js'

const RECORD = '/orgs/acme/artifacts/metadata/deployment-record'

test.each([
  ['https://github.example.com', true],
  ['https://ghes.corp.test:8443', true],
  ['https://api.github.com', false],
  ['https://API.GitHub.com', false],
  ['https://api.acme.ghe.com', false],
  ['http://127.0.0.1:8787', false],
  ['http://localhost:8787', false],
  ['http://[::1]:8787', false],
  ['https://notghe.com', true]
])('%s is a server: %s', (origin, server) => {
  expect(isEnterpriseServer(origin)).toBe(server)
})

test('a 404 of a record on a server names the host kind and what to do, not the permission', () => {
  const hint = permissionHint('POST', RECORD, 404, undefined, 'Not Found', {
    origin: 'https://github.example.com',
    basePath: '/api/v3'
  })
  expect(hint).toBe(
    '`api-url` (https://github.example.com/api/v3) is a GitHub Enterprise Server (its host is ' +
      'neither api.github.com nor a *.ghe.com one), which has no artifact metadata: adding ' +
      '`artifact-metadata: write` cannot help there. Artifact metadata exists only for ' +
      'repositories owned by an organization, on github.com and GitHub Enterprise Cloud. On this ' +
      'server leave out `environment`, `registry-url` and `deployments` (labels work there), or ' +
      'record from a workflow whose `api-url` is github.com or GHE.com. If this host is a proxy ' +
      'in front of api.github.com, the step needs the permission artifact-metadata: write there.'
  )
  // the command line names its flag or variable
  expect(
    permissionHint(
      'GET',
      '/orgs/acme/artifacts/sha256:0/metadata/deployment-records',
      404,
      undefined,
      undefined,
      {
        origin: 'https://github.example.com',
        apiUrlSource: '`--api-url`'
      }
    )
  ).toMatch(/^`--api-url` \(https:\/\/github\.example\.com\) is a GitHub Enterprise Server/)
  // a 403, or a 404 that names the permission, comes from an endpoint that exists: the permission
  for (const [status, header] of [
    [403, undefined],
    [404, 'artifact_metadata=write']
  ] as const)
    expect(
      permissionHint('POST', RECORD, status, header, undefined, {
        origin: 'https://github.example.com'
      })
    ).toMatch(/^The step needs the permission artifact-metadata: write/)
  // labels on a server still name their permission
  expect(
    permissionHint('POST', '/repos/acme/web/issues/1/labels', 403, undefined, undefined, {
      origin: 'https://github.example.com'
    })
  ).toMatch(/needs the permission issues: write or pull-requests: write/)
})

test.each(['https://api.github.com', 'https://api.acme.ghe.com'])(
  'on %s a refused record still names artifact-metadata: write',
  origin => {
    const hint = permissionHint('POST', RECORD, 404, undefined, undefined, { origin })
    expect(hint).toMatch(/^The step needs the permission artifact-metadata: write/)
    expect(hint).not.toMatch(/Enterprise Server/)
  }
)

test('through the client: a record sent to a server fails with the server hint', async () => {
  const server = 'https://github.example.com'
  const { client, on } = setup({ baseUrl: `${server}/api/v3` })
  on('POST', `${server}/api/v3${RECORD}`, {
    status: 404,
    body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }
  })
  const error = (await client.request('POST', RECORD, { body: {} }).catch(e => e)) as ServiceError
  expect(error).toBeInstanceOf(ServiceError)
  expect(error.message).toContain(
    `POST ${RECORD} failed with 404: Not Found\n  \`api-url\` (${server}/api/v3) is a GitHub Enterprise Server`
  )
  expect(error.message).not.toContain('The step needs the permission')
})
