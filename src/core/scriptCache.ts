/**
 * Compiled code kept between Node processes where Node has no compile cache of its own (before
 * 22.1): V8's code cache for each CommonJS module, one file per module, text and V8 flags. The
 * provider host's runtime starts it on Node 20 (src/core/compileCache.ts), and so does CI's
 * preload for every process (scripts/compile-cache.cjs). What runs is what Node would run: the
 * same function around the module, the same positions in stack traces; what V8 cannot take from a
 * cache (ESM, a syntax error, a possible import() call) is left to Node. Nothing here imports the
 * package: a preload loads it alone.
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import Module = require("node:module");
import * as path from "node:path";
import v8 = require("node:v8");
import * as vm from "node:vm";

export type Loaded = NodeJS.Module & { require(id: string): unknown };
type Compile = (this: Loaded, content: string, filename: string, format?: string) => unknown;
type Loader = {
  prototype: { _compile: Compile };
  _resolveFilename(request: string, parent: Loaded, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: Loaded): string[] | null;
  _extensions: NodeJS.Require["extensions"];
  _cache: NodeJS.Require["cache"];
};
const loader = Module as unknown as Loader;

/**
 * On the hook, so that a second copy of this module (a preload's and the package's) finds it and
 * what it keeps for later.
 */
const INSTALLED = Symbol.for("pulumi-svc.scriptCache");
type Hook = Compile & { [INSTALLED]?: { keep(): void } };

// Node compiles a module as a function's body; a script needs the function's head in front: on a
// line of its own, which the line offset takes back, so that every position is the file's.
const HEAD = "(function (exports, require, module, __filename, __dirname) {\n";
const TAIL = "\n})";

// V8 drops a script's dynamic-import callback when the script comes from cached data, so a module
// that may call import() is left to Node. The word in a comment or a string does not count (a
// line's text before it is scanned for an open string or a comment; TypeScript's messages name
// it), unless the module runs text as code (@pulumi/pulumi imports a program through eval).
const IMPORT_CALL = /(^|[^\w$.])import\s*\(/g;
const RUNS_TEXT = /\beval\s*\)?\s*\(|\bFunction\s*\(/;

export function mayImport(content: string): boolean {
  if (RUNS_TEXT.test(content)) return content.includes("import");
  for (const m of content.matchAll(IMPORT_CALL)) {
    const at = m.index + m[1]!.length;
    const start = content.lastIndexOf("\n", at) + 1;
    if (!inStringOrComment(content.slice(start, at))) return true;
  }
  return false;
}

function inStringOrComment(before: string): boolean {
  if (/^\s*(\*|\/\*)/.test(before)) return true;
  let quote = "";
  for (let i = 0; i < before.length; i++) {
    const c = before[i];
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
    } else if (c === "'" || c === '"' || c === "`") quote = c;
    else if (c === "/" && before[i + 1] === "/") return true;
  }
  return quote !== "";
}

/** Node's options that name code to run (a preload, `-e`'s text): they change what runs, not how V8 compiles it. */
const NAMES_CODE = /^(-r|--require|--import|--loader|--experimental-loader|-e|--eval|-p|--print)(=|$)/;

/** The process's options that can change V8's code. */
function startFlags(): string {
  const words = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].filter(Boolean);
  const kept: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const named = NAMES_CODE.exec(words[i]!);
    if (!named) kept.push(words[i]!);
    else if (named[2] === "") i++;
  }
  return kept.join(" ");
}

/** The require a module's code is given, as Node makes it (`load` answers a call, Node's by default). */
export function requireFor(mod: Loaded, load: (id: string) => unknown = (id) => mod.require(id)): NodeJS.Require {
  const req = load as NodeJS.Require;
  const resolve = ((request: string, options?: { paths?: string[] }) => loader._resolveFilename(request, mod, false, options)) as NodeJS.RequireResolve;
  resolve.paths = (request: string) => loader._resolveLookupPaths(request, mod);
  req.resolve = resolve;
  req.main = process.mainModule;
  req.extensions = loader._extensions;
  req.cache = loader._cache;
  return req;
}

function keep(dir: string, file: string, data: Buffer): void {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}`;
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, file);
  } catch {
    // A full disk or a read-only folder costs the next process a compile, nothing more.
  }
}

export interface ScriptCacheOptions {
  /** V8 flags this process set already, which setting again changes nothing. */
  inEffect?: string[];
  /**
   * Keep a module's code when keepScripts() is called, not as soon as the module ran: by then it
   * holds the functions that ran since too (V8 compiles a function when it is first called).
   */
  later?: boolean;
}

/**
 * Compiles each CommonJS module loaded from now on with the code kept in `dir`, and keeps the
 * code of each module compiled anew: after it ran (with the functions its loading compiled), or
 * with `later` at keepScripts(). Does nothing where it runs already (a preload started it), or
 * where Node has a compile cache.
 */
export function startScriptCache(dir: string, options: ScriptCacheOptions = {}): void {
  const compile: Hook = loader.prototype._compile;
  if (compile[INSTALLED] || typeof (Module as { enableCompileCache?: unknown }).enableCompileCache === "function") return;
  // A flag set later is part of the key: V8 refuses code compiled under other flags.
  let flags = startFlags();
  const seen = new Set(options.inEffect);
  const setFlags = v8.setFlagsFromString;
  (v8 as { setFlagsFromString(f: string): void }).setFlagsFromString = (f: string) => {
    if (!seen.has(f)) flags += `\0${f}`;
    seen.add(f);
    setFlags(f);
  };
  // Modules compiled anew whose code waits for keepScripts().
  const waiting: Array<{ file: string; script: vm.Script }> = [];
  const cached: Hook = function (this: Loaded, content, filename, format) {
    // With source maps on, Node keeps each module's map as it compiles it: left to Node.
    if ((format !== undefined && format !== "commonjs") || !/\.c?js$/.test(filename) || process.sourceMapsEnabled) return compile.call(this, content, filename, format);
    // The key is the text, not the file's time: npm gives every file of a package the same.
    const file = path.join(dir, crypto.createHash("sha1").update(filename).update("\0").update(flags).update("\0").update(content).digest("hex"));
    let cachedData: Buffer | undefined;
    try {
      cachedData = fs.readFileSync(file);
    } catch {
      // Not kept yet.
    }
    // A text is scanned once: an empty entry marks one left to Node.
    if (cachedData?.length === 0) return compile.call(this, content, filename, format);
    if (cachedData === undefined && mayImport(content)) {
      keep(dir, file, Buffer.alloc(0));
      return compile.call(this, content, filename, format);
    }
    let script: vm.Script;
    try {
      // A hashbang is valid only at a script's start: the same two characters as a comment.
      const body = content.startsWith("#!") ? `//${content.slice(2)}` : content;
      script = new vm.Script(HEAD + body + TAIL, { filename, cachedData, lineOffset: -1 });
    } catch {
      return compile.call(this, content, filename, format);
    }
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    const result = wrapper.call(this.exports, this.exports, requireFor(this), this, filename, path.dirname(filename));
    if (cachedData === undefined || script.cachedDataRejected === true) {
      if (options.later) waiting.push({ file, script });
      else keep(dir, file, script.createCachedData());
    }
    return result;
  };
  cached[INSTALLED] = { keep: () => { for (const { file, script } of waiting.splice(0)) keep(dir, file, script.createCachedData()); } };
  loader.prototype._compile = cached;
}

/** Keeps the code of the modules compiled anew since the last call, with what has run of it. */
export function keepScripts(): void {
  (loader.prototype._compile as Hook)[INSTALLED]?.keep();
}
