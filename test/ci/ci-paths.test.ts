// scripts/ci-paths.js, which .ci/run runs on combination 2's vitest arguments before running them:
// vitest never collects a test file outside every project's include list, and ignores a path that
// matches no collected file while others match, so a suite in a folder of its own, or a renamed
// one, would drop out of the run unseen. Planted in a copy of the tree's test files (empty, with
// vitest.config.mts): each named suite renamed, and test files no project collects.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { root } from "../support/dist";

const check = path.join(root, "scripts/ci-paths.js");
const ciRun = fs.readFileSync(path.join(root, ".ci/run"), "utf8");
let tmp: string;

/** Combination 2's vitest arguments, as bash reads them from .ci/run. */
function combination2(): string[] {
  const m = /^combination2=\(\n([\s\S]*?)\n\)$/m.exec(ciRun);
  if (!m) throw new Error(".ci/run no longer defines combination2=( … ) on lines of its own");
  const r = spawnSync("bash", ["-c", `combination2=(${m[1]}); printf '%s\\n' "\${combination2[@]}"`], { encoding: "utf8" });
  return r.stdout.trim().split("\n");
}

/**
 * A folder holding the tree's test files (empty) and its vitest config, with `renamed` renamed and
 * the files `added` added: what the check sees.
 */
function treeWith({ renamed = "", added = [] as string[] } = {}): string {
  const dir = fs.mkdtempSync(path.join(tmp, "tree-"));
  const files = fs.readdirSync(path.join(root, "test"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".test.ts") && !f.startsWith(".tmp"));
  for (const f of [...files.map((f) => path.join("test", f === path.relative("test", renamed) ? f.replace(/\.test\.ts$/, "-renamed.test.ts") : f)), ...added]) {
    fs.mkdirSync(path.join(dir, path.dirname(f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), "");
  }
  fs.copyFileSync(path.join(root, "vitest.config.mts"), path.join(dir, "vitest.config.mts"));
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ci-paths-"));
});

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

it("the planted case without the check: vitest runs the path that matches and ignores the one that does not", () => {
  fs.mkdirSync(path.join(root, "test/.tmp"), { recursive: true });
  const dir = fs.mkdtempSync(path.join(root, "test/.tmp/ci-paths-"));
  try {
    fs.writeFileSync(path.join(dir, "vitest.config.mjs"), 'export default { test: { include: ["*.test.mjs"], pool: "forks" } };\n');
    fs.writeFileSync(path.join(dir, "kept.test.mjs"), 'import { expect, it } from "vitest";\nit("runs", () => expect(1).toBe(1));\n');
    const r = spawnSync(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), "run", "--root", dir, "--config", path.join(dir, "vitest.config.mjs"), "kept.test.mjs", "renamed.test.mjs"],
      { cwd: dir, encoding: "utf8", timeout: 120_000 });
    expect({ status: r.status, ran: /Test Files\s+1 passed \(1\)/.test(r.stdout.replace(/\x1b\[[0-9;]*m/g, "")) }, r.stdout + r.stderr).toEqual({ status: 0, ran: true });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it("combination 2's arguments in .ci/run each match a test file of this tree, and every test file of it is in a project", () => {
  const args = combination2();
  expect(args).toEqual(expect.arrayContaining(["test/cli", "test/package/install.test.ts", "test/engine/testing.test.ts", "--exclude", "test/cli/hosts.test.ts"]));
  const r = spawnSync(process.execPath, [check, ...args], { cwd: root, encoding: "utf8" });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: "" });
});

it.each(["test/package/install.test.ts", "test/engine/testing.test.ts", "test/cli/hosts.test.ts"])("renamed %s: the check fails, naming it", (file) => {
  const r = spawnSync(process.execPath, [check, ...combination2()], { cwd: treeWith({ renamed: file }), encoding: "utf8" });
  expect(r.status).toBe(1);
  expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(new RegExp(`^scripts/ci-paths\\.js: (--exclude )?${file.replace(/\./g, "\\.")}: `))]);
});

it("planted: test files no project collects (a folder of their own, a name the includes do not take) fail, each named", () => {
  const added = ["test/newarea/thing.test.ts", "test/unit/thing.spec.ts"];
  const r = spawnSync(process.execPath, [check, "test/unit"], { cwd: treeWith({ added }), encoding: "utf8" });
  expect(r.status).toBe(1);
  expect(r.stderr.trim().split("\n").sort()).toEqual(added.map((f) => `scripts/ci-paths.js: ${f}: in no project of vitest.config.mts, so it never runs`).sort());
  // The copy of the tree without them passes: what fails is the files alone.
  expect(spawnSync(process.execPath, [check, "test/unit"], { cwd: treeWith(), encoding: "utf8" }).status).toBe(0);
});

it("a folder no test file is under fails too, and an option whose value could be taken for a path", () => {
  const r = spawnSync(process.execPath, [check, "test/protocol", "test/no-such-folder", "--project", "real"], { cwd: root, encoding: "utf8" });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain("test/no-such-folder: no test file's path contains it");
  expect(r.stderr).toContain("--project: write options as --project=value");
});

it(".ci/run checks combination 2's arguments in the tree vitest runs in, counts a failure, and gives vitest those same arguments", () => {
  expect(ciRun).toContain('(cd "$tree" && node scripts/ci-paths.js "${combination2[@]}") || setup_failed=$((setup_failed + 1))');
  const runs = ciRun.split("\n").filter((l) => l.includes("vitest.mjs run"));
  expect(runs).toEqual([expect.stringContaining('node node_modules/vitest/vitest.mjs run "${combination2[@]}" "${reporters[@]}"')]);
  // Combination 1 gives vitest no path: npm test runs every project.
  expect(ciRun).toContain('npm test -- "${reporters[@]}" --outputFile.json="$report"\n');
});

it("docs/contributing.md's command for combination 2 runs the same arguments", () => {
  const docs = fs.readFileSync(path.join(root, "docs/contributing.md"), "utf8");
  expect(docs).toContain(`node node_modules/vitest/vitest.mjs run ${combination2().join(" ")})`);
});
