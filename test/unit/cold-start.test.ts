// What a provider host's first Check loads (docs/performance.md, "Cold start in the provider host"):
// a create's Check reads what the create could be confused with, and for that one read loads
// undici's Agent, not undici's index; zod's locales wait until something asks for one. Each case
// runs the built runtime in a fresh Node process, as a host does. Counts of modules, never a time.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { fromDist, root } from "../support/dist";
import { filesUnder } from "../support/files";
import { hostChecked } from "../support/protocol";

const RUNTIME = path.join(root, "dist/src/runtime.js");
const CONFIG = { "svc:secretsUrl": "http://127.0.0.1:9/v1", "svc:secretsToken": "cold-start-token-0001" };

/** A module of one of zod's locales (its index is where the deferred entry stands). */
const isLocale = (m: string) => m.startsWith("zod/v4/locales/") && !m.endsWith("/index.cjs");

/** This process's environment without the package's settings or a choice of compile cache. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = { ...process.env } as Record<string, string>;
  for (const k of Object.keys(env)) if (k.startsWith("SVC_") || k.startsWith("NODE_COMPILE_CACHE") || k === "NODE_DISABLE_COMPILE_CACHE") delete env[k];
  return env;
}

/** Runs `body` (with `rt` the runtime, configured) in a fresh process and returns what it printed as JSON. */
function inFreshProcess(body: string, before = "", extraEnv: Record<string, string> = {}): any {
  const script = `
    const path = require("path");
    ${before}
    const loadedBefore = new Set(Object.keys(require.cache));
    const loaded = () => Object.keys(require.cache).filter((k) => !loadedBefore.has(k)).map((k) => k.slice(k.lastIndexOf("node_modules/") + 13));
    const rt = require(${JSON.stringify(RUNTIME)});
    (async () => {
      await rt.configure({ config: { get: (k) => (${JSON.stringify(CONFIG)})[k] } });
      ${body}
    })().catch((e) => { console.error(e); process.exit(1); });`;
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: root, env: { ...cleanEnv(), ...extraEnv }, encoding: "utf8" }));
}

