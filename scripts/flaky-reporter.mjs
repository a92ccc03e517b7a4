// A vitest reporter for CI, where .ci/run gives each test one retry (--retry=1): it writes each test
// that failed and then passed on its retry to the file SVC_FLAKY_LOG, one line each, so that
// scripts/ci-summary.js names it. A retry lets CI land past one chance failure among thousands of
// tests with real processes; it must not hide which test needed it.
import * as fs from "node:fs";
import * as path from "node:path";

export default class FlakyReporter {
  onTestCaseResult(testCase) {
    const log = process.env.SVC_FLAKY_LOG;
    const d = testCase.diagnostic();
    if (!log || !d?.flaky) return;
    const file = path.relative(process.cwd(), testCase.module.moduleId);
    fs.appendFileSync(log, `${file} > ${testCase.fullName} (passed on retry ${d.retryCount})\n`);
  }
}
