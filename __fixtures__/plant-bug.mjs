// Preloaded with NODE_OPTIONS=--import by a test: the first SIGINT handler the action installs
// throws, as a bug of ours between reading the inputs and the first request would.
const on = process.on.bind(process)
process.on = (event, listener) => {
  if (event === 'SIGINT') throw new TypeError('planted by the test')
  return on(event, listener)
}
