/**
 * Node's compile cache (Node 22.1 or later) for a provider host, and V8's code cache where Node has
 * none (src/core/scriptCache.ts). The CLI starts a host for every command, and compiling the
 * package, zod and undici anew was about a third of a first Check (docs/performance.md, "Cold
 * start in the provider host"). Each module's compiled code is kept under a digest of its path and
 * text, and taken only for the same text. The folder is the user's own, not the shared temporary
 * one Node would pick; NODE_COMPILE_CACHE chooses another and NODE_DISABLE_COMPILE_CACHE=1 turns
 * it off, as for any Node program.
 */
import Module = require("node:module");
import * as os from "node:os";
import * as path from "node:path";
import * as v8 from "node:v8";
import { compiledPath } from "./compiledPath";
import { keepScripts, startScriptCache } from "./scriptCache";

type CacheApi = {
  enableCompileCache?: (dir?: string) => { status: number } | undefined;
  flushCompileCache?: () => void;
  constants?: { compileCacheStatus?: Record<string, number> };
};
const api = Module as CacheApi;

/** Where the package keeps compiled code when NODE_COMPILE_CACHE names no folder. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "pulumi-svc", "compile-cache");
}

/**
 * Turns the cache on for what this process loads from now on (src/core/startCompileCache.ts), and
 * V8's eager compilation with it: Node keeps the code V8 compiled as a module loaded, and V8
 * compiles a function when it is first called, so a lazily compiled host would compile every
 * function its first Check runs again in every host. Set first: Node names the cache's folder
 * after V8's flags. Where the cache was on from the process's start (NODE_COMPILE_CACHE), its
 * folder is named after the flags the process started with, which other processes share: code
 * compiled under other flags would be refused there and written over, each time, so the flags stay.
 */
export function startCompileCache(): void {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return;
  if (typeof api.enableCompileCache !== "function") {
    // Named as Node 22 names its folders: the code of one Node is refused by another.
    startScriptCache(path.join(process.env.NODE_COMPILE_CACHE || compileCacheDir(), `${process.version}-${process.arch}-scripts`), { later: true });
    return;
  }
  v8.setFlagsFromString("--no-lazy");
  let status: number | undefined;
  try {
    status = api.enableCompileCache(process.env.NODE_COMPILE_CACHE || compileCacheDir())?.status;
  } catch {
    // No home folder to keep it in: the host compiles as Node 20's does, nothing else changes.
  }
  if (status === undefined || status !== api.constants?.compileCacheStatus?.ENABLED) v8.setFlagsFromString("--lazy");
}

/**
 * What gives a Node process started from here (the same Node) the cache from its first module on:
 * Node's own through the environment, unless the user chose already; where Node has none, this
 * module's start loaded first. Nothing when the cache is off.
 */
export function compileCacheStart(env: NodeJS.ProcessEnv = process.env): { env: Record<string, string>; preload: string[] } {
  if (env.NODE_DISABLE_COMPILE_CACHE) return { env: {}, preload: [] };
  if (typeof api.enableCompileCache !== "function") return { env: {}, preload: [compiledPath(__filename, "startCompileCache.js")] };
  return { env: env.NODE_COMPILE_CACHE ? {} : { NODE_COMPILE_CACHE: compileCacheDir(env) }, preload: [] };
}

const kept = new Set<string>();
/**
 * Writes what was compiled so far after the first call of each method (each loads its own
 * modules): Node writes it at exit, and the CLI ends a provider host with a signal, which skips that.
 */
export function keepCompiled(method: string): void {
  if (kept.has(method)) return;
  kept.add(method);
  setImmediate(() => {
    keepScripts();
    try {
      api.flushCompileCache?.();
    } catch {
      // A cache that cannot be written (a read-only home) costs the next host its head start, nothing else.
    }
  });
}
