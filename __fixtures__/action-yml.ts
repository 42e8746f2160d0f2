/** action.yml as the bundle gives it to the command line (scripts/bundle.mjs), for in-process runs of runCli. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import type { ActionYml } from '../src/cli/action-yml.js'
import { projectRoot } from '../scripts/run-action.js'

export function actionYml(): ActionYml {
  const yml = parse(readFileSync(join(projectRoot(), 'action.yml'), 'utf8')) as {
    description: string
    inputs: Record<string, { description: string; default?: unknown }>
    outputs: Record<string, { description: string }>
  }
  return {
    description: yml.description,
    inputs: Object.entries(yml.inputs).map(([name, i]) => ({
      name,
      description: i.description,
      ...(i.default === undefined ? {} : { default: String(i.default) })
    })),
    outputs: Object.entries(yml.outputs).map(([name, o]) => ({ name, description: o.description }))
  }
}
