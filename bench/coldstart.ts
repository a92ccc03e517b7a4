/**
 * `npm run bench` (cold start): the first Check a fresh dynamic-provider host serves for a
 * pulumi-svc resource (deserializing the provider, configuring it, loading what the kind needs,
 * validating) vs the same first Check of a trivial provider, in the same run. The package is
 * installed under node_modules of a temporary project, as users have it. Reports the difference
 * and the modules each first call loaded; never a threshold.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import Module = require("node:module");
import * as path from "node:path";
import { compileCacheDir } from "../src/core/compileCache";
import { ProviderHost } from "../src/engine/host";
import { installedProject } from "../src/engine/installed";

const REPEATS = Number(process.env.BENCH_COLD_REPEATS ?? 7);
const KIND = "secrets:TransformTemplate";
const CONFIG = { "svc:secretsUrl": "http://127.0.0.1:9/v1", "svc:secretsToken": "cold-start-token-0001" };

// Counts the modules a provider's first call loads: the host evaluates the provider text with this
// project's require, so a provider can report how many entries require.cache gained.
const TRIVIAL = `"use strict";
module.exports = {
  async configure() {},
  async check(olds, news) { return { inputs: news, failures: [] }; },
  async diff() { return {}; },
  async create() { return { id: "x", outs: {} }; },
};
`;

/** The provider texts, serialized in the project as pulumi.dynamic.Resource would. */
function texts(dir: string): Record<"trivial" | "svc", string> {
  const script = `
    const pulumi = require("@pulumi/pulumi");
    const dir = require("path").dirname(require.resolve("pulumi-svc"));
    const svc = require(dir + "/providers/secrets/TransformTemplate.js");
    const trivial = require("trivial-provider");
    (async () => console.log(JSON.stringify({
      svc: (await pulumi.runtime.serializeFunction(() => svc, { allowSecrets: true })).text,
      trivial: (await pulumi.runtime.serializeFunction(() => trivial, { allowSecrets: true })).text,
    })))();`;
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: dir, encoding: "utf8", env: { ...process.env, NODE_NO_WARNINGS: "1" } }));
}

async function firstCheck(dir: string, text: string, news: Record<string, unknown>): Promise<{ first: number; second: number }> {
  // The compile cache in the project's own folder: each run starts as a new installation, and leaves nothing behind.
  const env: Record<string, string | undefined> = { XDG_CACHE_HOME: path.join(dir, ".cache"), NODE_COMPILE_CACHE: undefined };
  for (const k of Object.keys(process.env)) if (k.startsWith("SVC_")) env[k] = undefined;
  // As the CLI starts it: every package the SDK loads, loaded.
  const host = await ProviderHost.start({ cwd: dir, env, deferSdkPackages: false });
  try {
    await host.configure(CONFIG);
    const urn = `urn:pulumi:dev::bench::pulumi-nodejs:dynamic/${KIND}::t`;
    let t = process.hrtime.bigint();
    const r = await host.check(urn, {}, { __provider: text, ...news });
    const first = Number(process.hrtime.bigint() - t) / 1e6;
    if (r.failures.length > 0) throw new Error(`check failed: ${JSON.stringify(r.failures)}`);
    t = process.hrtime.bigint();
    await host.check(urn, {}, { __provider: text, ...news, name: "u" });
    return { first, second: Number(process.hrtime.bigint() - t) / 1e6 };
  } finally {
    await host.close();
  }
}

/**
 * Modules loaded by the first Check of the pulumi-svc provider, beyond what the host had, and how
 * many of them Node read from their own files (the rest came from the host's pack, src/core/pack.ts).
 */
function modulesLoaded(dir: string): { count: number; fromFiles: number; packages: Record<string, number> } {
  const script = `
    require("@pulumi/pulumi");
    const before = new Set(Object.keys(require.cache));
    let fromFiles = 0;
    const Module = require("module");
    const compile = Module.prototype._compile;
    Module.prototype._compile = function (...args) { fromFiles++; return compile.apply(this, args); };
    const p = require(require("path").dirname(require.resolve("pulumi-svc")) + "/providers/secrets/TransformTemplate.js");
    (async () => {
      await p.configure({ config: { get: (k) => (${JSON.stringify(CONFIG)})[k] } });
      await p.check({}, { name: "t", pattern: "(\\\\d{4})" });
      const added = Object.keys(require.cache).filter((k) => !before.has(k));
      const packages = {};
      for (const k of added) { const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)(?!.*node_modules)/.exec(k); const n = m ? m[1] : k; packages[n] = (packages[n] || 0) + 1; }
      console.log(JSON.stringify({ count: added.length, fromFiles, packages }));
    })();`;
  // With the compile cache off: on Node 20 a cached module does not reach Node's own compile.
  const env = { ...process.env, NODE_NO_WARNINGS: "1", NODE_DISABLE_COMPILE_CACHE: "1" };
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: dir, encoding: "utf8", env }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const project = installedProject("pulumi-svc-cold-");
  try {
    const trivialDir = path.join(project.dir, "node_modules/trivial-provider");
    fs.mkdirSync(trivialDir);
    fs.writeFileSync(path.join(trivialDir, "index.js"), TRIVIAL);
    fs.writeFileSync(path.join(trivialDir, "package.json"), JSON.stringify({ name: "trivial-provider", main: "index.js" }));
    const t = texts(project.dir);
    const news = { name: "t", pattern: "(\\d{4})" };
    const sides = { trivial: [] as number[], svc: [] as number[], svcSecond: [] as number[] };
    const dir = compileCacheDir({ XDG_CACHE_HOME: path.join(project.dir, ".cache") });
    const cache = process.env.NODE_DISABLE_COMPILE_CACHE ? "the compile cache off (NODE_DISABLE_COMPILE_CACHE)"
      : (Module as { enableCompileCache?: unknown }).enableCompileCache ? `Node's compile cache in ${dir}` : `V8's code cache (Node has no compile cache) in ${dir}`;
    console.log(`pulumi-svc bench: first Check in a fresh dynamic-provider host, ${REPEATS} hosts per side, interleaved (Node ${process.version}, ${cache})\n`);
    for (let r = 0; r < REPEATS; r++) {
      sides.trivial.push((await firstCheck(project.dir, t.trivial, news)).first);
      const svc = await firstCheck(project.dir, t.svc, news);
      sides.svc.push(svc.first);
      sides.svcSecond.push(svc.second);
    }
    const trivial = median(sides.trivial);
    const svc = median(sides.svc);
    console.log(`trivial provider, first Check        ${trivial.toFixed(1).padStart(7)} ms  (median)`);
    console.log(`pulumi-svc ${KIND}, first Check ${svc.toFixed(1).padStart(7)} ms  (second Check ${median(sides.svcSecond).toFixed(1)} ms)`);
    console.log(`first Check above the trivial provider: ${(svc - trivial).toFixed(1)} ms  (ratio ${(svc / trivial).toFixed(2)})`);
    // The run's first host finds nothing compiled for this newly installed project (a user's first command).
    console.log(`  the run's first host (nothing compiled yet for this installation): ${(sides.svc[0]! - trivial).toFixed(1)} ms above`);
    const loaded = modulesLoaded(project.dir);
    console.log(`modules the first Check loads: ${loaded.count} ${JSON.stringify(loaded.packages)}, ${loaded.fromFiles} of them read from their own files (the rest from the pack)`);
  } finally {
    project.remove();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
