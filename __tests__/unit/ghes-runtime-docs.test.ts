// The action runs on Node 24 (action.yml `runs.using: node24`): a runner older than 2.327.1 (which
// added node24, actions/runner#3940) refuses to load it, as GitHub Enterprise Server before 3.18
// ships. docs/service.md, where Enterprise Server is promised labels, says so and what to run there.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { projectRoot } from '../../scripts/run-action.js'

const root = projectRoot()

test('the Enterprise Server section names the runner node24 needs, what an older one says, and the command line instead', () => {
  const action = parse(readFileSync(join(root, 'action.yml'), 'utf8')) as {
    runs: { using: string }
  }
  expect(action.runs.using).toBe('node24')
  const service = readFileSync(join(root, 'docs/service.md'), 'utf8')
  const section = service.slice(service.indexOf('## GitHub Enterprise Server')).replace(/\s+/g, ' ')
  expect(section).toContain('`using: node24`')
  expect(section).toContain('2.327.1')
  expect(section).toContain("'using: node24' is not supported")
  expect(section).toContain('npx --yes record-deployment@1')
})
