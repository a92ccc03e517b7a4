// Every public resource class, output property, argument and function result field has TSDoc,
// found by walking everything src/index.ts exports (so kinds added later are checked too).
import * as path from "node:path";
import * as ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { root } from "../support/dist";

let checker: ts.TypeChecker;
let exported: ts.Symbol[] = [];
/** Every export by its qualified name (`secrets.transform.getRole`). */
let byName = new Map<string, ts.Symbol>();

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
    return f.startsWith(path.join(root, "dist", "src")) && !f.includes("node_modules");
  });
}

/**
 * Properties of a type that are declared in our sources, undocumented ones listed as `Owner.prop`;
 * with `deep`, also those of the object types they hold in turn (batch result items, nested options).
 */
function undocumentedProps(type: ts.Type, owner: string, deep = false, seen = new Set<ts.Type>()): string[] {
  const missing: string[] = [];
  const types = type.isUnion() ? type.types : [type];
  for (const t of types) {
    if (seen.has(t)) continue;
    seen.add(t);
    for (const p of checker.getPropertiesOfType(checker.getApparentType(t))) {
      if (!ours(p) || p.name.startsWith("__")) continue;
      // Named after the declaring type, so a type shared by many functions is reported once.
      const parent = (p as ts.Symbol & { parent?: ts.Symbol }).parent;
      const name = `${parent && !parent.name.startsWith("__") ? parent.name : owner}.${p.name}`;
      if (!documented(p)) missing.push(name);
      const inner = unwrap(checker.getNonNullableType(checker.getTypeOfSymbol(p)));
      if (deep && inner.flags & ts.TypeFlags.Object && !inner.getCallSignatures().length) missing.push(...undocumentedProps(inner, name, deep, seen));
    }
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

/** A function declaration, or an `export const` whose value can be called (`export const getRole = ...`). */
function isFunction(s: ts.Symbol): boolean {
  if (s.flags & ts.SymbolFlags.Function) return true;
  return (s.flags & ts.SymbolFlags.Variable) !== 0 && checker.getTypeOfSymbol(s).getCallSignatures().length > 0;
}

const resources = () => exported.filter(isResourceClass);
const functions = () => exported.filter(isFunction);

beforeAll(() => {
  // The built declarations, as an installed package gives them to users' editors: a doc that only
  // the sources carry (lost in the declaration emit) is a doc users never see.
  const program = ts.createProgram([path.join(root, "dist/src/index.d.ts")], {
    strict: true, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022, types: ["node"], esModuleInterop: true, skipLibCheck: true,
  });
  checker = program.getTypeChecker();
  const index = checker.getSymbolAtLocation(program.getSourceFile(path.join(root, "dist/src/index.d.ts"))!)!;
  const all = new Map<string, ts.Symbol>();
  walk(index, "", all);
  exported = [...new Map([...all.values()].map((s) => [s, s])).values()];
  byName = all;
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

  it("every resource class has get and isInstance, with TSDoc (its static side)", () => {
    const missing: string[] = [];
    for (const s of resources()) {
      const statics = checker.getPropertiesOfType(checker.getTypeOfSymbol(s)).filter((p) => ours(p) && p.name !== "prototype");
      for (const name of ["get", "isInstance"]) if (!statics.some((p) => p.name === name)) missing.push(`${s.name}.${name}: missing`);
      for (const p of statics) if (!documented(p)) missing.push(`${s.name}.${p.name}`);
    }
    expect(missing).toEqual([]);
  });

  it("every argument of every resource class has TSDoc, including connection", () => {
    const missing: string[] = [];
    for (const s of resources()) {
      const ctor = checker.getTypeOfSymbol(s).getConstructSignatures()[0]!;
      const args = ctor.getParameters()[1]!;
      // An optional args parameter (`args?: X` in the declarations) is X | undefined.
      const type = checker.getNonNullableType(checker.getTypeOfSymbol(args));
      if (!checker.getPropertyOfType(type, "connection")) missing.push(`${s.name}: no connection argument`);
      missing.push(...undocumentedProps(type, `${s.name}Args`));
    }
    expect(missing).toEqual([]);
  });

  it("finds the callable export consts too (the transform functions are declared that way)", () => {
    const names = functions().map((s) => s.name);
    for (const n of ["getRole", "getRoleOutput", "encode", "encodeOutput", "restoreTokenizationOutput", "snapshotTokenizationAll"]) expect(names).toContain(n);
  });

  it("every function, its argument fields and its result fields have TSDoc", () => {
    const missing: string[] = [];
    for (const s of functions()) {
      if (!documented(s)) missing.push(`${s.name}()`);
      for (const sig of checker.getTypeOfSymbol(s).getCallSignatures()) {
        // Every parameter: the arguments (whatever the parameter is called) and the options.
        for (const p of sig.getParameters()) missing.push(...undocumentedProps(unwrap(checker.getNonNullableType(checker.getTypeOfSymbol(p))), `${s.name}(${p.name})`));
        missing.push(...undocumentedProps(unwrap(sig.getReturnType()), `${s.name}() result`));
      }
    }
    expect([...new Set(missing)].sort()).toEqual([]);
  });

  it("the transform functions document every field at every depth (batch items, restore arguments)", () => {
    const missing: string[] = [];
    for (const [name, s] of byName) {
      if (!name.startsWith("secrets.transform.") || !isFunction(s)) continue;
      for (const sig of checker.getTypeOfSymbol(s).getCallSignatures()) {
        for (const p of sig.getParameters()) missing.push(...undocumentedProps(unwrap(checker.getNonNullableType(checker.getTypeOfSymbol(p))), `${s.name}(${p.name})`, true));
        missing.push(...undocumentedProps(unwrap(sig.getReturnType()), `${s.name}() result`, true));
      }
    }
    expect([...new Set(missing)].sort()).toEqual([]);
  });

  it("every Output form takes options (dependsOn), like pulumi.InvokeOutputOptions", () => {
    const takesOptions = (sig: ts.Signature) => sig.getParameters().some((p) =>
      checker.getPropertyOfType(checker.getNonNullableType(checker.getTypeOfSymbol(p)), "dependsOn") !== undefined);
    const missing = functions().filter((s) => s.name.endsWith("Output"))
      .filter((s) => checker.getTypeOfSymbol(s).getCallSignatures().some((sig) => !takesOptions(sig)))
      .map((s) => s.name);
    expect(missing).toEqual([]);
  });
});
