// A TypeScript program (a folder's index.ts) run by the engine double: each .ts file outside
// node_modules is transpiled to CommonJS as it is required, with the `typescript` package the
// program's folder resolves, as the CLI's Node.js host compiles a TypeScript project (it uses
// ts-node; transpiling alone is enough here, since type errors are the compiler's to report).
//
// Each operation runs in a process of its own (program.ts), which would load the compiler (a few
// hundred ms) and transpile again: the process that starts them names a folder in COMPILED_ENV
// where each output is kept under a digest of the file's path and text and the compiler's
// version, and the compiler is loaded only for a file not transpiled before.
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import type * as ts from "typescript";

/** The folder of transpiled files that the operations of one process share. */
export const COMPILED_ENV = "PULUMI_SVC_ENGINE_COMPILED";

export function registerTypeScript(programDir: string): void {
  let file: string;
  try {
    file = require.resolve("typescript", { paths: [programDir, __dirname] });
  } catch {
    throw new Error(`a TypeScript program needs the typescript package: npm install --save-dev typescript (in ${programDir})`);
  }
  let compiler: typeof ts | undefined;
  const version = compilerVersion(file);
  const extensions = require.extensions as NodeJS.RequireExtensions;
  extensions[".ts"] = (module, filename) => {
    if (filename.includes(`${path.sep}node_modules${path.sep}`)) throw new Error(`${filename}: a .ts file under node_modules is not compiled`);
    const source = fs.readFileSync(filename, "utf8");
    const output = kept(filename, source, version, () => {
      compiler ??= require(file) as typeof ts;
      return compiler.transpileModule(source, {
        fileName: filename,
        compilerOptions: { module: compiler.ModuleKind.CommonJS, target: compiler.ScriptTarget.ES2020, esModuleInterop: true, sourceMap: false },
      }).outputText;
    });
    (module as NodeJS.Module & { _compile(code: string, file: string): void })._compile(output, filename);
  };
}

/** The compiler's version, from its package.json (read, not loaded with the compiler). */
function compilerVersion(compiler: string): string {
  for (let dir = path.dirname(compiler); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const pkg = path.join(dir, "package.json");
    if (!fs.existsSync(pkg)) continue;
    const json = JSON.parse(fs.readFileSync(pkg, "utf8")) as { name?: string; version?: string };
    if (json.name === "typescript") return json.version ?? "";
  }
  return "";
}

/** The output for this file, text and compiler: kept from an earlier operation, else transpiled (and kept). */
function kept(filename: string, source: string, version: string, transpile: () => string): string {
  const folder = process.env[COMPILED_ENV];
  if (!folder || !fs.existsSync(folder)) return transpile();
  const id = createHash("sha256").update(JSON.stringify([filename, version, source])).digest("hex");
  const out = path.join(folder, `${id}.js`);
  if (fs.existsSync(out)) return fs.readFileSync(out, "utf8");
  const text = transpile();
  // Written whole, then renamed: an operation running at the same time reads all of it or none.
  const tmp = `${out}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, out);
  return text;
}
