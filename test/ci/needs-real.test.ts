// test/support/real.ts on a planted missing server, through real vitest runs: the tests that need
// it skip with the reason, or with SVC_REQUIRE_REAL=1 each fails (and CI's summary counts each),
// and the file's other tests run either way.
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
type Mode = "skip" | "require";
const runs = new Map<Mode, { report: Report; output: string }>();

function vitest(name: Mode, env: NodeJS.ProcessEnv): void {
  const report = path.join(dir, `${name}.json`);
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), "run", "--root", dir, "--config", path.join(dir, "vitest.config.mjs"),
    "--reporter=default", "--reporter=json", `--outputFile.json=${report}`], { cwd: dir, env, encoding: "utf8", timeout: 120_000 });
  expect(fs.existsSync(report), `vitest wrote no report:\n${r.stdout}\n${r.stderr}`).toBe(true);
  runs.set(name, { report: JSON.parse(fs.readFileSync(report, "utf8")) as Report, output: r.stdout + r.stderr });
}

const run = (name: Mode) => runs.get(name) ?? { report: { testResults: [] }, output: "" };
const statuses = (name: Mode) => Object.fromEntries(run(name).report.testResults.flatMap((f) => f.assertionResults).map((t) => [t.title, t.status]));

beforeAll(() => {
  fs.mkdirSync(path.join(root, "test/.tmp"), { recursive: true });
  dir = fs.mkdtempSync(path.join(root, "test/.tmp/needs-real-"));
  fs.writeFileSync(path.join(dir, "vitest.config.mjs"), 'export default { test: { include: ["*.test.mjs"], pool: "forks" } };\n');
  fs.writeFileSync(path.join(dir, "planted.test.mjs"), PLANTED);
  const env = { ...process.env };
  delete env.SVC_REQUIRE_REAL;
  vitest("skip", env);
  vitest("require", { ...env, SVC_REQUIRE_REAL: "1" });
}, 180_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it("without SVC_REQUIRE_REAL: the tests that need the server skip with the reason printed; the others run", () => {
  expect(statuses("skip")).toEqual({ one: "skipped", "cell 1": "skipped", "cell 2": "skipped", "needs nothing": "passed" });
  expect(run("skip").output).toContain("skipping the planted server's tests: planted: the server is missing");
});

it("with SVC_REQUIRE_REAL=1: each test that needs the server fails with the reason; the others pass; CI counts each", () => {
  expect(statuses("require")).toEqual({ one: "failed", "cell 1": "failed", "cell 2": "failed", "needs nothing": "passed" });
  for (const t of run("require").report.testResults.flatMap((f) => f.assertionResults).filter((a) => a.status === "failed")) {
    expect(t.failureMessages.join("\n")).toContain("SVC_REQUIRE_REAL=1 but the planted server's tests cannot run: planted: the server is missing");
  }
  const r = spawnSync(process.execPath, [path.join(root, "scripts/ci-summary.js"), "0", path.join(dir, "require.json")], { encoding: "utf8" });
  // The summary line comes last, under one line naming each failure.
  const lines = r.stdout.trim().split("\n");
  expect(lines.at(-1)).toBe("1 passed, 3 failed");
  expect(lines.slice(0, -1).map((l) => l.replace(/^failed: require: .*planted\.test\.mjs > /, ""))).toEqual(["needs the server one", "needs the server cell 1", "needs the server cell 2"]);
});
