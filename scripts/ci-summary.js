#!/usr/bin/env node
// The last line of .ci/run: "N passed, N failed" over vitest JSON reports.
//
//   node scripts/ci-summary.js <setup-failures> <report.json>...
//
// Failed counts every failed test, every file or suite that failed with no failed test in it (a
// file that threw while loading, a beforeAll that threw: vitest reports them with no failed test),
// every report that is missing or empty (its run never finished), and the setup failures .ci/run
// counted itself (a CLI that could not be built). Exits 1 when anything failed or nothing passed.
// Above the line it names each failure, and each test that passed only on its retry (the file
// `<report>.flaky` that scripts/flaky-reporter.mjs writes beside a report).
"use strict";
const fs = require("fs");
const path = require("path");

/**
 * Counts one vitest JSON report: { passed, failed, names }. `names` says what failed, one line each,
 * because CI keeps only the end of the log and a count alone cannot be followed up.
 */
function count(report, label = "") {
  let passed = 0;
  let failed = 0;
  const names = [];
  for (const file of report.testResults ?? []) {
    const tests = file.assertionResults ?? [];
    const where = path.relative(process.cwd(), file.name ?? "");
    passed += tests.filter((t) => t.status === "passed").length;
    const failedTests = tests.filter((t) => t.status === "failed");
    failed += failedTests.length;
    for (const t of failedTests) names.push(`${label}${where} > ${t.fullName ?? t.title}`);
    // A file that failed on its own (loading, a hook, an unhandled error) counts once.
    if (failedTests.length === 0 && file.status === "failed") {
      failed += 1;
      names.push(`${label}${where} (the file: ${firstLine(file.message)})`);
    }
  }
  // Errors outside any file (an unhandled rejection between tests) fail the run too.
  if ((report.testResults ?? []).every((f) => f.status !== "failed") && report.success === false) {
    failed += 1;
    names.push(`${label}an error outside any test file`);
  }
  return { passed, failed, names };
}

function firstLine(text) {
  return String(text || "failed outside its tests: a hook or an unhandled error").split("\n")[0].slice(0, 200);
}

/** The summary of the reports at `files`, with `setupFailures` already counted. */
function summarize(setupFailures, files) {
  let passed = 0;
  let failed = Number(setupFailures) || 0;
  const names = [];
  const flaky = [];
  for (const f of files) {
    const label = `${path.basename(f, ".json")}: `;
    if (!fs.existsSync(f) || fs.statSync(f).size === 0) {
      failed += 1;
      names.push(`${label}no report (its run never finished)`);
      continue;
    }
    const c = count(JSON.parse(fs.readFileSync(f, "utf8")), label);
    passed += c.passed;
    failed += c.failed;
    names.push(...c.names);
    // Tests that passed on their retry (scripts/flaky-reporter.mjs): passed, and named all the same.
    const flakyLog = `${f}.flaky`;
    if (fs.existsSync(flakyLog)) {
      for (const line of fs.readFileSync(flakyLog, "utf8").split("\n").filter(Boolean)) flaky.push(`${label}${line}`);
    }
  }
  return { passed, failed, names, flaky };
}

if (require.main === module) {
  const [setupFailures, ...files] = process.argv.slice(2);
  const { passed, failed, names, flaky } = summarize(setupFailures, files);
  for (const name of flaky) console.log(`flaky: ${name}`);
  for (const name of names) console.log(`failed: ${name}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
}

module.exports = { count, summarize };
