// The provider host's pack (src/core/pack.ts, written by src/scripts/pack.ts): the modules a first
// Check loads, from one file, each run as Node runs its file. What runs must be what is installed:
// each case runs the built package in a fresh Node process and records which files Node's own
// loader compiled. Counts and names, never a time.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { mayImport } from "../../src/core/scriptCache";
import { latin1 } from "../../src/scripts/latin1";
import { fromDist, root } from "../support/dist";
import { requests, useEmulator } from "../support/emulator";
import { oneOfEachKind } from "../support/everyKind";

const run = promisify(execFile);

type Packed = [where: string, size: number, requests: Record<string, number>, code: () => void];
const pack = fromDist<{ entry: number; modules: Packed[]; packages: Record<string, string> }>("src/runtime.pack.js");
const CONFIG = { "svc:secretsUrl": "http://127.0.0.1:9/v1", "svc:secretsToken": "pack-test-token-0001" };
const TEMPLATE = [{ kind: "secrets:TransformTemplate", inputs: { name: "t", pattern: "(\\d{4})" } }];

/** A packed module's file under the package folder `pkg` (this checkout unless given). */
function fileOf(where: string, pkg = root): string {
  const colon = where.indexOf(":");
  return colon < 0 ? path.join(pkg, "dist/src", where) : path.join(pkg, "node_modules", where.slice(0, colon), where.slice(colon + 1));
}

/** The body of a packed module's function: the module's text as the pack holds it. */
function packedText(code: () => void): string {
  const text = code.toString();
  return text.slice(text.indexOf("{\n") + 2, text.lastIndexOf("\n}"));
}

/**
 * Loads `pulumi-svc/runtime` of the package folder `pkg` as a host does, runs a create's first
 * Check of each kind given (with these settings), and tells which of its files Node compiled and
 * what the runtime's modules are.
 */
