#!/usr/bin/env node
// Checks the test files against what vitest collects, and the paths .ci/run gives vitest, before
// it runs: vitest never collects a file outside every project's include list, and ignores a path
// filter that matches no collected file while others match, so a new suite in a folder of its own,
// or a renamed one, would drop out of a run unseen.
//
//   node scripts/ci-paths.js [vitest arguments]...
//
// Run from the folder vitest runs in. Every test file under test/ (a name vitest takes for a test:
// `.test.` or `.spec.` before a JavaScript or TypeScript extension; test/.tmp, where the suite's own
// tests plant files, left out) must be in a project (`vitest list --filesOnly`). Each path filter
// (an argument not starting with "-") must be part of the path of a collected test file (vitest's
// own rule: a file runs when its path contains a filter), and each `--exclude` must name one
// exactly. Other options must be written `--name=value`. Exits 1, naming each problem.
"use strict";
const { spawnSync } = require("child_process");
const fs = require("fs");
const path = require("path");

const TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$/;
const slashed = (f) => f.split(path.sep).join("/");

/** Every test file under test/ on disk, as a path relative to the current folder with "/" separators. */
function testFiles() {
  return fs.readdirSync("test", { recursive: true, encoding: "utf8" })
    .map((f) => slashed(path.join("test", f)))
    .filter((f) => TEST_FILE.test(f) && !f.startsWith("test/.tmp/") && !f.split("/").includes("node_modules"));
}

/** The test files vitest's projects collect here (vitest list), relative like testFiles(). */
function collected() {
  const r = spawnSync(process.execPath, [path.resolve("node_modules/vitest/vitest.mjs"), "list", "--filesOnly", "--json"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`vitest list --filesOnly failed (exit ${r.status}): ${r.stderr.trim().split("\n")[0]}`);
  return [...new Set(JSON.parse(r.stdout).map((t) => slashed(path.relative(process.cwd(), t.file))))];
}

/** The test files on disk that no project collects. */
function uncollected(files, found) {
  return files.filter((f) => !found.includes(f)).map((f) => `${f}: in no project of vitest.config.mts, so it never runs`);
}

/** The arguments that match no collected test file, with why. */
function unmatched(args, files) {
  const problems = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--exclude") {
      const excluded = args[++i];
      if (!files.includes(excluded)) problems.push(`--exclude ${excluded}: no such test file`);
    } else if (a.startsWith("-")) {
      if (!a.includes("=")) problems.push(`${a}: write options as ${a}=value, so that a value is never taken for a path`);
    } else if (!files.some((f) => f.includes(a))) {
      problems.push(`${a}: no test file's path contains it`);
    }
  }
  return problems;
}

if (require.main === module) {
  let problems;
  try {
    const found = collected();
    problems = [...uncollected(testFiles(), found), ...unmatched(process.argv.slice(2), found)];
  } catch (e) {
    problems = [e.message];
  }
  for (const p of problems) console.error(`scripts/ci-paths.js: ${p}`);
  process.exitCode = problems.length > 0 ? 1 : 0;
}

module.exports = { testFiles, collected, uncollected, unmatched };
