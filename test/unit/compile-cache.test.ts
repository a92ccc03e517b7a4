// V8's code cache where Node has none (Node 20: src/core/scriptCache.ts), which the provider host's
// runtime starts and scripts/compile-cache.cjs, the preload .ci/run gives every Node process, too
// (test/cli/compile-cache.test.ts: what it does under the real CLI): a module loaded from the cache
// behaves as Node loads it (exports, stack positions, dynamic import), a module that may call
// import() is left to Node, and the host's code is kept with the functions its first call ran.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import Module from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { mayImport } from "../../src/core/scriptCache";
import { root } from "../support/dist";
import { filesUnder } from "../support/files";

const preload = path.join(root, "scripts/compile-cache.cjs");
const engine = path.join(root, "dist/src/core/scriptCache.js");

describe("compile cache", () => {
  it("leaves to Node a module that may call import(), not one that only names it", () => {
    expect(mayImport('await import("x")')).toBe(true);
    expect(mayImport("const a = \"it's\"; import(y)")).toBe(true);
    expect(mayImport("x = typeof import('{0}')")).toBe(true);
    // Text run as code (how @pulumi/pulumi imports a program) counts in a string too.
    expect(mayImport('const di = (0, eval)("u=>import(u)");')).toBe(true);
    expect(mayImport('const m = "call import( here";')).toBe(false);
    expect(mayImport("// import(x)\n * @type {import('a')}\nf.import(x)")).toBe(false);
  });

  // Node 22 has a cache of its own (NODE_COMPILE_CACHE), and the engine then does nothing.
  const native = typeof (Module as { enableCompileCache?: unknown }).enableCompileCache === "function";
  it.skipIf(native)("gives a second process the cached code, with Node's exports, positions and dynamic import (Node 20)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "compile-cache-"));
    try {
      fs.writeFileSync(path.join(dir, "x.mjs"), "export const x = 42;\n");
      fs.writeFileSync(path.join(dir, "thrower.js"), "#!/usr/bin/env node\nmodule.exports = () => { throw new Error(\"boom\"); };\n");
      fs.writeFileSync(path.join(dir, "importer.js"), 'module.exports = () => import("./x.mjs");\n');
      const main = path.join(dir, "main.js");
      fs.writeFileSync(main, [
        'const lines = [];',
        'try { require("./thrower.js")(); } catch (e) { lines.push(e.stack.split("\\n")[1].trim()); }',
        'require("./importer.js")().then((m) => { lines.push(String(m.x)); console.log(lines.join("|")); });',
      ].join("\n"));
      const cache = path.join(dir, "cache");
      const run = (withCache: boolean) => {
        const env = { ...process.env, NODE_OPTIONS: withCache ? `--require ${preload}` : "", NODE_COMPILE_CACHE: cache };
        const r = spawnSync(process.execPath, [main], { env, encoding: "utf8" });
        return { out: r.stdout.trim(), err: r.stderr };
      };
      const plain = run(false);
      expect(plain.out).toMatch(/thrower\.js:2:\d+\)\|42$/);
      const first = run(true);
      const written = fs.existsSync(cache) ? fs.readdirSync(cache).sort() : [];
      const second = run(true);
      expect([first, second]).toEqual([plain, plain]);
      // main.js and thrower.js are cached; importer.js, which may call import(), is not: its
      // entry is empty, so that the next process does not scan it again.
      const sizes = written.map((f) => fs.statSync(path.join(cache, f)).size).sort((a, b) => a - b);
      expect(sizes).toHaveLength(3);
      expect(sizes[0]).toBe(0);
      expect(sizes[1]).toBeGreaterThan(0);
      expect(fs.readdirSync(cache).sort()).toEqual(written);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(native)("keeps a host's code when asked, with the functions run since, and the next process takes it as it is (Node 20)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "compile-cache-"));
    try {
      // A function nobody calls while the module loads: V8 compiles it at its first call.
      const mod = path.join(dir, "m.js");
      fs.writeFileSync(mod, `module.exports = function f(a) {\n${"  a = (a * 31 + 7) % 1000003;\n".repeat(500)}  return a;\n};\n`);
      const cache = path.join(dir, "cache");
      const run = (options: string, body: string, args: string[] = []) => {
        const script = `const e = require(${JSON.stringify(engine)}); e.startScriptCache(${JSON.stringify(cache)}, ${options}); const f = require(${JSON.stringify(mod)}); ${body}`;
        const r = spawnSync(process.execPath, [...args, "-e", script], { env: { ...process.env, NODE_OPTIONS: "" }, encoding: "utf8" });
        expect(r.stderr).toBe("");
        return r.stdout.trim();
      };
      const entries = () => filesUnder(cache).map(({ file, size, mtimeMs }) => ({ file, size, mtimeMs }));
      // Kept as the module loaded: the function's code is not in it.
      run("{}", "console.log(f(1));");
      const [atLoad] = entries();
      fs.rmSync(cache, { recursive: true });
      // Kept later: nothing until asked, then with the function compiled.
      expect(run("{ later: true }", `const a = f(1); const n = require("fs").existsSync(${JSON.stringify(cache)}); e.keepScripts(); console.log(a, n);`)).toMatch(/^\d+ false$/);
      const kept = entries();
      expect(kept).toHaveLength(1);
      expect(kept[0]!.size).toBeGreaterThan(atLoad!.size * 3);
      // The next process takes it: nothing is written again.
      run("{ later: true }", "f(1); e.keepScripts();");
      expect(entries()).toEqual(kept);
      // With source maps on, Node compiles (it keeps each module's map as it does).
      fs.rmSync(cache, { recursive: true });
      run("{ later: true }", "f(1); e.keepScripts();", ["--enable-source-maps"]);
      expect(entries()).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
