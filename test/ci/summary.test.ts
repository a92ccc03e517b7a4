// scripts/ci-summary.js, the last line of .ci/run, on real vitest reports of planted failures: a
// file that throws while loading, a beforeAll that throws, a failing test, a missing report; each
// counts, and a passing test counts as passed.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { root } from "../support/dist";

const script = path.join(root, "scripts/ci-summary.js");
let dir: string;

const PLANTED: Record<string, string> = {
  "passes.test.mjs": 'import { expect, it } from "vitest";\nit("passes", () => expect(1).toBe(1));\nit("passes too", () => expect(2).toBe(2));\n',
  "fails.test.mjs": 'import { expect, it } from "vitest";\nit("fails", () => expect(1).toBe(2));\nit("passes", () => expect(1).toBe(1));\n',
  "throws-loading.test.mjs": 'import { it } from "vitest";\nthrow new Error("planted: the file throws while loading");\nit("never collected", () => {});\n',
  // Fails on its first run and passes on its retry: the module (and its counter) stays loaded.
  "flaky.test.mjs": 'import { expect, it } from "vitest";\nlet runs = 0;\nit("passes the second time", () => expect(++runs).toBe(2));\n',
  "hook-throws.test.mjs": 'import { beforeAll, describe, expect, it } from "vitest";\ndescribe("a suite", () => {\n  beforeAll(() => { throw new Error("planted: beforeAll throws"); });\n  it("never runs", () => expect(1).toBe(1));\n});\n',
};

function vitest(files: string[], report: string, more: string[] = []): void {
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), "run", "--root", dir, "--config", path.join(dir, "vitest.config.mjs"),
    ...files, "--reporter=json", `--outputFile.json=${report}`, ...more], { cwd: dir, encoding: "utf8", timeout: 120_000, env: { ...process.env, SVC_FLAKY_LOG: `${report}.flaky` } });
  expect(fs.existsSync(report), `vitest wrote no report:\n${r.stdout}\n${r.stderr}`).toBe(true);
}

function summary(setupFailures: number, reports: string[]): { line: string; status: number | null; named: string[] } {
  const r = spawnSync(process.execPath, [script, String(setupFailures), ...reports], { encoding: "utf8", cwd: dir });
  const lines = r.stdout.trim().split("\n");
  return { line: lines.at(-1) ?? "", status: r.status, named: lines.slice(0, -1) };
}

beforeAll(() => {
  // Inside the checkout, so the planted files resolve vitest from its node_modules.
  fs.mkdirSync(path.join(root, "test/.tmp"), { recursive: true });
  dir = fs.mkdtempSync(path.join(root, "test/.tmp/ci-summary-"));
  fs.writeFileSync(path.join(dir, "vitest.config.mjs"), 'export default { test: { include: ["*.test.mjs"], pool: "forks" } };\n');
  for (const [name, text] of Object.entries(PLANTED)) fs.writeFileSync(path.join(dir, name), text);
  vitest(["passes.test.mjs"], path.join(dir, "green.json"));
  vitest(Object.keys(PLANTED).filter((f) => f !== "flaky.test.mjs"), path.join(dir, "planted.json"));
  // As .ci/run runs the suites: one retry, and the reporter that names what passed only on it.
  vitest(["flaky.test.mjs", "passes.test.mjs"], path.join(dir, "retried.json"), ["--retry=1", `--reporter=${path.join(root, "scripts/flaky-reporter.mjs")}`]);
}, 180_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it("a green report: its tests passed, none failed, exit 0", () => {
  expect(summary(0, [path.join(dir, "green.json")])).toEqual({ line: "2 passed, 0 failed", status: 0, named: [] });
});

it("counts a failing test, a file that throws while loading and a suite whose beforeAll throws", () => {
  // passes 2 + fails' passing test 1; failed: the failing test, the file that did not load, the
  // suite whose hook threw (its test never ran).
  const s = summary(0, [path.join(dir, "planted.json")]);
  expect(s).toMatchObject({ line: "3 passed, 3 failed", status: 1 });
  // Each failure is named above the line, so the end of a CI log says what to follow up.
  expect(s.named.sort()).toEqual([
    "failed: planted: fails.test.mjs > fails",
    "failed: planted: hook-throws.test.mjs (the file: failed outside its tests: a hook or an unhandled error)",
    expect.stringMatching(/^failed: planted: throws-loading\.test\.mjs \(the file: .*planted: the file throws while loading/),
  ]);
});

it("adds the setup failures and counts a missing or empty report as a failure", () => {
  fs.writeFileSync(path.join(dir, "empty.json"), "");
  expect(summary(2, [path.join(dir, "green.json"), path.join(dir, "missing.json"), path.join(dir, "empty.json")]))
    .toEqual({ line: "2 passed, 4 failed", status: 1, named: ["failed: missing: no report (its run never finished)", "failed: empty: no report (its run never finished)"] });
});

it("nothing passed is a failed run, even with nothing failed", () => {
  fs.writeFileSync(path.join(dir, "none.json"), JSON.stringify({ success: true, testResults: [] }));
  expect(summary(0, [path.join(dir, "none.json")])).toEqual({ line: "0 passed, 0 failed", status: 1, named: [] });
});

it("a test that passed on its retry counts as passed and is named as flaky above the line", () => {
  expect(summary(0, [path.join(dir, "retried.json")])).toEqual({
    line: "3 passed, 0 failed", status: 0, named: ["flaky: retried: flaky.test.mjs > passes the second time (passed on retry 1)"],
  });
});
