// The repository's allow-list (.ci/allowed-skips.json) against the skips the example files really
// register in each combination of .ci/run: collected by real vitest (only the skips run, by name),
// then summed by scripts/ci-summary.js. Every skip an example registers is one CI allows there, each
// name of the list allows the one test it names, and no lifecycle drops out without a skip to show
// for it. Planted in copies of the reports: the skips of an example whose out-of-band steps were
// left out, and a name that two tests answer to.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { root } from "../support/dist";
import { examples } from "../cli/expectations";

/** How .ci/run sets each combination up, as far as the example files read it. */
const COMBINATIONS = {
  node20: { SVC_LANGHOST: "official" },
  node22: { SVC_LANGHOST: "ours", SVC_EXAMPLES_CLI_ONLY: "1" },
} as const;
type Combination = keyof typeof COMBINATIONS;
/** The skips an example file registers: the steps of an example with no out-of-band edit, and a left-out lifecycle. */
const SKIPS = "no out-of-band edit|left out";

interface Report { testResults: { name: string; assertionResults: { fullName: string; status: string }[] }[] }

let dir: string;
const reports = new Map<Combination, { names: string[]; summary: string[] }>();

const reportOf = (combination: string) => path.join(dir, `${combination}.json`);

function summarize(...files: string[]): string[] {
  const s = spawnSync(process.execPath, [path.join(root, "scripts/ci-summary.js"), "0", ...files], { cwd: root, encoding: "utf8" });
  return s.stdout.trim().split("\n");
}

function collect(combination: Combination): void {
  const report = reportOf(combination);
  const env: NodeJS.ProcessEnv = { ...process.env, ...COMBINATIONS[combination] };
  // Left unset, a missing tool skips rather than fails, and its skip shows below.
  delete env.SVC_REQUIRE_REAL;
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), "run", "test/cli/examples/", "-t", SKIPS,
    `--reporter=${path.join(root, "scripts/ci-reporter.mjs")}`, "--reporter=json", `--outputFile.json=${report}`], { cwd: root, env, encoding: "utf8", timeout: 180_000 });
  expect(fs.existsSync(report), `vitest wrote no report:\n${r.stdout}\n${r.stderr}`).toBe(true);
  const names = (JSON.parse(fs.readFileSync(report, "utf8")) as Report)
    .testResults.flatMap((f) => f.assertionResults.map((a) => a.fullName)).filter((n) => new RegExp(SKIPS).test(n));
  reports.set(combination, { names, summary: summarize(report) });
}

/** A copy of a combination's report (and what ci-reporter.mjs wrote beside it) under `label`, changed by `edit`. */
function planted(from: Combination, label: Combination, edit: (r: Report) => void): string {
  const report = JSON.parse(fs.readFileSync(reportOf(from), "utf8")) as Report;
  edit(report);
  const to = path.join(fs.mkdtempSync(path.join(dir, "planted-")), `${label}.json`);
  fs.writeFileSync(to, JSON.stringify(report));
  fs.copyFileSync(`${reportOf(from)}.ci.json`, `${to}.ci.json`);
  return to;
}

/** What the summary says of skips: allowed ones with their count, and the failures they caused. */
const aboutSkips = (summary: string[]) => summary.filter((l) => l.startsWith("skipped: ") || l.startsWith("failed: .ci/allowed-skips.json: ") ||
  (l.startsWith("failed: ") && new RegExp(SKIPS).test(l)));

