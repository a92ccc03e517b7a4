// scripts/ci-summary.js, the last line of .ci/run, on real vitest reports of planted failures (run
// as .ci/run runs vitest: the JSON reporter and scripts/ci-reporter.mjs): a file that throws while
// loading, a beforeAll that throws, a failing test, a passing test that leaves an unhandled
// rejection, a test that passes only on a retry, skips of every kind, a missing report; each counts,
// and a passing test counts as passed.
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
  // Passes, and leaves a rejection nobody handles: vitest exits 1, its JSON report says success.
  "unhandled.test.mjs": 'import { expect, it } from "vitest";\nit("passes and leaves a rejection", () => { Promise.reject(new Error("planted: nobody handles this")); expect(1).toBe(1); });\n',
  "skips.test.mjs": 'import { describe, expect, it } from "vitest";\nit("passes", () => expect(1).toBe(1));\nit.skip("skipped", () => expect(1).toBe(1));\n' +
    'it("skips itself", (ctx) => ctx.skip("planted"));\ndescribe.skip("a skipped suite", () => it("in it", () => expect(1).toBe(1)));\nit.todo("to do");\n',
  // Two tests of one name, both skipped.
  "twice.test.mjs": 'import { expect, it } from "vitest";\nit("passes", () => expect(1).toBe(1));\nit.skip("skipped", () => {});\nit.skip("skipped", () => {});\n',
};

/** Vitest on `files`, as .ci/run runs it: its exit code beside the report, as .ci/run writes it. */
function vitest(files: string[], report: string, { more = [] as string[], ciReporter = true } = {}): void {
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), "run", "--root", dir, "--config", path.join(dir, "vitest.config.mjs"),
    ...files, ...(ciReporter ? [`--reporter=${path.join(root, "scripts/ci-reporter.mjs")}`] : []), "--reporter=json", `--outputFile.json=${report}`, ...more],
  { cwd: dir, encoding: "utf8", timeout: 120_000 });
  expect(fs.existsSync(report), `vitest wrote no report:\n${r.stdout}\n${r.stderr}`).toBe(true);
  fs.writeFileSync(`${report}.exit`, `${r.status}\n`);
}

const report = (name: string) => path.join(dir, `${name}.json`);

function summary(setupFailures: number, reports: string[], allowList?: unknown): { line: string; status: number | null; named: string[]; stderr: string } {
  const allowed = path.join(dir, "allowed-skips.json");
  fs.writeFileSync(allowed, JSON.stringify(allowList ?? { skips: [] }));
  const r = spawnSync(process.execPath, [script, "--allowed-skips", allowed, String(setupFailures), ...reports], { encoding: "utf8", cwd: dir });
  const lines = r.stdout.trim().split("\n");
  return { line: lines.at(-1) ?? "", status: r.status, named: lines.slice(0, -1), stderr: r.stderr };
}

