/**
 * Prints jest's result as one plain closing line ("jest: N passed, N failed, N skipped")
 * so CI tooling that reads runner summaries sees the counts.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(
      `jest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`,
    );
  }
}
module.exports = SummaryReporter;
