// node:assert as undici calls it in the bundle (an alias in scripts/bundle.mjs): `assert(value)`,
// nothing else. The real module (six of Node's modules at start-up) is loaded only when an
// assertion fails, and throws its own AssertionError.
/* global module */
module.exports = function assert(value, message) {
  if (!value) process.getBuiltinModule('node:assert')(value, message)
}
