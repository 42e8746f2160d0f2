/**
 * The environment a child npm needs to keep the user's npm configuration when its caller moves
 * where npm looks for it. npm reads its global config from `<prefix>/etc/npmrc` and its user
 * config from `$HOME/.npmrc`; a child run with another prefix (`--prefix`, `npm_config_prefix`)
 * or another HOME reads neither, and loses what they hold: a `cafile` the registry needs, a
 * mirror, a token. So the child gets the parent's `globalconfig` and `userconfig` by path, and
 * the settings the parent was given by environment or command line (npm exports them as
 * `npm_config_*` to what it runs), except those that say where things are or which npm runs.
 * The caller sets its own prefix, HOME or cache after these.
 */
import { execFileSync } from 'node:child_process'

/** `npm_config_*` that are places or facts of the parent npm, not settings to pass on (the
 * config files are passed as such). */
const NOT_PASSED = new Set([
  'prefix',
  'global_prefix',
  'local_prefix',
  'init_module',
  'globalconfig',
  'userconfig',
  'user_agent',
  'npm_version',
  'node_gyp',
  'call'
])

type Env = Record<string, string | undefined>

/** The name of an `npm_config_*` variable as npm reads it (any case, `-` or `_`), or undefined. */
function settingOf(name: string): string | undefined {
  const match = /^npm_config_(.+)$/i.exec(name)
  return match ? (match[1] as string).toLowerCase().replace(/-/g, '_') : undefined
}

let asked: { globalconfig: string; userconfig: string } | undefined

/** The files npm reads its global and user config from, for a process with `parent`'s env. */
export function npmConfigFiles(parent: Env = process.env): {
  globalconfig: string
  userconfig: string
} {
  const given: Record<string, string> = {}
  for (const [name, value] of Object.entries(parent))
    if (value && (settingOf(name) === 'globalconfig' || settingOf(name) === 'userconfig'))
      given[settingOf(name) as string] = value
  // `npm test` and `npm run` export both
  if (given['globalconfig'] && given['userconfig'])
    return { globalconfig: given['globalconfig'], userconfig: given['userconfig'] }
  if (parent === process.env && asked) return asked
  // `npm config get` of two keys prints `key=value` lines
  const printed = execFileSync('npm', ['config', 'get', 'globalconfig', 'userconfig'], {
    encoding: 'utf8',
    env: parent as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'ignore'],
    shell: process.platform === 'win32'
  })
  const read = (key: string) =>
    given[key] ?? new RegExp(`^${key}=(.*)$`, 'm').exec(printed)?.[1]?.trim()
  const globalconfig = read('globalconfig')
  const userconfig = read('userconfig')
  if (!globalconfig || !userconfig)
    throw new Error(`\`npm config get globalconfig userconfig\` printed ${JSON.stringify(printed)}`)
  const files = { globalconfig, userconfig }
  if (parent === process.env) asked = files
  return files
}

/**
 * The `npm_config_*` variables for a child npm, whatever prefix, cache or HOME its caller gives
 * it (set those after these): the parent's global and user config files, and its other settings.
 */
export function npmChildEnv(parent: Env = process.env): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(parent)) {
    const setting = settingOf(name)
    if (setting && value !== undefined && !NOT_PASSED.has(setting))
      env[`npm_config_${setting}`] = value
  }
  const { globalconfig, userconfig } = npmConfigFiles(parent)
  env['npm_config_globalconfig'] = globalconfig
  env['npm_config_userconfig'] = userconfig
  return env
}

/**
 * `parent`'s environment for a child npm that runs with its own `--prefix` (or HOME): without
 * any `npm_config_*` of the parent's, then those of {@link npmChildEnv}.
 */
export function withNpmConfig(parent: Env = process.env): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(parent))
    if (value !== undefined && !settingOf(name)) env[name] = value
  return { ...env, ...npmChildEnv(parent) }
}
