// Preloaded with NODE_OPTIONS=--import by a test: writing a stdout line that holds PLANT_BUG_LINE
// throws, as a bug of ours part way through a job would (the action logs through stdout).
const marker = process.env['PLANT_BUG_LINE']
const write = process.stdout.write.bind(process.stdout)
process.stdout.write = (chunk, ...rest) => {
  if (marker && String(chunk).includes(marker)) throw new TypeError('planted by the test')
  return write(chunk, ...rest)
}
