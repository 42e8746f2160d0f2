/**
 * A jest reporter that ends the run with one plain line, `tests: N passed, N failed, N skipped`,
 * which CI reads whatever the runner. A suite that fails outside its tests (it does not load, an
 * import throws, a hook fails) fails no test, so the line also names such suites: without that
 * it said "0 failed" for a run that failed.
 */
export default class PlainSummaryReporter {
  onRunComplete(_contexts, results) {
    const passed = results.numPassedTests
    const failed = results.numFailedTests
    const skipped = results.numPendingTests + results.numTodoTests
    const broken = results.testResults.filter(
      suite =>
        suite.testExecError !== undefined || (suite.failureMessage && suite.numFailingTests === 0)
    )
    let line = `tests: ${passed} passed, ${failed} failed, ${skipped} skipped`
    if (broken.length > 0) {
      const names = broken.map(suite => relative(suite.testFilePath)).join(', ')
      line += `; ${broken.length} ${broken.length === 1 ? 'suite' : 'suites'} failed to run: ${names}`
    }
    process.stdout.write(`\n${line}\n`)
  }
}

function relative(path) {
  const cwd = process.cwd() + '/'
  return path.startsWith(cwd) ? path.slice(cwd.length) : path
}
