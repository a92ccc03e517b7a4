// The repository's allow-list (.ci/allowed-skips.json) against the skips an example file really
// registers in each combination of .ci/run: collected by real vitest (only the skips run, by name),
// then summed by scripts/ci-summary.js. Every skip an example registers is one CI allows there, and
// no lifecycle drops out without a skip to show for it.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { root } from "../support/dist";

/** How .ci/run sets each combination up, as far as the example files read it. */
const COMBINATIONS = {
  node20: { SVC_LANGHOST: "official" },
  node22: { SVC_LANGHOST: "ours", SVC_EXAMPLES_CLI_ONLY: "1" },
} as const;
type Combination = keyof typeof COMBINATIONS;
/** The skips an example file registers: the steps of an example with no out-of-band edit, and a left-out lifecycle. */
const SKIPS = "no out-of-band edit|left out";

let dir: string;
const reports = new Map<Combination, { names: string[]; summary: string[] }>();

function collect(combination: Combination): void {
  const report = path.join(dir, `${combination}.json`);
  const env: NodeJS.ProcessEnv = { ...process.env, ...COMBINATIONS[combination] };
  // Left unset, a missing tool skips rather than fails, and its skip shows below.
  delete env.SVC_REQUIRE_REAL;
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), "run", "test/cli/examples/runs.test.ts", "-t", SKIPS,
    `--reporter=${path.join(root, "scripts/ci-reporter.mjs")}`, "--reporter=json", `--outputFile.json=${report}`], { cwd: root, env, encoding: "utf8", timeout: 180_000 });
  expect(fs.existsSync(report), `vitest wrote no report:\n${r.stdout}\n${r.stderr}`).toBe(true);
  const names = (JSON.parse(fs.readFileSync(report, "utf8")) as { testResults: { assertionResults: { fullName: string }[] }[] })
    .testResults.flatMap((f) => f.assertionResults.map((a) => a.fullName)).filter((n) => new RegExp(SKIPS).test(n));
  const s = spawnSync(process.execPath, [path.join(root, "scripts/ci-summary.js"), "0", report], { cwd: root, encoding: "utf8" });
  reports.set(combination, { names, summary: s.stdout.trim().split("\n") });
}

beforeAll(() => {
  fs.mkdirSync(path.join(root, "test/.tmp"), { recursive: true });
  dir = fs.mkdtempSync(path.join(root, "test/.tmp/allowed-skips-"));
  for (const c of Object.keys(COMBINATIONS) as Combination[]) collect(c);
}, 360_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it("combination 1: the two lifecycles' out-of-band step of examples/runs (its cli.json says why) is the only skip, and allowed", () => {
  const { names, summary } = reports.get("node20")!;
  expect(names).toEqual([
    expect.stringMatching(/^examples\/runs under the real Pulumi CLI \(Pulumi's official language host\) no out-of-band edit: A run cannot be changed/),
    expect.stringMatching(/^examples\/runs through the engine double no out-of-band edit: /),
  ]);
  expect(summary.filter((l) => new RegExp(SKIPS).test(l) && l.startsWith("failed:")), "skips CI would fail on").toEqual([]);
  expect(summary.at(-1)).toMatch(/ failed, 2 skipped$/);
});

it("combination 2: the engine double's and our host's lifecycles show as skips, and with the out-of-band step are allowed there", () => {
  const { names, summary } = reports.get("node22")!;
  expect(names.sort()).toEqual([
    "examples/runs through the engine double: left out under SVC_EXAMPLES_CLI_ONLY=1 (combination 1 runs it)",
    expect.stringMatching(/^examples\/runs under the real Pulumi CLI \(our language host\) no out-of-band edit: /),
    "examples/runs under the real Pulumi CLI with our language host: left out under SVC_LANGHOST=ours (the lifecycle above runs under it)",
  ]);
  expect(summary.filter((l) => new RegExp(SKIPS).test(l) && l.startsWith("failed:")), "skips CI would fail on").toEqual([]);
  expect(summary.at(-1)).toMatch(/ failed, 3 skipped$/);
});

it("the same skips in a combination the list does not name for them fail", () => {
  const node22 = path.join(dir, "node22.json");
  for (const f of [node22, `${node22}.ci.json`]) fs.copyFileSync(f, f.replace("node22.json", "node20.json"));
  const s = spawnSync(process.execPath, [path.join(root, "scripts/ci-summary.js"), "0", path.join(dir, "node20.json")], { cwd: root, encoding: "utf8" });
  const failed = s.stdout.split("\n").filter((l) => l.startsWith("failed:") && / left out under /.test(l));
  expect(failed).toHaveLength(2);
});
