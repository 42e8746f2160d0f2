/**
 * README "Workloads that vanished are decommissioned": a state file that cannot be read (not
 * JSON, another file, a format version this action does not read, a hand-edited field, a
 * directory) is a clear error naming `state-file` before any request, never a crash. The bundled
 * action against the emulator.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  digest,
  emulator,
  errorOf,
  STATE,
  stateStep,
  useStateWorkspace,
  workspace
} from '../../__fixtures__/cluster-state.js'

useStateWorkspace('cluster-state-files')

const step = () =>
  stateStep({
    'physical-environment': 'eu-west-1',
    'deployments-file': 'deployments.json',
    'cluster-mode': 'sync'
  })

test.each([
  [
    'not JSON',
    '{"format": "record-deployment/cluster-state", "version": 1, "cluster": ',
    'not valid JSON'
  ],
  [
    'another file',
    '{"apiVersion": "v1", "kind": "List", "items": []}',
    'no `format: record-deployment/cluster-state` field'
  ],
  [
    'a newer format',
    JSON.stringify({ format: 'record-deployment/cluster-state', version: 4 }),
    'format version 4, and this version of the action reads versions 1, 2 and 3'
  ],
  [
    'a hand-edited digest and field',
    JSON.stringify({
      format: 'record-deployment/cluster-state',
      version: 1,
      cluster: 'prod-eu-1',
      logical_environment: 'production',
      physical_environment: 'eu-west-1',
      deployments: [{ deployment_name: 'x', name: 'y', digest: 'sha256:ABC', owner: 'me' }]
    }),
    'deployments[0].digest: must be sha256:<64 lower-case hex>; deployments[0]: unknown field `owner`'
  ],
  [
    'a hand-edited workload',
    JSON.stringify({
      format: 'record-deployment/cluster-state',
      version: 2,
      cluster: 'prod-eu-1',
      logical_environment: 'production',
      physical_environment: 'eu-west-1',
      deployments: [
        {
          deployment_name: 'x',
          name: 'y',
          digest: digest('x'),
          workload: { namespace: 'apps', kind: 'Pod', name: 'x' }
        }
      ]
    }),
    'deployments[0].workload.kind: must be a workload kind'
  ],
  [
    'a name listed twice',
    JSON.stringify({
      format: 'record-deployment/cluster-state',
      version: 1,
      cluster: 'prod-eu-1',
      logical_environment: 'production',
      deployments: [
        { deployment_name: 'x', name: 'y', digest: digest('x') },
        { deployment_name: 'x', name: 'y', digest: digest('x') }
      ]
    }),
    'deployments[1].deployment_name: `x` is listed twice'
  ],
  [
    'a directory',
    null,
    'cannot read `.record-deployment/prod-eu-1.json`: is a folder, not a regular file'
  ]
])(
  'an unreadable or hand-edited state file (%s) is a clear error before any request, never a crash, and says to delete the cache entries that restore it',
  async (_case, content, message) => {
    await writeFile(
      join(workspace, 'deployments.json'),
      JSON.stringify([
        { deployment_name: 'apps-alpha', name: 'ghcr.io/acme/alpha', digest: digest('alpha') }
      ])
    )
    await mkdir(join(workspace, '.record-deployment'))
    if (content === null) await mkdir(join(workspace, STATE))
    else await writeFile(join(workspace, STATE), content)
    const run = await step()
    expect(run.code).not.toBe(0)
    expect(errorOf(run)).toContain('state-file: ')
    expect(errorOf(run)).toContain(message)
    // In the cache flow the workspace's copy is restored again: the entries must go.
    if (content !== null)
      expect(errorOf(run)).toContain(
        'If actions/cache restored it, delete the cache entries under the key prefix the restore step names'
      )
    expect(errorOf(run)).not.toContain('unexpected error')
    expect(run.stderr).toBe('')
    expect(emulator.requests).toEqual([])
  }
)
