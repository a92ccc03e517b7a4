// The provider host's deferred packages (src/engine/deferred.ts): a module loaded when first
// touched, as TypeScript's import helpers in @pulumi/pulumi take it, and the hook that hands one out
// only to the SDK's file named for it. test/protocol/host-deferred.test.ts runs a real host.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFERRED, HOST_SCRIPT_IN_SDK, PROGRAM_SCRIPT_IN_SDK, deferSdkPackages, deferredModule, hostSdk, programSdk } from "../../src/engine/deferred";
import { root } from "../support/dist";

// What tsc's helpers do with a required module, as @pulumi/pulumi's compiled files have them.
const importStar = (mod: any): any => {
  if (mod?.__esModule) return mod;
  const out: any = {};
  for (const k in mod) if (Object.prototype.hasOwnProperty.call(mod, k)) out[k] = mod[k];
  out.default = mod;
  return out;
};
const importDefault = (mod: any): any => (mod?.__esModule ? mod : { default: mod });

/** A deferred module of `exports`, and how many times it was loaded. */
function counted(exports: unknown): { mod: any; loads: () => number } {
  let n = 0;
  return { mod: deferredModule(() => (n++, exports)), loads: () => n };
}

describe("a deferred module", () => {
  it("is loaded at its first touch, once, and an import through tsc's helpers touches nothing", () => {
    const { mod, loads } = counted({ parse: (s: string) => s.length, version: "1.2.3" });
    const star = importStar(mod);
    const dflt = importDefault(mod);
    expect(loads()).toBe(0);
    expect(star.parse("abc")).toBe(3);
    expect(dflt.default.version).toBe("1.2.3");
    expect("parse" in star && Object.keys(star)).toEqual(["parse", "version"]);
    expect(loads()).toBe(1);
  });

  it("is the module's members, its default what the helpers would make of it, and takes writes", () => {
    const cjs = { a: 1 };
    expect(importStar(counted(cjs).mod).default).toBe(cjs);
    const esm = { __esModule: true, default: "the default", named: 2 };
    expect(importStar(counted(esm).mod).default).toBe("the default");
    const { mod } = counted(cjs);
    mod.b = 2;
    expect(cjs).toEqual({ a: 1, b: 2 });
  });

  it("is called and constructed when the module is a function or a class", () => {
    class Tree {
      constructor(readonly path: string) {}
    }
    const fn = Object.assign((x: number) => x * 2, { extra: "x" });
    expect(importDefault(counted(fn).mod).default(21)).toBe(42);
    expect(counted(fn).mod(4)).toBe(8);
    const made = new (counted(Tree).mod)("/p");
    expect(made).toBeInstanceOf(Tree);
    expect(made.path).toBe("/p");
    const star = importStar(counted({ Tree }).mod);
    expect(new star.Tree("/q")).toBeInstanceOf(Tree);
  });

  it("fails at the touch when its load fails, and tries again at the next", () => {
    let fail = true;
    const mod: any = deferredModule(() => {
      if (fail) throw new Error("cannot load");
      return { ok: true };
    });
    expect(() => mod.ok).toThrow("cannot load");
    fail = false;
    expect(mod.ok).toBe(true);
  });
});

describe("deferring the SDK's packages", () => {
  // A folder laid out as the SDK is: the host's script, the files DEFERRED names, and packages.
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "deferred-sdk-")));
  const sdk = path.join(dir, "node_modules/@pulumi/pulumi");
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  };
  write(path.join(sdk, HOST_SCRIPT_IN_SDK), "");
  const loads = path.join(dir, "loads.log");
  for (const pkg of ["typescript", "@npmcli/arborist"]) {
    write(path.join(dir, "node_modules", pkg, "index.js"), `require("fs").appendFileSync(${JSON.stringify(loads)}, ${JSON.stringify(pkg + "\n")}); exports.name = ${JSON.stringify(pkg)};`);
  }
  // typescript-shim.js falls back to its own copy when the project has none: so must this one.
  write(path.join(sdk, "typescript-shim.js"), 'try { module.exports = require("typescript"); } catch (e) { module.exports = { fallback: e.code }; }');
  write(path.join(sdk, "automation/localWorkspace.js"), 'try { module.exports = require("js-yaml"); } catch (e) { module.exports = { fallback: e.code }; }');
  write(path.join(sdk, "elsewhere.js"), 'module.exports = require("@npmcli/arborist");');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const loaded = () => (fs.existsSync(loads) ? fs.readFileSync(loads, "utf8").trim().split("\n") : []);

  it("hands the named file a deferred module, any other file the package itself, and a missing package's error at once", () => {
    expect(DEFERRED["typescript-shim.js"]).toContain("typescript");
    expect(hostSdk(path.join(sdk, HOST_SCRIPT_IN_SDK))).toBe(`${sdk}${path.sep}`);
    const undo = deferSdkPackages(sdk);
    try {
      const shim = require(path.join(sdk, "typescript-shim.js"));
      expect(loaded()).toEqual([]);
      expect(shim.name).toBe("typescript");
      expect(loaded()).toEqual(["typescript"]);
      require(path.join(sdk, "elsewhere.js"));
      expect(loaded()).toEqual(["typescript", "@npmcli/arborist"]);
      expect(require(path.join(sdk, "automation/localWorkspace.js")).fallback).toBe("MODULE_NOT_FOUND");
    } finally {
      undo();
    }
  });

  it("is no provider host's where the main script is another, and no program's but under the SDK's runner", () => {
    expect(hostSdk(path.join(dir, "program.js"))).toBeUndefined();
    expect(hostSdk(path.join(sdk, PROGRAM_SCRIPT_IN_SDK))).toBeUndefined();
    expect(programSdk(path.join(sdk, PROGRAM_SCRIPT_IN_SDK))).toBe(`${sdk}${path.sep}`);
    expect(programSdk(path.join(sdk, HOST_SCRIPT_IN_SDK))).toBeUndefined();
    expect(programSdk(path.join(dir, "index.js"))).toBeUndefined();
  });

  // CI's preload (scripts/defer-sdk.cjs) in the processes the Pulumi CLI starts, as they start.
  it.each([["a program's", PROGRAM_SCRIPT_IN_SDK], ["a provider host's", HOST_SCRIPT_IN_SDK]])("under CI's preload, in %s process, and in no other", (_, script) => {
    const main = `const shim = require(${JSON.stringify(path.join(sdk, "typescript-shim.js"))});
      const before = require("fs").existsSync(${JSON.stringify(loads)});
      console.log(JSON.stringify({ before, name: shim.name }));`;
    const run = (file: string) => {
      write(file, main);
      fs.rmSync(loads, { force: true });
      const r = spawnSync(process.execPath, ["--require", path.join(root, "scripts/defer-sdk.cjs"), file], { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } });
      expect(r.stderr).toBe("");
      return JSON.parse(r.stdout) as { before: boolean; name: string };
    };
    try {
      expect(run(path.join(sdk, script))).toEqual({ before: false, name: "typescript" });
      expect(loaded()).toEqual(["typescript"]);
      expect(run(path.join(dir, "program.js"))).toEqual({ before: true, name: "typescript" });
    } finally {
      write(path.join(sdk, HOST_SCRIPT_IN_SDK), "");
      fs.rmSync(path.join(sdk, PROGRAM_SCRIPT_IN_SDK), { force: true });
    }
  });
});
