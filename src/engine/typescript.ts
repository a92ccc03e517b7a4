// A TypeScript program (a folder's index.ts) run by the engine double: each .ts file outside
// node_modules is transpiled to CommonJS as it is required, with the `typescript` package the
// program's folder resolves, as the CLI's Node.js host compiles a TypeScript project (it uses
// ts-node; transpiling alone is enough here, since type errors are the compiler's to report).
import * as fs from "node:fs";
import * as path from "node:path";
import type * as ts from "typescript";

export function registerTypeScript(programDir: string): void {
  let compiler: typeof ts;
  try {
    compiler = require(require.resolve("typescript", { paths: [programDir, __dirname] })) as typeof ts;
  } catch {
    throw new Error(`a TypeScript program needs the typescript package: npm install --save-dev typescript (in ${programDir})`);
  }
  const extensions = require.extensions as NodeJS.RequireExtensions;
  extensions[".ts"] = (module, filename) => {
    if (filename.includes(`${path.sep}node_modules${path.sep}`)) throw new Error(`${filename}: a .ts file under node_modules is not compiled`);
    const { outputText } = compiler.transpileModule(fs.readFileSync(filename, "utf8"), {
      fileName: filename,
      compilerOptions: { module: compiler.ModuleKind.CommonJS, target: compiler.ScriptTarget.ES2020, esModuleInterop: true, sourceMap: false },
    });
    (module as NodeJS.Module & { _compile(code: string, file: string): void })._compile(outputText, filename);
  };
}
