// test/support/real.ts on a planted missing server, through real vitest runs: the tests that need
// it skip with the reason, or under SVC_REQUIRE_REAL (any truthy value) each fails, and the file's
// other tests run either way. CI's summary counts each failure, and each skip too: none is allowed.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { root } from "../support/dist";

const PLANTED = `import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { needsReal } from "../../support/real.ts";
describe("needs the server", () => {
  const can = needsReal("the planted server's tests", "planted: the server is missing");
  beforeAll(() => { if (can) throw new Error("planted: the server was started"); });
  beforeEach(() => { throw new Error("planted: a later hook ran before the check"); });
  it("one", () => expect(1).toBe(1));
  it.each([1, 2])("cell %i", (n) => expect(n).toBe(n));
});
it("needs nothing", () => expect(1).toBe(1));
`;

interface Report { testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[] }

let dir: string;
/** SVC_REQUIRE_REAL's value in each run; undefined leaves it unset. */
const MODES = { unset: undefined, "0": "0", false: "false", "1": "1", true: "true", yes: "yes", TRUE: "TRUE" } as const;
type Mode = keyof typeof MODES;
const runs = new Map<Mode, { report: Report; output: string }>();

function vitest(mode: Mode): void {
  const report = path.join(dir, `${mode}.json`);
  const env = { ...process.env };
  delete env.SVC_REQUIRE_REAL;
  if (MODES[mode] !== undefined) env.SVC_REQUIRE_REAL = MODES[mode];
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), "run", "--root", dir, "--config", path.join(dir, "vitest.config.mjs"),
    `--reporter=${path.join(root, "scripts/ci-reporter.mjs")}`, "--reporter=default", "--reporter=json", `--outputFile.json=${report}`], { cwd: dir, env, encoding: "utf8", timeout: 120_000 });
  expect(fs.existsSync(report), `vitest wrote no report:\n${r.stdout}\n${r.stderr}`).toBe(true);
  runs.set(mode, { report: JSON.parse(fs.readFileSync(report, "utf8")) as Report, output: r.stdout + r.stderr });
}

const run = (mode: Mode) => runs.get(mode) ?? { report: { testResults: [] }, output: "" };
const statuses = (mode: Mode) => Object.fromEntries(run(mode).report.testResults.flatMap((f) => f.assertionResults).map((t) => [t.title, t.status]));

/** CI's summary of one run, allowing no skip: its line, and the failures it names. */
function summary(mode: Mode): { line: string; named: string[] } {
  const none = path.join(dir, "no-skips.json");
  fs.writeFileSync(none, JSON.stringify({ skips: [] }));
  const r = spawnSync(process.execPath, [path.join(root, "scripts/ci-summary.js"), "--allowed-skips", none, "0", path.join(dir, `${mode}.json`)], { encoding: "utf8" });
  const lines = r.stdout.trim().split("\n");
  return { line: lines.at(-1) ?? "", named: lines.slice(0, -1).map((l) => l.replace(new RegExp(`^failed: ${mode}: .*planted\\.test\\.mjs > `), "")) };
}

beforeAll(() => {
  fs.mkdirSync(path.join(root, "test/.tmp"), { recursive: true });
  dir = fs.mkdtempSync(path.join(root, "test/.tmp/needs-real-"));
  fs.writeFileSync(path.join(dir, "vitest.config.mjs"), 'export default { test: { include: ["*.test.mjs"], pool: "forks" } };\n');
  fs.writeFileSync(path.join(dir, "planted.test.mjs"), PLANTED);
  for (const mode of Object.keys(MODES) as Mode[]) vitest(mode);
}, 300_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it.each(["unset", "0", "false"] as const)("SVC_REQUIRE_REAL %s: the tests that need the server skip with the reason printed; the others run", (mode) => {
  expect(statuses(mode)).toEqual({ one: "skipped", "cell 1": "skipped", "cell 2": "skipped", "needs nothing": "passed" });
  expect(run(mode).output).toContain("skipping the planted server's tests: planted: the server is missing");
});

it("CI fails on those skips all the same: only skips on its allow-list pass", () => {
  expect(summary("unset")).toEqual({
    line: "1 passed, 3 failed, 0 skipped",
    named: ["needs the server one (skipped: no entry of .ci/allowed-skips.json names it)", "needs the server cell 1 (skipped: no entry of .ci/allowed-skips.json names it)", "needs the server cell 2 (skipped: no entry of .ci/allowed-skips.json names it)"],
  });
});

it.each(["1", "true", "yes", "TRUE"] as const)("SVC_REQUIRE_REAL=%s: each test that needs the server fails with the reason; the others pass; CI counts each", (mode) => {
  expect(statuses(mode)).toEqual({ one: "failed", "cell 1": "failed", "cell 2": "failed", "needs nothing": "passed" });
  for (const t of run(mode).report.testResults.flatMap((f) => f.assertionResults).filter((a) => a.status === "failed")) {
    expect(t.failureMessages.join("\n")).toContain(`SVC_REQUIRE_REAL=${mode} but the planted server's tests cannot run: planted: the server is missing`);
  }
  // The summary line comes last, under one line naming each failure.
  expect(summary(mode)).toEqual({ line: "1 passed, 3 failed, 0 skipped", named: ["needs the server one", "needs the server cell 1", "needs the server cell 2"] });
});
