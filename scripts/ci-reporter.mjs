// A vitest reporter for CI (.ci/run passes it beside the JSON reporter): it writes what the JSON
// report leaves out to `<report>.ci.json`, which scripts/ci-summary.js reads and requires.
//   unhandled: every unhandled error (vitest 4's report says success: true when a passing test
//     leaves a rejection behind, though vitest exits 1);
//   retried: every test that ran more than once (a `retry` option): CI retries nothing, and a test
//     that passed only on a retry counts as failed, since its first failure may be a real defect.
import * as fs from "node:fs";
import * as path from "node:path";

export default class CiReporter {
  retried = [];

  onInit(vitest) {
    const json = vitest.config.outputFile?.json ?? (typeof vitest.config.outputFile === "string" ? vitest.config.outputFile : undefined);
    if (!json) throw new Error("scripts/ci-reporter.mjs writes beside the JSON report: give --outputFile.json");
    this.root = vitest.config.root;
    this.out = `${path.resolve(this.root, json)}.ci.json`;
  }

  onTestCaseResult(testCase) {
    const d = testCase.diagnostic();
    if (!d || d.retryCount === 0) return;
    this.retried.push({ name: `${this.where(testCase.module.moduleId)} > ${testCase.fullName}`, state: testCase.result().state, retries: d.retryCount });
  }

  onTestRunEnd(_modules, unhandledErrors) {
    const unhandled = unhandledErrors.map((e) => {
      // The test running when vitest noticed the error is not always the one that caused it.
      const where = e.VITEST_TEST_PATH ? `${this.where(e.VITEST_TEST_PATH)}${e.VITEST_TEST_NAME ? ` (noticed during "${e.VITEST_TEST_NAME}")` : ""}` : "outside any test file";
      const what = `${e.type ?? "Unhandled error"}: ${e.name ?? "Error"}: ${String(e.message ?? "").split("\n")[0].slice(0, 200)}`;
      return `${where}: ${what}`;
    });
    // The root names the files as the report's paths are absolute (combination 2 runs in a copy of the tree).
    fs.writeFileSync(this.out, JSON.stringify({ root: this.root, unhandled, retried: this.retried }, null, 1));
  }

  where(file) {
    return path.relative(this.root, file);
  }
}
