// What the bundle holds for `@actions/github` (an alias in scripts/bundle.mjs): its `Context`
// alone, and `context` built the way the package builds it. The package's exports do not list
// lib/context.js, so the file is named by its path here; the rest of the package (its REST
// client) is left out: the action's requests go through src/client/.
import { Context } from '../../node_modules/@actions/github/lib/context.js'

export { Context }
export const context = new Context()
