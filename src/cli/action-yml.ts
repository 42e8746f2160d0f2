/**
 * What action.yml declares, read from it by `scripts/bundle.mjs` when the command line is bundled
 * (esbuild's `define`), so that `--help` and the flags are the action's inputs without shipping
 * a YAML reader: every input with its description and default, every output with its description.
 */
export interface DeclaredInput {
  name: string
  description: string
  default?: string
}

export interface ActionYml {
  description: string
  inputs: DeclaredInput[]
  outputs: Array<{ name: string; description: string }>
}

declare const __ACTION_YML__: ActionYml

export const ACTION_YML: ActionYml = __ACTION_YML__
