// The fault suites' check that a cell's fault was met, on a planted mistake: copies of
// test/faults/directory.test.ts and test/faults/matrix-postgres.test.ts with one cell's fault on a
// path no request takes, run by real vitest beside unchanged copies. The planted cells fail naming
// the fault; the same cells of the unchanged copies pass, so the plant is what fails them.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../support/dist";
import { needsPostgres } from "../support/postgres";

interface Report { testResults: { name: string; assertionResults: { title: string; status: string; failureMessages: string[] }[] }[] }

/** A suite's copy, its imports made absolute so that it runs from another folder. */
function copy(file: string): string {
  const from = path.join(root, file);
  return fs.readFileSync(from, "utf8").replace(/from "(\.{1,2}\/[^"]+)"/g, (_m, rel: string) => `from ${JSON.stringify(path.resolve(path.dirname(from), rel))}`);
}

/** `text` with `from` replaced once; the plant must find what it replaces. */
function plant(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`the plant's text is gone from the suite: ${from}`);
  return text.replace(from, to);
}

const SUITES = {
  directory: {
    file: "test/faults/directory.test.ts",
    // The checkOut cells: their fault on the check-out path, moved to a path no request takes.
    from: "await fault(`${LIBRARY}/pool/check-out`, how, when);\n    const loan = await untilDone(() => directory.checkOut(",
    to: "await fault(`${LIBRARY}/pool/no-such-path`, how, when);\n    const loan = await untilDone(() => directory.checkOut(",
    cells: "checkOut: 503 (before|after) the server acted → the caller holds",
  },
  postgres: {
    file: "test/faults/matrix-postgres.test.ts",
    // The create cells: their fault on the schema call, moved to a path no request takes.
    from: 'expect(await tables()).toEqual([]);\n    await control(emu, "POST", "/faults", { method: "POST", path: "/v1/transform/stores/db/schema"',
    to: 'expect(await tables()).toEqual([]);\n    await control(emu, "POST", "/faults", { method: "POST", path: "/v1/transform/stores/db/no-such-path"',
    cells: "create: 503 (before|after) the server acted → the tables",
  },
} as const;

let dir: string;
const reports = new Map<keyof typeof SUITES, { report: Report; output: string }>();

function run(name: keyof typeof SUITES): void {
  const s = SUITES[name];
  const text = copy(s.file);
  fs.writeFileSync(path.join(dir, `${name}-planted.test.ts`), plant(text, s.from, s.to));
  fs.writeFileSync(path.join(dir, `${name}.test.ts`), text);
  const report = path.join(dir, `${name}.json`);
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), "run", "--root", dir, "--config", path.join(dir, "vitest.config.mjs"),
    `${name}-planted.test.ts`, `${name}.test.ts`, "-t", s.cells, "--reporter=json", `--outputFile.json=${report}`], { cwd: dir, encoding: "utf8", timeout: 300_000 });
  expect(fs.existsSync(report), `vitest wrote no report:\n${r.stdout}\n${r.stderr}`).toBe(true);
  reports.set(name, { report: JSON.parse(fs.readFileSync(report, "utf8")) as Report, output: r.stdout + r.stderr });
}

/** The cells that ran, by file, with their status and first failure. */
function ran(name: keyof typeof SUITES): Record<string, { title: string; status: string; message: string }[]> {
  const got = reports.get(name)?.report.testResults ?? [];
  return Object.fromEntries(got.map((f) => [path.basename(f.name), f.assertionResults.filter((a) => a.status !== "skipped")
    .map((a) => ({ title: a.title, status: a.status, message: a.failureMessages[0]?.split("\n")[0] ?? "" }))]));
}

beforeAll(() => {
  fs.mkdirSync(path.join(root, "test/.tmp"), { recursive: true });
  dir = fs.mkdtempSync(path.join(root, "test/.tmp/faults-met-"));
  fs.writeFileSync(path.join(dir, "vitest.config.mjs"), `export default { test: { include: ["*.test.ts"], pool: "forks", testTimeout: 60000, hookTimeout: 60000, setupFiles: [${JSON.stringify(path.join(root, "test/support/setup.ts"))}] } };\n`);
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const unmet = expect.stringMatching(/a fault no request met: .*no-such-path/);

describe("the directory suite", () => {
  beforeAll(() => run("directory"), 300_000);

  it("a checkOut cell whose fault is on a path no request takes fails, naming the fault; unchanged, the same cells pass", () => {
    expect(ran("directory")).toEqual({
      "directory-planted.test.ts": [
        { title: "checkOut: 503 before the server acted → the caller holds the one account out", status: "failed", message: unmet },
        { title: "checkOut: 503 after the server acted → the caller holds the one account out", status: "failed", message: unmet },
      ],
      "directory.test.ts": [
        { title: "checkOut: 503 before the server acted → the caller holds the one account out", status: "passed", message: "" },
        { title: "checkOut: 503 after the server acted → the caller holds the one account out", status: "passed", message: "" },
      ],
    });
  });
});

describe("the PostgreSQL schema cells", () => {
  const can = needsPostgres();
  beforeAll(() => {
    if (can) run("postgres");
  }, 300_000);

  it("a create cell whose fault is on a path no request takes fails, naming the fault; unchanged, the same cells pass", () => {
    expect(ran("postgres")).toEqual({
      "postgres-planted.test.ts": [
        { title: "create: 503 before the server acted → the tables, once, and the schema in state", status: "failed", message: unmet },
        { title: "create: 503 after the server acted → the tables, once, and the schema in state", status: "failed", message: unmet },
      ],
      "postgres.test.ts": [
        { title: "create: 503 before the server acted → the tables, once, and the schema in state", status: "passed", message: "" },
        { title: "create: 503 after the server acted → the tables, once, and the schema in state", status: "passed", message: "" },
      ],
    });
  });
});
