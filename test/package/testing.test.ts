// pulumi-svc/testing from the outside (docs/testing.md): the packed tarball installed with npm into
// a fresh folder beside vitest and jest, and the guide's two test files run there as a user runs
// them: up, what the server holds, preview with no change and after an edit, a failing program's
// one line, two stacks at once, destroy, close. Needs the npm registry (or npm's cache); without it
// the test skips with the reason, or fails under SVC_REQUIRE_REAL.
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { root } from "../support/dist";
import { requireReal, requiredButMissing } from "../support/real";
import { npm, packTarball, registryEnv } from "./tarball";

const version = (pkg: string) => (JSON.parse(fs.readFileSync(require.resolve(`${pkg}/package.json`, { paths: [root] }), "utf8")) as { version: string }).version;
const offline = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|ENOTCACHED)\b/;
/** The jest the guide's jest example is run with. */
const JEST = "30";

let dir: string;
let unavailable: string | undefined;

/** The user's environment: none of this suite's npm, SVC_ or PULUMI_ variables. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|SVC_|PULUMI_|VITEST)/i.test(k) && k !== "NODE_ENV") env[k] = v;
  env.PATH = [path.dirname(process.execPath), process.env.PATH].join(path.delimiter);
  // Plain text to read the runners' summaries from.
  delete env.FORCE_COLOR;
  env.NO_COLOR = "1";
  return env;
}

/** The code block of docs/testing.md that follows the marker `<!-- testing: <name> -->`. */
function guideBlock(name: string): string {
  const text = fs.readFileSync(path.join(root, "docs/testing.md"), "utf8");
  const found = new RegExp(`<!-- testing: ${name} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\`\\n`).exec(text);
  if (!found) throw new Error(`docs/testing.md has no block marked <!-- testing: ${name} -->`);
  return found[1]!;
}

function run(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: dir, env: cleanEnv() });
    let out = "";
    child.stdout.on("data", (d: Buffer) => { out += d.toString(); });
    child.stderr.on("data", (d: Buffer) => { out += d.toString(); });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out }));
  });
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "testing-"));
  const tarball = packTarball(dir);
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "user-tests", version: "1.0.0", private: true }));
  const r = spawnSync(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error",
    `@pulumi/pulumi@${version("@pulumi/pulumi")}`, `vitest@${version("vitest")}`, `jest@${JEST}`, tarball], { cwd: dir, env: registryEnv(cleanEnv()), encoding: "utf8", timeout: 300_000 });
  const output = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (r.status !== 0 && offline.test(output)) unavailable = `the npm registry cannot be reached: ${offline.exec(output)![1]}`;
  else if (r.status !== 0) throw new Error(`npm install exited ${r.status ?? r.signal}\n${output}`);
  for (const [folder, file, code] of [["vitest", "payments.test.ts", guideBlock("vitest")], ["jest", "payments.test.js", guideBlock("jest")]] as const) {
    fs.mkdirSync(path.join(dir, folder));
    fs.writeFileSync(path.join(dir, folder, file), `${code}\n`);
  }
}, 360_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it("the guide's vitest and jest tests pass against the installed package", async (ctx) => {
  if (unavailable) {
    if (requireReal) throw requiredButMissing(unavailable);
    console.log(`skipping: ${unavailable}`);
    ctx.skip();
  }
  const [vitest, jest] = await Promise.all([
    run([path.join(dir, "node_modules/vitest/vitest.mjs"), "run", "vitest/"]),
    run([path.join(dir, "node_modules/jest/bin/jest.js"), "jest/"]),
  ]);
  expect(vitest.out).toMatch(/Tests\s+3 passed \(3\)/);
  expect(vitest.code, vitest.out).toBe(0);
  expect(jest.out).toMatch(/Tests:\s+2 passed, 2 total/);
  expect(jest.code, jest.out).toBe(0);
  // Nothing but the tests' own report: no unhandled rejection, no stack of a failure.
  expect(`${vitest.out}${jest.out}`).not.toMatch(/Unhandled|^\s+at .+[(:]/m);
}, 300_000);
