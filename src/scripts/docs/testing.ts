/**
 * The page of `pulumi-svc/testing` (testing.md), from its declarations: each function with its
 * signature, each class and each interface with its members, in the order of the entry.
 */
import * as path from "node:path";
import * as ts from "typescript";
import { cell, code, docOf, FLAGS, typeText, type Linker } from "./markdown";
import { anchor, callText, HEADER } from "./pages";
import { ownDeclaration, resolve } from "./surface";

export function testingPageText(dist: string): string {
  const entry = path.join(dist, "src/testing/index.d.ts");
  const program = ts.createProgram([entry], {
    strict: true, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022, types: ["node"], esModuleInterop: true, skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const link: Linker = (name) => `#${anchor(name)}`;
  const lines = [HEADER.trimEnd(), "", "# pulumi-svc/testing", "",
    "`import { testStack } from \"pulumi-svc/testing\"`: a program deployed from a vitest or jest test against an emulator, " +
    "with no CLI and no server. How to use it: [Testing your program](../testing.md).", ""];
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  for (const exported of checker.getExportsOfModule(module)) {
    const s = resolve(checker, exported);
    // Types re-exported from the emulator are documented with it (../emulator.md).
    if (!ownDeclaration(s, dist) || !(s.declarations ?? []).some((d) => d.getSourceFile().fileName.startsWith(path.join(dist, "src/testing")))) continue;
    const type = checker.getTypeOfSymbol(s);
    if (s.flags & ts.SymbolFlags.Function) {
      const sig = type.getCallSignatures()[0]!;
      lines.push(`## ${exported.name}`, "", `\`${callText(exported.name, sig)}: ${checker.typeToString(sig.getReturnType(), undefined, FLAGS)}\``, "", docOf(checker, s, link), "");
      continue;
    }
    lines.push(`## ${exported.name}`, "");
    const doc = docOf(checker, s, link);
    if (doc) lines.push(doc, "");
    if (s.flags & ts.SymbolFlags.TypeAlias) {
      lines.push(code(typeText(checker, checker.getDeclaredTypeOfSymbol(s))), "");
      continue;
    }
    const members = checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(s)).filter((m) => (m.declarations ?? []).some((d) => d.getSourceFile().fileName.startsWith(path.join(dist, "src/testing"))));
    if (members.length === 0) continue;
    lines.push("| member | type | description |", "|---|---|---|");
    for (const m of members) {
      const t = checker.getTypeOfSymbol(m);
      const sig = t.getCallSignatures()[0];
      const shown = sig ? `${callText(m.name, sig)}: ${checker.typeToString(sig.getReturnType(), undefined, FLAGS)}` : `${m.name}${m.flags & ts.SymbolFlags.Optional ? "?: " : ": "}${typeText(checker, m.flags & ts.SymbolFlags.Optional ? checker.getNonNullableType(t) : t)}`;
      lines.push(`| ${code(m.name)} | ${cell(code(shown))} | ${cell(docOf(checker, m, link))} |`);
    }
    lines.push("");
  }
  return lines.join("\n");
}
