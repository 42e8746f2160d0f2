// Whether a script module is the one node was started with (`node path/to/it.mjs`), not imported
// (the tests import them). By the file, not by the path as written: started through a symlink
// (`node /link/scripts/x.mjs`), Node gives the module its real path, and a comparison of the two
// paths would skip the script and exit 0, its check passed without being made.
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** @param {string} url the module's `import.meta.url` @returns {boolean} */
export function isMain(url) {
  const started = process.argv[1]
  if (!started) return false
  try {
    return realpathSync(started) === realpathSync(fileURLToPath(url))
  } catch {
    return false
  }
}
