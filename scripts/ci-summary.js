#!/usr/bin/env node
// The last line of .ci/run: "N passed, N failed, N skipped" over vitest JSON reports.
//
//   node scripts/ci-summary.js [--allowed-skips FILE] <setup-failures> <report.json>...
//
// Failed counts every failed test; every file or suite that failed with no failed test in it (a
// file that threw while loading, a beforeAll that threw: vitest reports them with no failed test);
// every unhandled error and every test that passed only on a retry (scripts/ci-reporter.mjs writes
// both to `<report>.ci.json`, which must be there: vitest's report leaves them out); every skipped
// or todo test that no entry of the allow-list (.ci/allowed-skips.json) names (in a file that did
// not fail already), every name of the list that matched no skip, and every one that matched more
// than one test of a report; a run that exited non-zero (`<report>.exit`) with nothing failed in its
// report; every report that is missing or empty (its run never finished); and the setup failures
// .ci/run counted itself. Skipped counts the skips the allow-list names. Exits 1 when anything failed
// or nothing passed. Above the line it names each failure, and each allowed skip's reason with its
// count.
"use strict";
const fs = require("fs");
const path = require("path");

const ALLOWED_SKIPS = path.join(__dirname, "../.ci/allowed-skips.json");

/**
 * The allow-list of skips: entries of { tests (each the exact "<file> > <full name>" of the one test
 * it allows), combination (the report's name; any when absent), reason }. Each name is an item of
 * its own: it counts the tests it matched in each report. An entry without a reason, or naming no
 * test, is an error; so is the old `test` pattern, which could match any number of tests.
 */
function allowList(file) {
  const entries = JSON.parse(fs.readFileSync(file, "utf8")).skips;
  if (!Array.isArray(entries)) throw new Error(`${file}: "skips" must be a list`);
  return entries.flatMap((e, i) => {
    if (typeof e.reason !== "string" || !e.reason.trim()) throw new Error(`${file}: skips[${i}] gives no reason`);
    if (e.test !== undefined) throw new Error(`${file}: skips[${i}] gives a pattern ("test"): name each test it allows in "tests" instead`);
    if (!Array.isArray(e.tests) || e.tests.length === 0 || !e.tests.every((t) => typeof t === "string" && t.includes(" > "))) {
      throw new Error(`${file}: skips[${i}] names no test: "tests" lists each test it allows as "<file> > <full name>"`);
    }
    return e.tests.map((name) => ({ name, entry: i, combination: e.combination, reason: e.reason, matched: new Map() }));
  });
}

const total = (item) => [...item.matched.values()].reduce((a, b) => a + b, 0);

/**
 * Counts one vitest JSON report: { passed, failed, skipped, names }. `names` says what failed, one
 * line each, because CI keeps only the end of the log and a count alone cannot be followed up.
 * A skip counts as skipped only when an entry of `allowed` for this combination names it.
 */
function count(report, { label = "", root = process.cwd(), allowed = [] } = {}) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const names = [];
  const fail = (what) => {
    failed += 1;
    names.push(`${label}: ${what}`);
  };
  for (const file of report.testResults ?? []) {
    const tests = file.assertionResults ?? [];
    const where = path.relative(root, file.name ?? "");
    for (const t of tests) {
      const id = `${where} > ${t.fullName ?? t.title}`;
      if (t.status === "passed") passed += 1;
      else if (t.status === "failed") fail(id);
      else if (t.status === "skipped" || t.status === "todo") {
        // A file that failed counts (below): a beforeAll that threw reports its tests as skipped.
        if (file.status === "failed") continue;
        const item = allowed.find((e) => (e.combination === undefined || e.combination === label) && e.name === id);
        if (!item) {
          fail(`${id} (${t.status}: no entry of .ci/allowed-skips.json names it)`);
          continue;
        }
        item.matched.set(label, (item.matched.get(label) ?? 0) + 1);
        skipped += 1;
      } else fail(`${id} (${t.status}: it never finished)`);
    }
    // A file that failed on its own (loading, a hook) counts once.
    if (!tests.some((t) => t.status === "failed") && file.status === "failed") fail(`${where} (the file: ${firstLine(file.message)})`);
  }
  // Errors outside any file fail the run too.
  if ((report.testResults ?? []).every((f) => f.status !== "failed") && report.success === false) fail("an error outside any test file");
  return { passed, failed, skipped, names };
}

