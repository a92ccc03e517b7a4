import * as fs from "node:fs";
import * as path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Three projects, by what a test needs (docs/contributing.md#which-tests-to-run):
// - fast: in process, no server but the emulator: the inner loop (`npm run test:fast`);
// - host: child processes and long in-process runs: the dynamic-provider host, the engine double,
//   the docs' type checks, the fault cells;
// - real: real servers and tools: OpenLDAP, PostgreSQL, Chromium, moto, the Pulumi CLI, npm.
const FAST = ["test/unit", "test/integration", "test/emulator"];
const HOST = ["test/protocol", "test/program", "test/engine", "test/docs", "test/faults", "test/ci"];
const REAL = ["test/cli", "test/commands", "test/package"];
// A test file under test/ in none of these folders would never run: scripts/ci-paths.js fails for
// it (test/ci/ci-paths.test.ts).

/**
 * Files of the fast and host folders that start a real server or browser, found by what they
 * import, so a new one cannot land in the inner loop by mistake.
 */
const NEEDS_REAL = /from "\.\.\/support\/(slapd|postgres|browser|moto)"/;
const realElsewhere = [...FAST, ...HOST].flatMap((dir) => fs.readdirSync(dir, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".test.ts") && NEEDS_REAL.test(fs.readFileSync(path.join(dir, f), "utf8")))
  .map((f) => path.join(dir, f)));

/**
 * The order files start in: the longest first, so the workers end together. Vitest's own order
 * needs the durations of an earlier run, which a fresh clone (CI) lacks, and puts the real project,
 * the longest, last. FIRST are the longest files (docs/contributing.md#ci).
 */
const FIRST = ["test/cli/behaviours.test.ts", "test/commands/docs-commands.test.ts", "test/cli/examples/"];
/** Then by project: most of the time is in real (CLI deployments), then host. */
const PROJECTS = ["real", "host", "fast"];

const rank = (spec: TestSpecification) => {
  const first = FIRST.findIndex((p) => spec.moduleId.includes(p));
  const project = PROJECTS.indexOf(spec.project.name);
  return [first < 0 ? FIRST.length : first, project < 0 ? PROJECTS.length : project];
};

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const size = (s: TestSpecification) => fs.statSync(s.moduleId).size;
    return [...files].sort((a, b) => {
      const [fa, pa] = rank(a);
      const [fb, pb] = rank(b);
      return fa - fb || pa - pb || size(b) - size(a);
    });
  }
}

const under = (dirs: string[]) => dirs.map((dir) => `${dir}/**/*.test.ts`);

export default defineConfig({
  test: {
    // No include here: a project that extends this config would add its own to it.
    setupFiles: ["test/support/setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Most of the time of the real and host projects is spent waiting on child processes and
    // servers: three files at once keep both cores busy (measured in docs/contributing.md).
    maxWorkers: Number(process.env.SVC_TEST_WORKERS ?? 3),
    sequence: { sequencer: LongestFirst },
    reporters: ["default"],
    projects: [
      { extends: true, test: { name: "fast", include: under(FAST), exclude: [...configDefaults.exclude, ...realElsewhere] } },
      { extends: true, test: { name: "host", include: under(HOST), exclude: [...configDefaults.exclude, ...realElsewhere] } },
      { extends: true, test: { name: "real", include: [...under(REAL), ...realElsewhere] } },
    ],
  },
});