describe("a provider host's first Check", () => {
  it("of a create loads undici's Agent for its read, not undici's index, and no zod locale but English", () => {
    const out = inFreshProcess(`
      const r = await rt.call("secrets:TransformTemplate", "check", [{}, { name: "t", pattern: "(\\\\d{4})" }]);
      console.log(JSON.stringify({ failures: r.failures, loaded: loaded() }));`);
    expect(out.failures).toEqual([]);
    const loaded = out.loaded as string[];
    // The read was sent (to a port that refuses it, which leaves no record and fails nothing).
    expect(loaded).toContain("undici/lib/dispatcher/agent.js");
    expect(loaded).not.toContain("undici/index.js");
    expect(loaded.filter((m) => m.startsWith("undici/lib/web/"))).toEqual([]);
    expect(loaded.filter(isLocale)).toEqual(["zod/v4/locales/en.cjs"]);
    // Who uses each kind's objects is read by a delete's guard, not by a Check.
    expect(loaded.filter((m) => m.endsWith("/kindUsers.js"))).toEqual([]);
  });

  it("leaves zod's locales whole: each is loaded when the program asks for it", () => {
    const plain = JSON.parse(execFileSync(process.execPath, ["-e",
      `const { z } = require("zod"); console.log(JSON.stringify(Object.keys(z.locales)))`], { cwd: root, encoding: "utf8" }));
    const out = inFreshProcess(`
      await rt.call("secrets:TransformTemplate", "check", [{}, { name: "t", pattern: "(\\\\d{4})" }]);
      const { z } = require("zod");
      const before = loaded().filter(${isLocale}).length;
      const fr = z.locales.fr;
      z.config(fr());
      const french = z.string().safeParse(1).error.issues[0].message;
      z.config(z.locales.en());
      console.log(JSON.stringify({ keys: Object.keys(z.locales), before, after: loaded().filter(${isLocale}).length, french, en: "en" in z.locales }));`);
    expect(plain.length).toBeGreaterThan(40);
    expect(out.keys).toEqual(plain);
    expect(out.en).toBe(true);
    expect(out.before).toBe(1);
    expect(out.after).toBeGreaterThan(40);
    expect(out.french).toMatch(/attendu/);
  });

  it("takes zod's locales as they are when zod was loaded first", () => {
    const out = inFreshProcess(`
      const file = require.resolve("zod/v4/locales");
      console.log(JSON.stringify({ same: require.cache[file].exports === real, locales: Object.keys(require("zod").z.locales).length }));`,
    `require("zod"); const real = require.cache[require.resolve("zod/v4/locales")].exports;`);
    expect(out.same).toBe(true);
    expect(out.locales).toBeGreaterThan(40);
  });

  it("finds undici's Agent where undici defines it (else it would fall back to the index)", () => {
    const { AGENT_MODULE, undiciAgent } = fromDist<typeof import("../../src/http/agentClass")>("src/http/agentClass.js");
    const fromIndex = (require("undici") as typeof import("undici")).Agent;
    expect(require(AGENT_MODULE)).toBe(fromIndex);
    expect(undiciAgent()).toBe(fromIndex);
  });

  describe("keeps the code it compiled: Node's compile cache (22.1 or later), else V8's code cache", () => {
    const CHECK = `
      const r = await rt.call("secrets:TransformTemplate", "check", [{}, { name: "t", pattern: "(\\\\d{4})" }]);
      await new Promise((done) => setTimeout(done, 50));
      const m = require("module");
      console.log(JSON.stringify({ failures: r.failures, can: typeof m.enableCompileCache === "function", dir: m.getCompileCacheDir?.() }));`;
    /** The files under `dir`, recursively. */
    const filesIn = (dir: string): string[] => filesUnder(dir).map((f) => path.basename(f.file));
    /** Node 20's folder: the code of one Node is refused by another. */
    const scripts = (dir: string) => path.join(dir, `${process.version}-${process.arch}-scripts`);

    it("in the user's cache folder, written after the first call, and the next host takes each module as it was kept", () => {
      const home = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cc-"));
      try {
        const first = inFreshProcess(CHECK, "", { XDG_CACHE_HOME: home });
        const dir = path.join(home, "pulumi-svc", "compile-cache");
        expect(first.failures).toEqual([]);
        expect(first.can ? first.dir : scripts(dir)).toMatch(new RegExp(`^${dir}/v\\d`));
        // Before the host exits: the CLI ends it with a signal, which skips Node's own write at exit.
        const kept = filesUnder(dir);
        expect(kept.length).toBeGreaterThan(50);
        const second = inFreshProcess(CHECK, "", { XDG_CACHE_HOME: home });
        expect(second).toEqual(first);
        // Refused code would be written again (a new file, a new time).
        expect(filesUnder(dir)).toEqual(kept);
      } finally {
        fs.rmSync(home, { recursive: true, force: true });
      }
    });

    it("holds each module compiled whole, in its own folder: a function's first call in the next host compiles nothing", () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cc-"));
      try {
        // A module with a function nobody calls: V8 compiles that when first called, unless told otherwise.
        const mod = path.join(dir, "m.js");
        fs.writeFileSync(mod, `module.exports = function f(a) {\n${"  a = (a * 31 + 7) % 1000003;\n".repeat(2000)}  return a;\n};\n`);
        const keep = (setup: string, cache: string, extraEnv: Record<string, string> = {}): number => {
          const files = () => new Map(filesUnder(cache).map((f) => [f.file, f.size]));
          const script = `${setup}; const m = require("module"); m.flushCompileCache?.(); console.log(JSON.stringify(m.getCompileCacheDir?.() ?? null));`;
          const env = { ...cleanEnv(), XDG_CACHE_HOME: cache, ...extraEnv };
          const can = JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: root, env, encoding: "utf8" })) !== null;
          if (!can) return -1;
          const before = files();
          execFileSync(process.execPath, ["-e", `${setup}; require(${JSON.stringify(mod)}); require("module").flushCompileCache();`], { cwd: root, env });
          const added = [...files()].filter(([f]) => !before.has(f));
          expect(added).toHaveLength(1);
          return added[0]![1];
        };
        const plain = keep(`require("module").enableCompileCache?.(${JSON.stringify(path.join(dir, "plain"))})`, path.join(dir, "plain"));
        if (plain === -1) {
          // Node 20: V8's code cache, kept with the functions run by then; the runtime leaves V8's flags alone.
          expect((require("node:module") as { enableCompileCache?: unknown }).enableCompileCache).toBeUndefined();
          return;
        }
        const host = keep(`require(${JSON.stringify(RUNTIME)})`, path.join(dir, "host"));
        // Node keeps what V8 compiled as the module loaded: the wrapper alone, or every function in it.
        expect(host).toBeGreaterThan(plain * 20);
        // A cache on from the process's start is shared with processes that compile lazily: the host does too.
        const shared = path.join(dir, "shared");
        expect(keep(`require(${JSON.stringify(RUNTIME)})`, shared, { NODE_COMPILE_CACHE: shared })).toBeLessThan(plain * 2);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it("is handed to the provider hosts pulumi-svc/testing starts, unless the user chose", () => {
      const { compileCacheStart } = fromDist<typeof import("../../src/core/compileCache")>("src/core/compileCache.js");
      const native = typeof (require("node:module") as { enableCompileCache?: unknown }).enableCompileCache === "function";
      const env = { XDG_CACHE_HOME: "/home/u/.c" };
      // Node 20: the runtime's start, loaded first, reads the same variables in the host.
      const start = path.join(root, "dist/src/core/startCompileCache.js");
      expect(compileCacheStart(env)).toEqual(native ? { env: { NODE_COMPILE_CACHE: "/home/u/.c/pulumi-svc/compile-cache" }, preload: [] } : { env: {}, preload: [start] });
      expect(compileCacheStart({ ...env, NODE_COMPILE_CACHE: "/elsewhere" })).toEqual(native ? { env: {}, preload: [] } : { env: {}, preload: [start] });
      expect(compileCacheStart({ ...env, NODE_DISABLE_COMPILE_CACHE: "1" })).toEqual({ env: {}, preload: [] });
    });

    it("from such a host's first module on, @pulumi/pulumi's included", async () => {
      const { compileCacheStart } = fromDist<typeof import("../../src/core/compileCache")>("src/core/compileCache.js");
      const { ProviderHost } = fromDist<typeof import("../../src/engine/host")>("src/engine/host.js");
      const home = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cc-"));
      try {
        // Unset, not left out: the host's environment is this process's with these on top.
        const env = { ...cleanEnv(), XDG_CACHE_HOME: home, NODE_COMPILE_CACHE: undefined };
        const cache = compileCacheStart(env);
        const host = await ProviderHost.start({ cwd: root, env: { ...env, ...cache.env }, preload: cache.preload });
        try {
          await host.configure(CONFIG);
          await hostChecked(host, "secrets:TransformTemplate", "t", { name: "t", pattern: "(\\d{4})" });
          await new Promise((done) => setTimeout(done, 200));
        } finally {
          await host.close();
        }
        // The SDK's and its dependencies' are about 300 (those the host defers not loaded,
        // src/engine/deferred.ts); the package's about ten (its host's pack, which holds zod's and
        // undici's too, and the kind's own files).
        expect(filesUnder(path.join(home, "pulumi-svc", "compile-cache")).length).toBeGreaterThan(200);
      } finally {
        fs.rmSync(home, { recursive: true, force: true });
      }
    });

    it("nowhere when NODE_DISABLE_COMPILE_CACHE is set, and in the folder NODE_COMPILE_CACHE names", () => {
      const home = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cc-"));
      try {
        const off = inFreshProcess(CHECK, "", { XDG_CACHE_HOME: home, NODE_DISABLE_COMPILE_CACHE: "1" });
        expect(off.dir).toBeUndefined();
        expect(fs.readdirSync(home)).toEqual([]);
        const named = path.join(home, "named");
        inFreshProcess(CHECK, "", { XDG_CACHE_HOME: home, NODE_COMPILE_CACHE: named });
        expect(filesIn(named).length).toBeGreaterThan(50);
        expect(fs.existsSync(path.join(home, "pulumi-svc"))).toBe(false);
      } finally {
        fs.rmSync(home, { recursive: true, force: true });
      }
    });
  });
});

