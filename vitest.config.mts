import * as fs from "node:fs";
import * as path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";

// Three projects, by what a test needs (docs/contributing.md#which-tests-to-run):
// - fast: in process, no server but the emulator: the inner loop (`npm run test:fast`);
// - host: child processes and long in-process runs: the dynamic-provider host, the engine double,
//   the docs' type checks, the fault cells;
// - real: real servers and tools: OpenLDAP, PostgreSQL, Chromium, moto, the Pulumi CLI, npm.
const FAST = ["test/unit", "test/integration", "test/emulator"];
const HOST = ["test/protocol", "test/program", "test/engine", "test/docs", "test/faults"];
const REAL = ["test/cli", "test/commands", "test/package"];

/**
 * Files of the fast and host folders that start a real server or browser, found by what they
 * import, so a new one cannot land in the inner loop by mistake.
 */
const NEEDS_REAL = /from "\.\.\/support\/(slapd|postgres|browser|moto)"/;
const realElsewhere = [...FAST, ...HOST].flatMap((dir) => fs.readdirSync(dir, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".test.ts") && NEEDS_REAL.test(fs.readFileSync(path.join(dir, f), "utf8")))
  .map((f) => path.join(dir, f)));

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
    reporters: ["default"],
    projects: [
      { extends: true, test: { name: "fast", include: under(FAST), exclude: [...configDefaults.exclude, ...realElsewhere] } },
      { extends: true, test: { name: "host", include: under(HOST), exclude: [...configDefaults.exclude, ...realElsewhere] } },
      { extends: true, test: { name: "real", include: [...under(REAL), ...realElsewhere] } },
    ],
  },
});
