// What a user does with the program pulumi-svc-import wrote: fills its config, and compiles it as
// `pulumi new typescript` would (strict), before running it.
import * as path from "node:path";
import ts from "typescript";
import { WRITE_ONLY, type Seeded } from "./seed-import";

/** The stack config the written program asks for, with the values the seeded objects were made with. */
export function importedConfig(seeded: Seeded): Record<string, string> {
  return {
    ciHookToken: WRITE_ONLY.hookToken,
    awsEastCredentials: JSON.stringify({ access_key: "AKIASEEDED", secret_key: WRITE_ONLY.kmsSecretKey }),
    databaseAcmeDbEnv: JSON.stringify([WRITE_ONLY.pluginEnv]),
    dualFactorMethodSecretKey: WRITE_ONLY.duoSecret,
    dualFactorMethodIntegrationKey: WRITE_ONLY.duoIkey,
    registryAccessConfigToken: seeded.registryToken,
  };
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