describe("a program's start", () => {
  // A program declares resources and the provider host validates them: zod is loaded by the first
  // schema built (src/core/zod.ts), which a program that only declares never builds.
  it("declares a resource of every kind under Pulumi's mocks and loads no module of zod", () => {
    const script = `
      const pulumi = require("@pulumi/pulumi");
      pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: (a) => a.inputs }, "p", "s", true);
      const before = new Set(Object.keys(require.cache));
      const svc = require(${JSON.stringify(path.join(root, "dist/src/index.js"))});
      const made = [];
      const walk = (o) => { for (const v of Object.values(o)) {
        if (typeof v === "function" && v.prototype instanceof pulumi.CustomResource) made.push(new v("r-" + made.length, {}));
        else if (v !== null && typeof v === "object") walk(v);
      } };
      walk({ runs: svc.runs, secrets: svc.secrets });
      // Counted once the SDK has registered every resource (the mocks answered each id).
      Promise.all(made.map((r) => new Promise((done) => r.id.apply(done)))).then(() => {
        const zod = Object.keys(require.cache).filter((k) => !before.has(k) && k.includes("/node_modules/zod/"));
        console.log(JSON.stringify({ made: made.length, zod }));
      });`;
    const out = JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: root, env: cleanEnv(), encoding: "utf8" }));
    expect(out.made).toBe(Object.keys(fromDist<{ LOADERS: object }>("src/kindLoaders.js").LOADERS).length);
    expect(out.zod).toEqual([]);
  });

  it("zod's z, taken on first use, is zod's own: its members, listing and schemas", () => {
    const { z } = fromDist<typeof import("../../src/core/zod")>("src/core/zod.js");
    const real = require("zod").z;
    expect(Object.keys(z)).toEqual(Object.keys(real));
    expect("string" in z).toBe(true);
    expect(z.ZodError).toBe(real.ZodError);
    expect(z.string().min(1).safeParse("").success).toBe(false);
    expect(z.object({ a: z.number() }).parse({ a: 1 })).toEqual({ a: 1 });
  });
});
