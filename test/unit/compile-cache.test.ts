// scripts/compile-cache.cjs, which .ci/run preloads into every Node process of both combinations
// (test/cli/compile-cache.test.ts: what it does under the real CLI): a module loaded from the cache
// behaves as Node loads it (exports, stack positions, dynamic import), and a module that may call
// import() is left to Node.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import Module from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../support/dist";

const preload = path.join(root, "scripts/compile-cache.cjs");
const { mayImport } = require(preload) as { mayImport(content: string): boolean };

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

  // Node 22 has a cache of its own (NODE_COMPILE_CACHE), and the preload then does nothing.
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
});
