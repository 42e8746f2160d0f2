// Loaded with `node --import` before the bundled action: the machine's clock reads
// PINNED_CLOCK_MS when the process starts and runs on from there, so a test knows the step's
// own clock (to the milliseconds the process takes to reach it) without a hook in the action.
const pinned = Number(process.env['PINNED_CLOCK_MS'])
if (Number.isFinite(pinned)) {
  const real = Date.now
  const offset = pinned - real()
  Date.now = () => real() + offset
}