beforeAll(() => {
  // Inside the checkout, so the planted files resolve vitest from its node_modules.
  fs.mkdirSync(path.join(root, "test/.tmp"), { recursive: true });
  dir = fs.mkdtempSync(path.join(root, "test/.tmp/ci-summary-"));
  fs.writeFileSync(path.join(dir, "vitest.config.mjs"), 'export default { test: { include: ["*.test.mjs"], pool: "forks" } };\n');
  for (const [name, text] of Object.entries(PLANTED)) fs.writeFileSync(path.join(dir, name), text);
  vitest(["passes.test.mjs"], report("green"));
  vitest(["passes.test.mjs", "fails.test.mjs", "throws-loading.test.mjs", "hook-throws.test.mjs"], report("planted"));
  vitest(["unhandled.test.mjs", "passes.test.mjs"], report("unhandled"));
  vitest(["skips.test.mjs"], report("skips"));
  vitest(["twice.test.mjs"], report("twice"));
  // A retry given to vitest (CI gives none): the test that needed it must still count as failed.
  vitest(["flaky.test.mjs", "passes.test.mjs"], report("retried"), { more: ["--retry=1"] });
  vitest(["passes.test.mjs"], report("bare"), { ciReporter: false });
}, 240_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it("a green report: its tests passed, none failed or skipped, exit 0", () => {
  expect(summary(0, [report("green")])).toEqual({ line: "2 passed, 0 failed, 0 skipped", status: 0, named: [], stderr: "" });
});

it("counts a failing test, a file that throws while loading and a suite whose beforeAll throws", () => {
  // passes 2 + fails' passing test 1; failed: the failing test, the file that did not load, the
  // suite whose hook threw (its test never ran).
  const s = summary(0, [report("planted")]);
  expect(s).toMatchObject({ line: "3 passed, 3 failed, 0 skipped", status: 1 });
  // Each failure is named above the line, so the end of a CI log says what to follow up.
  expect(s.named.sort()).toEqual([
    "failed: planted: fails.test.mjs > fails",
    "failed: planted: hook-throws.test.mjs (the file: failed outside its tests: a hook or an unhandled error)",
    expect.stringMatching(/^failed: planted: throws-loading\.test\.mjs \(the file: .*planted: the file throws while loading/),
  ]);
});

it("counts an unhandled error as a failure, named, though vitest's report says success", () => {
  expect(JSON.parse(fs.readFileSync(report("unhandled"), "utf8")).success, "the planted case: vitest 4 reports success").toBe(true);
  expect(fs.readFileSync(`${report("unhandled")}.exit`, "utf8").trim(), "and exits 1").toBe("1");
  expect(summary(0, [report("unhandled")])).toEqual({
    line: "3 passed, 1 failed, 0 skipped", status: 1, stderr: "",
    named: [expect.stringMatching(/^failed: unhandled: unhandled\.test\.mjs.*: Unhandled Rejection: Error: planted: nobody handles this$/)],
  });
});

it("a run that exited non-zero with nothing failed in its report counts as a failure", () => {
  for (const f of ["green.json", "green.json.ci.json"]) fs.copyFileSync(path.join(dir, f), path.join(dir, `exited-${f}`));
  fs.writeFileSync(`${report("exited-green")}.exit`, "1\n");
  expect(summary(0, [report("exited-green")])).toMatchObject({ line: "2 passed, 1 failed, 0 skipped", status: 1, named: ["failed: exited-green: vitest exited 1 with no failure in its report"] });
});

it("a report without scripts/ci-reporter.mjs beside it counts as a failure: what it would name is unknown", () => {
  expect(summary(0, [report("bare")])).toMatchObject({ line: "2 passed, 1 failed, 0 skipped", status: 1, named: [expect.stringContaining("failed: bare: no bare.json.ci.json beside the report")] });
});

it("a test that passed only on a retry counts as failed, named (CI retries nothing; a retry must not hide its first failure)", () => {
  expect(summary(0, [report("retried")])).toEqual({
    line: "2 passed, 1 failed, 0 skipped", status: 1, stderr: "",
    named: ["failed: retried: flaky.test.mjs > passes the second time (passed only on retry 1; CI counts its failure)"],
  });
});

it("every skip (it.skip, ctx.skip(), describe.skip, it.todo) fails unless the allow-list names it", () => {
  const s = summary(0, [report("skips")]);
  expect(s).toMatchObject({ line: "1 passed, 4 failed, 0 skipped", status: 1 });
  expect(s.named.sort()).toEqual([
    "failed: skips: skips.test.mjs > a skipped suite in it (skipped: no entry of .ci/allowed-skips.json names it)",
    "failed: skips: skips.test.mjs > skipped (skipped: no entry of .ci/allowed-skips.json names it)",
    "failed: skips: skips.test.mjs > skips itself (skipped: no entry of .ci/allowed-skips.json names it)",
    "failed: skips: skips.test.mjs > to do (todo: no entry of .ci/allowed-skips.json names it)",
  ]);
});

it("a skip the allow-list names (for its combination) counts as skipped, with the entry's reason above the line", () => {
  const skips = [
    { tests: ["skips.test.mjs > skipped", "skips.test.mjs > to do"], combination: "skips", reason: "planted: allowed here" },
    { tests: ["skips.test.mjs > skips itself"], combination: "node22", reason: "planted: allowed in another combination only" },
  ];
  const s = summary(0, [report("skips")], { skips });
  expect(s).toMatchObject({ line: "1 passed, 2 failed, 2 skipped", status: 1 });
  expect(s.named).toEqual([
    "skipped: 2 in skips: planted: allowed here",
    "failed: skips: skips.test.mjs > skips itself (skipped: no entry of .ci/allowed-skips.json names it)",
    "failed: skips: skips.test.mjs > a skipped suite in it (skipped: no entry of .ci/allowed-skips.json names it)",
  ]);
});

it("a name allows the one test it names: another test of the file does not answer to it, and a second test of that name fails the run", () => {
  // A name is no pattern: its start, or a test that merely begins with it, is not it.
  const start = summary(0, [report("skips")], { skips: [{ tests: ["skips.test.mjs > skip"], combination: "skips", reason: "planted: a name cut short" }] });
  expect(start.named).toContain("failed: .ci/allowed-skips.json: a name no skip matched: skips.test.mjs > skip");
  const twice = summary(0, [report("twice")], { skips: [{ tests: ["twice.test.mjs > skipped"], combination: "twice", reason: "planted: one name, two tests" }] });
  expect(twice).toMatchObject({
    line: "1 passed, 1 failed, 2 skipped", status: 1,
    named: ["skipped: 2 in twice: planted: one name, two tests", "failed: .ci/allowed-skips.json: 2 tests in twice are named twice.test.mjs > skipped: each name allows one test"],
  });
});

it("an allow-list name that no skip matched fails the run (the list holds what skips now); an entry without a reason, or with a pattern, is refused", () => {
  const stale = summary(0, [report("green")], { skips: [{ tests: ["gone.test.mjs > a test"], reason: "planted: the test was removed" }] });
  expect(stale).toMatchObject({ line: "2 passed, 1 failed, 0 skipped", status: 1, named: ["failed: .ci/allowed-skips.json: a name no skip matched: gone.test.mjs > a test"] });
  const bare = summary(0, [report("skips")], { skips: [{ tests: ["skips.test.mjs > skipped"] }] });
  expect(bare.status).toBe(1);
  expect(bare.stderr).toContain("skips[0] gives no reason");
  // The pattern of old: it matched whatever skip came to read like it.
  const pattern = summary(0, [report("skips")], { skips: [{ test: "^skips\\.test\\.mjs > ", reason: "planted: any skip of the file" }] });
  expect(pattern.status).toBe(1);
  expect(pattern.stderr).toContain('skips[0] gives a pattern ("test"): name each test it allows in "tests" instead');
  const none = summary(0, [report("skips")], { skips: [{ tests: [], reason: "planted: names nothing" }] });
  expect(none.stderr).toContain('skips[0] names no test: "tests" lists each test it allows as "<file> > <full name>"');
});

it("the repository's allow-list: each entry names its tests with its reason, and few entries", () => {
  const { skips } = JSON.parse(fs.readFileSync(path.join(root, ".ci/allowed-skips.json"), "utf8")) as { skips: { tests: string[]; reason: string; combination?: string }[] };
  expect(skips.length).toBeGreaterThan(0);
  expect(skips.length, "a short list: fix a skip rather than allow it").toBeLessThanOrEqual(5);
  for (const e of skips) {
    for (const t of e.tests) expect(t).toMatch(/^test\/\S+\.test\.ts > \S/);
    expect(e.reason.length, e.tests[0]).toBeGreaterThan(20);
    expect([undefined, "node20", "node22"]).toContain(e.combination);
  }
});

it("adds the setup failures and counts a missing or empty report as a failure", () => {
  fs.writeFileSync(path.join(dir, "empty.json"), "");
  expect(summary(2, [report("green"), report("missing"), report("empty")])).toMatchObject({
    line: "2 passed, 4 failed, 0 skipped", status: 1, named: ["failed: missing: no report (its run never finished)", "failed: empty: no report (its run never finished)"],
  });
});

it("nothing passed is a failed run, even with nothing failed", () => {
  fs.writeFileSync(report("none"), JSON.stringify({ success: true, testResults: [] }));
  fs.writeFileSync(`${report("none")}.ci.json`, JSON.stringify({ root: dir, unhandled: [], retried: [] }));
  expect(summary(0, [report("none")])).toMatchObject({ line: "0 passed, 0 failed, 0 skipped", status: 1, named: [] });
});
