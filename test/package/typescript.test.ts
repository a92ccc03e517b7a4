// The package's types under the TypeScript releases a Pulumi project may get that this repository
// does not build with: the newest 6.x (what `npm install typescript` picks beside @pulumi/pulumi,
// whose peer range stops below 7) and the newest 7.x (the native compiler, the registry's latest).
// Each comes from the npm registry once, into the cache (never this repository's node_modules);
// without the registry and with nothing cached the tests skip with the reason, or fail under
// SVC_REQUIRE_REAL. README.md, "Install", says what works.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { cacheBase } from "../support/cache";
import { requireReal, requiredButMissing } from "../support/real";
import { compileOutput, fixtureProject, MODERN_RESOLUTIONS, npm, OLD_PULUMI_TEMPLATE, PULUMI_TEMPLATE, registryEnv } from "./tarball";

/** What each major does, as its release notes and the runs of this file say. */
const MAJORS = {
  6: {
    oldTemplate: "error TS5107: Option 'moduleResolution=node10' is deprecated",
    // The way out TS5107 names.
    oldTemplateSilenced: "",
    // ts-node, which the Pulumi CLI compiles index.ts with, needs the compiler API.
    compilerApi: "function",
  },
  7: {
    oldTemplate: "error TS5108: Option 'moduleResolution=node10' has been removed",
    oldTemplateSilenced: "error TS5108: Option 'moduleResolution=node10' has been removed",
    // The package's main export is its version only: the API is under typescript/unstable/*.
    compilerApi: "undefined",
  },
} as const;

const offline = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH)\b/;
const cache = path.join(cacheBase, "typescript");

/** npm's environment without an enclosing `npm test`'s variables, on the Node that runs the tests. */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  env.PATH = [path.dirname(process.execPath), process.env.PATH].join(path.delimiter);
  return env;
}

function npmOut(args: string[], cwd: string): string {
  return execFileSync(npm, args, { cwd, env: registryEnv(npmEnv()), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 300_000 });
}

/** The cached releases of a major, newest last. */
function cached(major: number): string[] {
  const versions = fs.existsSync(cache) ? fs.readdirSync(cache).filter((v) => new RegExp(`^${major}\\.\\d+\\.\\d+$`).test(v)) : [];
  return versions.sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
}

/**
 * The folder of the newest release of `major` the registry has, installed into the cache on first
 * use (in a draft folder renamed when complete); without the registry, the newest cached one.
 */
function typescriptRelease(major: number): { dir: string; version: string } | { unavailable: string } {
  let version: string | undefined;
  try {
    const listed = JSON.parse(npmOut(["view", `typescript@${major}`, "version", "--json"], os.tmpdir())) as string | string[];
    version = [listed].flat().at(-1);
  } catch (e) {
    const text = `${(e as { stderr?: string }).stderr ?? ""}${String(e)}`;
    if (!offline.test(text)) throw e;
    version = cached(major).at(-1);
    if (!version) return { unavailable: `TypeScript ${major}: the npm registry cannot be reached (${offline.exec(text)![1]}) and ${cache} holds no ${major}.x` };
  }
  if (!version) throw new Error(`npm view typescript@${major} listed no version`);
  const dir = path.join(cache, version);
  if (!fs.existsSync(path.join(dir, "node_modules/typescript/bin/tsc"))) {
    fs.mkdirSync(cache, { recursive: true });
    const draft = fs.mkdtempSync(`${dir}.draft-`);
    fs.writeFileSync(path.join(draft, "package.json"), JSON.stringify({ private: true }));
    npmOut(["install", "--no-audit", "--no-fund", "--loglevel=error", `typescript@${version}`], draft);
    try {
      fs.renameSync(draft, dir);
    } catch {
      // Another test process installed it first.
      fs.rmSync(draft, { recursive: true, force: true });
    }
  }
  return { dir: path.join(dir, "node_modules/typescript"), version };
}

let dir: string;
let project: string;
const releases = new Map<number, ReturnType<typeof typescriptRelease> | { error: string }>();

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "typescript-"));
  project = fixtureProject(dir);
  for (const major of [6, 7]) {
    try {
      releases.set(major, typescriptRelease(major));
    } catch (e) {
      // Failed here, it would report the tests as skipped: each test fails with it instead.
      releases.set(major, { error: `TypeScript ${major} from the npm registry: ${(e as Error).message}` });
    }
  }
}, 600_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The release of `major`, or the test skips with the reason (fails under SVC_REQUIRE_REAL). */
function release(ctx: TestContext, major: number): { dir: string; version: string } {
  const got = releases.get(major)!;
  if ("dir" in got) return got;
  if ("error" in got) throw new Error(got.error);
  if (requireReal) throw requiredButMissing(got.unavailable);
  console.log(`skipping: ${got.unavailable}`);
  return ctx.skip(got.unavailable);
}

for (const [key, expected] of Object.entries(MAJORS)) {
  const major = Number(key);
  describe(`the packed package under the newest TypeScript ${major} on the npm registry`, () => {
    const configs = { "Pulumi's TypeScript template (nodenext)": PULUMI_TEMPLATE, ...MODERN_RESOLUTIONS };
    for (const [name, compilerOptions] of Object.entries(configs)) {
      it(`a program compiles under ${name}`, (ctx) => {
        const ts = release(ctx, major);
        expect(compileOutput(path.join(ts.dir, "bin/tsc"), project, `${major}-${name}`, compilerOptions), ts.version).toBe("");
      }, 120_000);
    }

    it("Pulumi's template before March 2026 (moduleResolution node): what TypeScript says, with and without ignoreDeprecations", (ctx) => {
      const ts = release(ctx, major);
      const tsc = path.join(ts.dir, "bin/tsc");
      const said = (out: string) => out.split("\n").find((l) => l.includes("error TS")) ?? out;
      expect(said(compileOutput(tsc, project, `${major}-old`, OLD_PULUMI_TEMPLATE)), ts.version).toContain(expected.oldTemplate);
      const silenced = compileOutput(tsc, project, `${major}-old-silenced`, { ...OLD_PULUMI_TEMPLATE, ignoreDeprecations: "6.0" });
      if (expected.oldTemplateSilenced) expect(said(silenced), ts.version).toContain(expected.oldTemplateSilenced);
      else expect(silenced, ts.version).toBe("");
    }, 120_000);

    it(`the compiler API ts-node needs (the Pulumi CLI compiles index.ts through it): ${expected.compilerApi === "function" ? "there" : "absent"}`, (ctx) => {
      const ts = release(ctx, major);
      // Required by name as ts-node requires it, so that the package's "exports" apply.
      const from = JSON.stringify(path.join(ts.dir, "../../package.json"));
      const api = execFileSync(process.execPath, ["-e", `process.stdout.write(typeof require("node:module").createRequire(${from})("typescript").createProgram)`], { encoding: "utf8" });
      expect(api, ts.version).toBe(expected.compilerApi);
    });
  });
}