async function firstCheck(pkg: string, checks: Array<{ kind: string; inputs: unknown }> = TEMPLATE, config: Record<string, string> = CONFIG):
  Promise<{ compiled: string[]; sameRuntime: boolean; sameZod: boolean; failures: unknown[] }> {
  // A host has loaded the SDK before any provider.
  const script = `
    require("@pulumi/pulumi");
    const Module = require("module");
    const compiled = [];
    const compile = Module.prototype._compile;
    Module.prototype._compile = function (content, filename, format) { compiled.push(filename); return compile.call(this, content, filename, format); };
    const rt = require("pulumi-svc/runtime");
    (async () => {
      await rt.configure({ config: { get: (k) => (${JSON.stringify(config)})[k] } });
      const failed = [];
      for (const { kind, inputs } of ${JSON.stringify(checks)}) {
        const r = await rt.checkForEngine(kind, {}, inputs);
        if (r.failures.length > 0) failed.push({ kind, failures: r.failures });
      }
      const r = { failures: failed };
      const sameRuntime = require(${JSON.stringify(path.join(pkg, "dist/src/runtime.js"))}) === rt;
      const zodOfRuntime = require(${JSON.stringify(path.join(pkg, "dist/src/core/zod.js"))}).zod();
      const sameZod = zodOfRuntime === require(require.resolve("zod", { paths: [${JSON.stringify(path.join(pkg, "dist/src/core"))}] })).z;
      console.log(JSON.stringify({ compiled, sameRuntime, sameZod, failures: r.failures }));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const env: Record<string, string> = { ...process.env, NODE_DISABLE_COMPILE_CACHE: "1" } as Record<string, string>;
  for (const k of Object.keys(env)) if (k.startsWith("SVC_") || k === "NODE_OPTIONS") delete env[k];
  // Not execFileSync: the emulator the Checks read from answers in this process.
  // The host's log lines (the runtime's, as the engine would show them) come first; the answer last.
  return JSON.parse((await run(process.execPath, ["-e", script], { cwd: pkg, env, encoding: "utf8" })).stdout.trimEnd().split("\n").pop()!);
}

const rel = (pkg: string) => (f: string) => f.startsWith(path.join(pkg, "node_modules")) ? f.slice(f.lastIndexOf("node_modules/") + 13) : path.relative(path.join(pkg, "dist/src"), f);

describe("the provider host's pack", () => {
  it("holds each module as its file is, the kinds' own folders and what may call import() left out", () => {
    const wheres = pack.modules.map(([where]) => where);
    expect(wheres[pack.entry]).toBe("runtime.js");
    expect(wheres.filter((w) => w.startsWith("zod:")).length).toBeGreaterThan(20);
    expect(wheres).toContain("undici:lib/dispatcher/agent.js");
    expect(wheres).toContain("http/client.js");
    expect(wheres.filter((w) => /^(secrets|runs|providers)\//.test(w) || w.startsWith("@pulumi/"))).toEqual([]);
    // What the host's entry loads before the pack.
    expect(wheres.filter((w) => /^core\/(startCompileCache|compileCache|scriptCache|compiledPath|pack)\.js$/.test(w))).toEqual([]);
    for (const [where, size, requests, code] of pack.modules) {
      const file = fileOf(where);
      const text = fs.readFileSync(file, "utf8").replace(/^#!/, "//").replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");
      expect({ where, size: fs.statSync(file).size }).toEqual({ where, size });
      expect(packedText(code).trimEnd(), where).toBe((latin1(text) ?? text).trimEnd());
      expect(mayImport(text), where).toBe(false);
      for (const j of Object.values(requests)) expect(pack.modules[j], where).toBeDefined();
    }
    // Nothing in it keeps V8's code cache from taking it on Node 20 (src/core/scriptCache.ts), and
    // it is a string of one byte per character (src/scripts/latin1.ts): a module that cannot be
    // written so makes the whole pack twice its size in every host's memory.
    const packText = fs.readFileSync(path.join(root, "dist/src/runtime.pack.js"), "utf8");
    expect(mayImport(packText)).toBe(false);
    expect(packText.match(/.{0,40}[^\x00-\xff]/)?.[0]).toBeUndefined();
    for (const [name, version] of Object.entries(pack.packages)) {
      expect(JSON.parse(fs.readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")).version).toBe(version);
    }
  });

  it("gives a host's first Check every packed module, each the module its file's require gives", async () => {
    const r = await firstCheck(root);
    expect(r.failures).toEqual([]);
    const compiled = r.compiled.map(rel(root));
    // Node compiled the entry, what it loads before the pack, the pack, and the kind's own modules.
    expect(compiled.filter((f) => !/^(secrets|providers)\//.test(f)).sort()).toEqual(
      ["core/compileCache.js", "core/compiledPath.js", "core/pack.js", "core/scriptCache.js", "core/startCompileCache.js", "host.js", "runtime.pack.js"]);
    expect(compiled).toContain("secrets/transform/template.js");
    expect(r.sameRuntime).toBe(true);
    expect(r.sameZod).toBe(true);
  });

  describe("for every kind", () => {
    const { emu } = useEmulator({ env: false });

    it("a create's first Check, kind after kind in one host, reads from their files only the kinds' own modules", async () => {
      const kinds = await oneOfEachKind(emu);
      const config = {
        "svc:runUrl": emu.runUrl, "svc:runToken": emu.tokens.runAdmin,
        "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": emu.tokens.secretsRoot,
      };
      const r = await firstCheck(root, kinds.map(({ kind, inputs }) => ({ kind, inputs })), config);
      // Each Check passed, so each made its read of what its create could be confused with.
      expect(r.failures).toEqual([]);
      // undici's HTTP parser is left to its file (src/scripts/pack.ts says why): the first answer loads it.
      const compiled = r.compiled.map(rel(root)).filter((f) => !/^(secrets|runs|providers)\//.test(f) && !f.startsWith("undici/lib/llhttp/llhttp"));
      expect(compiled.sort()).toEqual(
        ["core/compileCache.js", "core/compiledPath.js", "core/pack.js", "core/scriptCache.js", "core/startCompileCache.js", "host.js", "runtime.pack.js"]);
      // The Checks read, and wrote nothing.
      const sent = await requests(emu);
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.filter((q) => q.method !== "GET" && q.method !== "LIST")).toEqual([]);
    }, 60_000);
  });

  describe("where the installed files are not the ones packed", () => {
    const pkg = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-svc-pack-"));
    afterAll(() => fs.rmSync(pkg, { recursive: true, force: true }));

    it("Node loads them from their files: another zod, and a file of the package changed since", async () => {
      // The package as installed: its dist/src and package.json, every dependency where it is but
      // zod, copied with another version, and one of the package's packed files changed.
      fs.cpSync(path.join(root, "dist/src"), path.join(pkg, "dist/src"), { recursive: true, filter: (f) => !f.endsWith(".map") && !f.endsWith(".d.ts") });
      fs.copyFileSync(path.join(root, "package.json"), path.join(pkg, "package.json"));
      fs.mkdirSync(path.join(pkg, "node_modules"));
      for (const name of fs.readdirSync(path.join(root, "node_modules"))) {
        if (name !== "zod" && name !== ".bin") fs.symlinkSync(path.join(root, "node_modules", name), path.join(pkg, "node_modules", name));
      }
      fs.cpSync(path.join(root, "node_modules/zod"), path.join(pkg, "node_modules/zod"), { recursive: true });
      const manifest = path.join(pkg, "node_modules/zod/package.json");
      fs.writeFileSync(manifest, fs.readFileSync(manifest, "utf8").replace(`"version": "${pack.packages.zod}"`, `"version": "${pack.packages.zod}-patched"`));
      fs.appendFileSync(path.join(pkg, "dist/src/core/json.js"), "\n// changed after the build\n");

      const r = await firstCheck(pkg);
      expect(r.failures).toEqual([]);
      const compiled = r.compiled.map(rel(pkg));
      const zodPacked = pack.modules.filter(([w]) => w.startsWith("zod:")).map(([w]) => w.replace(":", "/"));
      expect(compiled).toEqual(expect.arrayContaining([...zodPacked, "core/json.js"]));
      // The rest of the package's packed modules, and undici's, still came from the pack.
      expect(compiled.filter((f) => f.startsWith("undici/") || f === "core/connected.js" || f === "runtime.js")).toEqual([]);
      expect(r.sameRuntime).toBe(true);
      expect(r.sameZod).toBe(true);
    });
  });
});
