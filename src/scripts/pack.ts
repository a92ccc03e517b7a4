/**
 * Build step (src/scripts/providers.ts runs it, after tsc, in a process of its own): writes
 * dist/src/runtime.pack.js, the modules a provider host's first Check loads, for src/core/pack.ts.
 *
 * What to pack is recorded, not listed: this process loads the runtime entry as a host does, runs
 * a Check of every kind (each kind's module and schemas loaded, and what it imports from the core
 * with them) and a read (a request, sent to a port that refuses it), and packs every module
 * compiled on the way, with the requests each made. Left to their files: the SDK (a host has loaded
 * it before any provider), what the host's entry loads before the pack (the compile cache and the
 * pack's loader), each kind's own folder (a host loads only the kinds it serves), JSON, a module
 * that may call import() (its import would resolve against the pack, not the file;
 * src/core/scriptCache.ts leaves such a module to Node for the same reason), and undici's HTTP
 * parser, which the first answer loads (WebAssembly as 72 KB of text: packed, it cost every first
 * Check about 5 ms, and read at the first answer from its file it costs what it would from the pack).
 * Each module's text is written in Latin-1 where that keeps its meaning (src/scripts/latin1.ts).
 * test/unit/host-pack.test.ts holds that a create's first Check of every kind, against the
 * emulator, reads nothing else from its file but the kinds' own modules.
 */
import * as fs from "node:fs";
import Module = require("node:module");
import * as path from "node:path";
import type { Pack } from "../core/pack";
import { mayImport } from "../core/scriptCache";
import { latin1 } from "./latin1";

type Loader = {
  prototype: { _compile(this: NodeJS.Module, content: string, filename: string, format?: string): unknown };
  _resolveFilename(request: string, parent: NodeJS.Module | undefined, isMain: boolean, options?: unknown): string;
};

const srcRoot = path.resolve(__dirname, "..");
const OUT = path.join(srcRoot, "runtime.pack.js");
/** The kinds' own folders (src/kinds.ts loads a kind's module on first use). */
const KIND_FOLDERS = ["secrets", "runs", "providers"].map((d) => path.join(srcRoot, d) + path.sep);
/** Both services at a port nothing listens on, and no retry of the refused request. */
const CONFIG: Record<string, string> = {
  "svc:runUrl": "http://127.0.0.1:9/api/v2", "svc:runToken": "pack-recording-token-01",
  "svc:secretsUrl": "http://127.0.0.1:9/v1", "svc:secretsToken": "pack-recording-token-01", "svc:maxRetries": "0",
};

async function record(): Promise<{ compiled: Map<string, string>; resolved: Map<string, Record<string, string>> }> {
  const loader = Module as unknown as Loader;
  // A host has loaded the SDK before any provider; the host's entry loads the next two first.
  require("@pulumi/pulumi");
  require("../core/startCompileCache");
  require("../core/pack");
  const compiled = new Map<string, string>();
  const resolved = new Map<string, Record<string, string>>();
  const compile = loader.prototype._compile;
  loader.prototype._compile = function (content, filename, format) {
    compiled.set(filename, content);
    return compile.call(this, content, filename, format);
  };
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function (request, parent, isMain, options) {
    const file = resolve.call(this, request, parent, isMain, options);
    if (parent?.filename) (resolved.get(parent.filename) ?? resolved.set(parent.filename, {}).get(parent.filename)!)[request] = file;
    return file;
  };
  const runtime = require(path.join(srcRoot, "runtime.js")) as typeof import("../runtime");
  const kinds = (require(path.join(srcRoot, "kinds.js")) as typeof import("../kinds")).KIND_NAMES;
  await runtime.configure({ config: { get: (key) => CONFIG[key] } });
  for (const kind of kinds) await runtime.checkForEngine(kind, {}, {});
  await runtime.call(kinds[0]!, "read", ["pack-recording", {}]).then(
    () => { throw new Error(`pack: ${kinds[0]}'s read from a refused connection succeeded`); },
    (e: unknown) => { if (!/ECONNREFUSED/.test(String(e))) throw e; });
  loader.prototype._compile = compile;
  loader._resolveFilename = resolve;
  return { compiled, resolved };
}

/** Each packed package's license, as the package ships it: the pack is a copy of its files. */
function licenses(dirs: Map<string, string>): string {
  let text = "";
  for (const [name, dir] of dirs) {
    const file = fs.readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
    const license = file === undefined ? "(no license file)" : fs.readFileSync(path.join(dir, file), "utf8").replaceAll("*/", "* /");
    text += `/* Modules of ${name}, from its files as installed. Its license:\n\n${license.trim()}\n*/\n`;
  }
  return text;
}

/** Where a file is, as the pack names it, and its package's name, folder and version. */
function place(file: string): { where: string; pkg?: string; dir?: string; version?: string } {
  const at = file.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  if (at < 0) return { where: path.relative(srcRoot, file).split(path.sep).join("/") };
  const rest = file.slice(at + "/node_modules/".length).split(path.sep);
  const name = rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  const dir = file.slice(0, at + "/node_modules/".length) + name;
  const version = (JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { version: string }).version;
  return { where: `${name}:${path.relative(dir, file).split(path.sep).join("/")}`, pkg: name, dir, version };
}

/**
 * A module's text as the pack holds it. A hashbang is valid only at a script's start: the same two
 * characters as a comment. Each module's source map is named beside its file, which the pack is
 * not: the comment goes. Latin-1 only where the meaning stays (src/scripts/latin1.ts).
 */
function packedCode(text: string): string {
  const code = text.replace(/^#!/, "//").replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");
  return latin1(code) ?? code;
}

function packable(file: string, content: string): boolean {
  if (!/\.c?js$/.test(file) || mayImport(content)) return false;
  return file.includes(`${path.sep}node_modules${path.sep}`) || !KIND_FOLDERS.some((d) => file.startsWith(d));
}

async function main(): Promise<void> {
  process.env.NODE_DISABLE_COMPILE_CACHE = "1";
  const { compiled, resolved } = await record();
  const files = [...compiled].filter(([file, content]) => packable(file, content)).map(([file]) => file);
  const index = new Map(files.map((f, i) => [f, i]));
  const entry = index.get(path.join(srcRoot, "runtime.js"));
  if (entry === undefined) throw new Error("pack: the runtime entry was not compiled (loaded before the recording?)");
  const packages: Pack["packages"] = {};
  const dirs = new Map<string, string>();
  let text = `exports.entry = ${entry};\nexports.modules = [\n`;
  for (const file of files) {
    const { where, pkg, dir, version } = place(file);
    if (pkg !== undefined) packages[pkg] = version!;
    if (pkg !== undefined) dirs.set(pkg, dir!);
    const requests: Record<string, number> = {};
    for (const [request, to] of Object.entries(resolved.get(file) ?? {})) if (index.has(to)) requests[request] = index.get(to)!;
    const code = packedCode(compiled.get(file)!);
    text += `[${JSON.stringify(where)}, ${fs.statSync(file).size}, ${JSON.stringify(requests)}, function (exports, require, module, __filename, __dirname) {\n${code}\n}],\n`;
  }
  text += `];\nexports.packages = ${JSON.stringify(packages)};\n`;
  const head = `// Generated by src/scripts/pack.ts: the modules a provider host's first Check loads, for src/core/pack.ts. Do not edit.\n`;
  fs.writeFileSync(OUT, head + licenses(dirs) + text);
}

// The runtime's client may keep a handle open: the build waits for this process, not for it.
main().then(() => process.exit(0), (e: unknown) => {
  process.stderr.write(`pack: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
