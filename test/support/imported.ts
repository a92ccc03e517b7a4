// What a user does with the program pulumi-svc-import wrote: fills its config, and compiles it as
// `pulumi new typescript` would (strict), before running it.
import * as path from "node:path";
import ts from "typescript";
import { shellWord } from "../../src/core/text";
import { KIND_CASES, type Seeded } from "./kindCases";

/** The stack config the written program asks for, with the values the seeded objects were made with. */
export function importedConfig(seeded: Seeded): Record<string, string> {
  return Object.assign({}, ...KIND_CASES.map((c) => c.config?.(seeded) ?? {})) as Record<string, string>;
}

/** Type errors of a program file under the compiler options of `pulumi new typescript`. */
export function typeErrors(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true, outDir: path.join(path.dirname(file), "bin"), target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10, sourceMap: true, experimentalDecorators: true, forceConsistentCasingInFileNames: true,
    noEmit: true, skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

/**
 * pulumi-config.sh as a user fills it in: each line whose key has a value gets it in place of the
 * placeholder (uncommented where the line was optional); every other line stays as written.
 */
export function fillConfigScript(text: string, values: Record<string, string>): string {
  return text.split("\n").map((line) => {
    const m = /^(?:# )?pulumi config set (--secret|--plaintext) (\S+) '[^']*'$/.exec(line);
    const value = m ? values[m[2]!] : undefined;
    return value === undefined ? line : `pulumi config set ${m![1]} ${m![2]} ${shellWord(value)}`;
  }).join("\n");
}
