#!/usr/bin/env node
// Checks the paths .ci/run gives vitest, before it runs: vitest ignores a path filter that matches
// no test file while others match, so a renamed suite would drop out of a run unseen.
//
//   node scripts/ci-paths.js <vitest arguments>...
//
// Run from the folder vitest runs in. Each path filter (an argument not starting with "-") must be
// part of the path of a test file (vitest's own rule: a file runs when its path contains a filter),
// and each `--exclude` must name a test file exactly. Other options must be written `--name=value`.
// Exits 1, naming each path that matches nothing.
"use strict";
const fs = require("fs");
const path = require("path");

/** Every test file under test/, as a path relative to the current folder with "/" separators. */
function testFiles() {
  return fs.readdirSync("test", { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".test.ts") && !f.split(path.sep).includes("node_modules"))
    .map((f) => path.join("test", f).split(path.sep).join("/"));
}

/** The arguments that match no test file, with why. */
function unmatched(args, files = testFiles()) {
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
  const problems = unmatched(process.argv.slice(2));
  for (const p of problems) console.error(`scripts/ci-paths.js: ${p}`);
  process.exitCode = problems.length > 0 ? 1 : 0;
}

module.exports = { unmatched };
