// Every public resource class, output property, argument and function result field has TSDoc,
// found by walking everything src/index.ts exports (so kinds added later are checked too).
import * as path from "node:path";
import * as ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { root } from "../support/dist";

let checker: ts.TypeChecker;
let exported: ts.Symbol[] = [];

function resolve(s: ts.Symbol): ts.Symbol {
  return s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
}

/** Every exported symbol, through the `export * as runs` / `secrets.transform` namespaces. */
function walk(moduleSymbol: ts.Symbol, prefix: string, out: Map<string, ts.Symbol>): void {
  for (const e of checker.getExportsOfModule(moduleSymbol)) {
    const s = resolve(e);
    const name = `${prefix}${e.name}`;
    if (s.flags & ts.SymbolFlags.Module) walk(s, `${name}.`, out);
    else out.set(name, s);
  }
}

function documented(s: ts.Symbol): boolean {
  return ts.displayPartsToString(s.getDocumentationComment(checker)).trim().length > 0;
}

function ours(s: ts.Symbol): boolean {
  return (s.declarations ?? []).some((d) => {
    const f = d.getSourceFile().fileName;
    return f.startsWith(path.join(root, "src")) && !f.includes("node_modules");
  });
}

/** Properties of a type that are declared in our sources, undocumented ones listed as `Owner.prop`. */
function undocumentedProps(type: ts.Type, owner: string): string[] {
  const missing: string[] = [];
  for (const p of checker.getPropertiesOfType(checker.getApparentType(type))) {
    if (!ours(p) || p.name.startsWith("__")) continue;
    // Named after the declaring type, so a type shared by many functions is reported once.
    const parent = (p as ts.Symbol & { parent?: ts.Symbol }).parent;
    if (!documented(p)) missing.push(`${parent && !parent.name.startsWith("__") ? parent.name : owner}.${p.name}`);
  }
  return missing;
}

/** Promise<T> / Output<T> / AsyncGenerator<T> → T; arrays → their element. */
function unwrap(type: ts.Type): ts.Type {
  const args = checker.getTypeArguments(type as ts.TypeReference);
  const symbolName = type.getSymbol()?.getName() ?? type.aliasSymbol?.getName();
  if (symbolName && ["Promise", "Output", "OutputInstance", "AsyncGenerator", "Array", "ReadonlyArray"].includes(symbolName)) {
    const inner = args?.[0] ?? type.aliasTypeArguments?.[0];
    if (inner) return unwrap(inner);
  }
  if (checker.isArrayType(type)) return unwrap(checker.getTypeArguments(type as ts.TypeReference)[0]!);
  return type;
}

function isResourceClass(s: ts.Symbol): boolean {
  if (!(s.flags & ts.SymbolFlags.Class)) return false;
  const type = checker.getDeclaredTypeOfSymbol(s);
  return checker.getBaseTypes(type as ts.InterfaceType).some((b) => b.getSymbol()?.getName() === "SvcResource");
}

const resources = () => exported.filter(isResourceClass);
const functions = () => exported.filter((s) => s.flags & ts.SymbolFlags.Function);

beforeAll(() => {
  const program = ts.createProgram([path.join(root, "src/index.ts")], {
    strict: true, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022, types: ["node"], esModuleInterop: true, skipLibCheck: true,
  });
  checker = program.getTypeChecker();
  const index = checker.getSymbolAtLocation(program.getSourceFile(path.join(root, "src/index.ts"))!)!;
  const all = new Map<string, ts.Symbol>();
  walk(index, "", all);
  exported = [...new Map([...all.values()].map((s) => [s, s])).values()];
}, 120_000);

describe("TSDoc of the public surface", () => {
  it("finds the resource classes and functions to check", () => {
    expect(resources().length).toBeGreaterThanOrEqual(10);
    expect(functions().length).toBeGreaterThanOrEqual(20);
  });

  it("every resource class has TSDoc with an @example", () => {
    const missing = resources().filter((s) => !documented(s) || !s.getJsDocTags(checker).some((t) => t.name === "example"));
    expect(missing.map((s) => s.name)).toEqual([]);
  });

  it("every public output property of every resource class has TSDoc", () => {
    const missing = resources().flatMap((s) => undocumentedProps(checker.getDeclaredTypeOfSymbol(s), s.name));
    expect(missing).toEqual([]);
  });

  it("every argument of every resource class has TSDoc, including connection", () => {
    const missing: string[] = [];
    for (const s of resources()) {
      const ctor = checker.getTypeOfSymbol(s).getConstructSignatures()[0]!;
      const args = ctor.getParameters()[1]!;
      const type = checker.getTypeOfSymbol(args);
      if (!checker.getPropertyOfType(type, "connection")) missing.push(`${s.name}: no connection argument`);
      missing.push(...undocumentedProps(type, `${s.name}Args`));
    }
    expect(missing).toEqual([]);
  });

  it("every function, its argument fields and its result fields have TSDoc", () => {
    const missing: string[] = [];
    for (const s of functions()) {
      if (!documented(s)) missing.push(`${s.name}()`);
      for (const sig of checker.getTypeOfSymbol(s).getCallSignatures()) {
        const first = sig.getParameters()[0];
        if (first && first.name === "args") missing.push(...undocumentedProps(unwrap(checker.getTypeOfSymbol(first)), `${s.name}(args)`));
        missing.push(...undocumentedProps(unwrap(sig.getReturnType()), `${s.name}() result`));
      }
    }
    expect([...new Set(missing)]).toEqual([]);
  });
});
