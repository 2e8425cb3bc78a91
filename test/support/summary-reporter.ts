import type { Reporter, TestModule } from 'vitest/node';

/** The run's counts: a test of a file that failed as a whole counts as failed, not skipped. */
function countTests(testModules: readonly TestModule[]) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const module of testModules) {
    // An import, a hook or the file's setup threw: its tests did not run, and that is a failure.
    const fileFailed = module.state() === 'failed';
    let tests = 0;
    for (const test of module.children.allTests()) {
      tests++;
      const state = test.result().state;
      if (state === 'passed') passed++;
      else if (state === 'failed' || fileFailed) failed++;
      else skipped++;
    }
    // A file that could not even collect its tests is one failure, never none.
    if (fileFailed && tests === 0) failed++;
  }
  return { passed, failed, skipped };
}

/** Ends the run with the plain `N passed, N failed` line that CI reads. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    const { passed, failed, skipped } = countTests(testModules);
    console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}