beforeAll(() => {
  fs.mkdirSync(path.join(root, "test/.tmp"), { recursive: true });
  dir = fs.mkdtempSync(path.join(root, "test/.tmp/allowed-skips-"));
  for (const c of Object.keys(COMBINATIONS) as Combination[]) collect(c);
}, 360_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const names = examples().map((e) => e.name);

it("combination 1: the two lifecycles' out-of-band step of examples/runs (its cli.json says why) are the only skips, each allowed by its own name", () => {
  const { names: skipped, summary } = reports.get("node20")!;
  expect(skipped).toEqual([
    expect.stringMatching(/^examples\/runs under the real Pulumi CLI \(Pulumi's official language host\) no out-of-band edit: A run cannot be changed/),
    expect.stringMatching(/^examples\/runs through the engine double no out-of-band edit: /),
  ]);
  expect(aboutSkips(summary)).toEqual([expect.stringMatching(/^skipped: 2 in node20: the example has nothing to change out of band/)]);
  expect(summary.at(-1)).toMatch(/ failed, 2 skipped$/);
});

it("combination 2: each example's engine double's lifecycle and failing preview under both hosts show as skips, and with the out-of-band step are allowed there", () => {
  const { names: skipped, summary } = reports.get("node22")!;
  expect(names).toHaveLength(8);
  const note = examples().find((e) => e.name === "runs")!.expectations!.outOfBandNote;
  expect(skipped.sort()).toEqual([
    ...names.map((n) => `examples/${n} through the engine double: left out under SVC_EXAMPLES_CLI_ONLY=1 (combination 1 runs it)`),
    `examples/runs under the real Pulumi CLI (our language host) no out-of-band edit: ${note}`,
    ...names.map((n) => `examples/${n} under the real Pulumi CLI with our language host fails as Pulumi's official host fails: left out under SVC_LANGHOST=ours (the official host at hand pairs with the pinned CLI only)`),
  ].sort());
  expect(aboutSkips(summary)).toEqual([
    expect.stringMatching(/^skipped: 1 in node22: the example has nothing to change out of band/),
    expect.stringMatching(/^skipped: 8 in node22: combination 2 runs each example under the CLI only/),
    expect.stringMatching(/^skipped: 8 in node22: the failing preview under both hosts runs in combination 1/),
  ]);
  expect(summary.at(-1)).toMatch(/ failed, 17 skipped$/);
});

it("the same skips in a combination the list does not name for them fail", () => {
  const failed = summarize(planted("node22", "node20", () => {})).filter((l) => l.startsWith("failed:") && / left out under /.test(l));
  expect(failed).toHaveLength(16);
});

it("planted: an example whose out-of-band steps are left out (a note in its cli.json instead) fails, though its skips read like the allowed ones", () => {
  const summary = summarize(planted("node20", "node20", (r) => {
    for (const f of r.testResults) {
      if (!f.name.endsWith("runs.test.ts")) continue;
      f.name = f.name.replace("runs.test.ts", "directory.test.ts");
      for (const a of f.assertionResults) a.fullName = a.fullName.replace("examples/runs", "examples/directory");
    }
  }));
  expect(aboutSkips(summary).sort()).toEqual([
    expect.stringMatching(/^failed: \.ci\/allowed-skips\.json: a name no skip matched: test\/cli\/examples\/runs\.test\.ts > examples\/runs through the engine double /),
    expect.stringMatching(/^failed: \.ci\/allowed-skips\.json: a name no skip matched: test\/cli\/examples\/runs\.test\.ts > examples\/runs under the real Pulumi CLI /),
    expect.stringMatching(/^failed: node20: test\/cli\/examples\/directory\.test\.ts > examples\/directory through the engine double no out-of-band edit: .* \(skipped: no entry of \.ci\/allowed-skips\.json names it\)$/),
    expect.stringMatching(/^failed: node20: test\/cli\/examples\/directory\.test\.ts > examples\/directory under the real Pulumi CLI .* \(skipped: no entry of \.ci\/allowed-skips\.json names it\)$/),
  ]);
});

it("planted: a name that a second test answers to fails, naming the count", () => {
  const summary = summarize(planted("node20", "node20", (r) => {
    const runs = r.testResults.find((f) => f.name.endsWith("runs.test.ts"))!;
    runs.assertionResults.push(runs.assertionResults.find((a) => a.status === "skipped" && a.fullName.includes("through the engine double no out-of-band edit"))!);
  }));
  expect(aboutSkips(summary)).toEqual([
    expect.stringMatching(/^skipped: 3 in node20: /),
    expect.stringMatching(/^failed: \.ci\/allowed-skips\.json: 2 tests in node20 are named test\/cli\/examples\/runs\.test\.ts > examples\/runs through the engine double no out-of-band edit: .*: each name allows one test$/),
  ]);
});
