/**
 * A jest reporter that ends the run with one plain line, `tests: N passed, N failed, N skipped`,
 * which CI reads whatever the runner.
 */
export default class PlainSummaryReporter {
  onRunComplete(_contexts, results) {
    const passed = results.numPassedTests
    const failed = results.numFailedTests
    const skipped = results.numPendingTests + results.numTodoTests
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`)
  }
}