function firstLine(text) {
  return String(text || "failed outside its tests: a hook or an unhandled error").split("\n")[0].slice(0, 200);
}

const readJson = (f) => (fs.existsSync(f) && fs.statSync(f).size > 0 ? JSON.parse(fs.readFileSync(f, "utf8")) : undefined);

/** The summary of the reports at `files`, with `setupFailures` already counted. */
function summarize(setupFailures, files, allowedFile = ALLOWED_SKIPS) {
  const allowed = allowList(allowedFile);
  let passed = 0;
  let skipped = 0;
  let failed = Number(setupFailures) || 0;
  const names = [];
  const read = new Set();
  for (const f of files) {
    const label = path.basename(f, ".json");
    const report = readJson(f);
    if (!report) {
      failed += 1;
      names.push(`${label}: no report (its run never finished)`);
      continue;
    }
    read.add(label);
    const more = readJson(`${f}.ci.json`);
    const c = count(report, { label, root: more?.root, allowed });
    const before = failed;
    passed += c.passed;
    skipped += c.skipped;
    failed += c.failed;
    names.push(...c.names);
    if (!more) {
      failed += 1;
      names.push(`${label}: no ${path.basename(f)}.ci.json beside the report (vitest ran without --reporter=scripts/ci-reporter.mjs)`);
      continue;
    }
    for (const u of more.unhandled) {
      failed += 1;
      names.push(`${label}: ${u}`);
    }
    // CI retries nothing: a test that passed only on a retry (a `retry` option) failed once, and
    // that failure may be a real defect.
    for (const r of more.retried.filter((x) => x.state === "passed")) {
      passed -= 1;
      failed += 1;
      names.push(`${label}: ${r.name} (passed only on retry ${r.retries}; CI counts its failure)`);
    }
    const exit = fs.existsSync(`${f}.exit`) ? fs.readFileSync(`${f}.exit`, "utf8").trim() : "0";
    if (exit !== "0" && failed === before) {
      failed += 1;
      names.push(`${label}: vitest exited ${exit} with no failure in its report`);
    }
  }
  for (const e of allowed) {
    // A name that matches more than one test allows a skip nobody listed: two tests of one name.
    for (const [label, n] of e.matched) {
      if (n <= 1) continue;
      failed += 1;
      names.push(`.ci/allowed-skips.json: ${n} tests in ${label} are named ${e.name}: each name allows one test`);
    }
    // A stale name would let a later skip of the same name pass unseen: the list holds what skips now.
    if (total(e) > 0 || (e.combination === undefined ? read.size === 0 : !read.has(e.combination))) continue;
    failed += 1;
    names.push(`.ci/allowed-skips.json: a name no skip matched: ${e.name}`);
  }
  const reasons = [...new Set(allowed.map((e) => e.entry))].flatMap((i) => {
    const items = allowed.filter((e) => e.entry === i);
    const n = items.reduce((a, e) => a + total(e), 0);
    return n > 0 ? [`${n}${items[0].combination ? ` in ${items[0].combination}` : ""}: ${items[0].reason}`] : [];
  });
  return { passed, failed, skipped, names, reasons };
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const allowedFile = args[0] === "--allowed-skips" ? args.splice(0, 2)[1] : ALLOWED_SKIPS;
  const [setupFailures, ...files] = args;
  const { passed, failed, skipped, names, reasons } = summarize(setupFailures, files, allowedFile);
  for (const reason of reasons) console.log(`skipped: ${reason}`);
  for (const name of names) console.log(`failed: ${name}`);
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
}

module.exports = { count, summarize };
