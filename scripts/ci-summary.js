#!/usr/bin/env node
// The last line of .ci/run: "N passed, N failed" over vitest JSON reports.
//
//   node scripts/ci-summary.js <setup-failures> <report.json>...
//
// Failed counts every failed test, every file or suite that failed with no failed test in it (a
// file that threw while loading, a beforeAll that threw: vitest reports them with no failed test),
// every report that is missing or empty (its run never finished), and the setup failures .ci/run
// counted itself (a CLI that could not be built). Exits 1 when anything failed or nothing passed.
"use strict";
const fs = require("fs");

/** Counts one vitest JSON report: { passed, failed }. */
function count(report) {
  let passed = 0;
  let failed = 0;
  for (const file of report.testResults ?? []) {
    const tests = file.assertionResults ?? [];
    passed += tests.filter((t) => t.status === "passed").length;
    const failedTests = tests.filter((t) => t.status === "failed").length;
    failed += failedTests;
    // A file that failed on its own (loading, a hook, an unhandled error) counts once.
    if (failedTests === 0 && file.status === "failed") failed += 1;
  }
  // Errors outside any file (an unhandled rejection between tests) fail the run too.
  if ((report.testResults ?? []).every((f) => f.status !== "failed") && report.success === false) failed += 1;
  return { passed, failed };
}

/** The summary of the reports at `files`, with `setupFailures` already counted. */
function summarize(setupFailures, files) {
  let passed = 0;
  let failed = Number(setupFailures) || 0;
  for (const f of files) {
    if (!fs.existsSync(f) || fs.statSync(f).size === 0) {
      failed += 1;
      continue;
    }
    const c = count(JSON.parse(fs.readFileSync(f, "utf8")));
    passed += c.passed;
    failed += c.failed;
  }
  return { passed, failed };
}

if (require.main === module) {
  const [setupFailures, ...files] = process.argv.slice(2);
  const { passed, failed } = summarize(setupFailures, files);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
}

module.exports = { count, summarize };
