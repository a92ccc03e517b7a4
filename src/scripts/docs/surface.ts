/**
 * The reference generator's reading of the build: the public surface from the built declarations
 * (every export through the `export * as` namespaces, resource classes and function forms) beside
 * the runtime definitions each one registers, and the typed errors with the statuses that raise them.
 */
import * as path from "node:path";
import * as ts from "typescript";
import * as pulumi from "@pulumi/pulumi";
import type { ResourceDefinition } from "../../core/definition";
import type { FunctionDefinition } from "../../core/fn";
import type { Service } from "../../http";
import { kindModules } from "./kinds";
import { docOf } from "./markdown";

export type FnDef = FunctionDefinition<unknown, unknown, Service>;

export interface ResourceEntry {
  /** `secrets.transform.Template` */
  name: string;
  area: string;
  symbol: ts.Symbol;
  def: ResourceDefinition;
}

export interface FunctionForm {
  name: string;
  symbol: ts.Symbol;
  def?: FnDef;
  /** Whether the form returns a secret Output. */
  secret?: boolean;
}

export interface FunctionGroup {
  /** The name users know it by: the Promise form's. */
  name: string;
  area: string;
  forms: FunctionForm[];
}

export interface Surface {
  checker: ts.TypeChecker;
  resources: ResourceEntry[];
  groups: FunctionGroup[];
  /** Every export by its qualified name (`secrets.connection`, `SvcError`). */
  all: Map<string, ts.Symbol>;
  /** The doc at the top of an area's module (`secrets.replication` → its index.d.ts), where it has one. */
  areaDocs: Map<string, AreaDoc>;
}

export interface AreaDoc {
  text: string;
  examples: string[];
}

export function resolve(checker: ts.TypeChecker, s: ts.Symbol): ts.Symbol {
  return s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
}

/** The exports of a module in declaration order, through the `export * as` namespaces. */
export function walk(checker: ts.TypeChecker, moduleSymbol: ts.Symbol, prefix: string, out: Map<string, ts.Symbol>, modules: Map<string, ts.Symbol>): void {
  for (const e of checker.getExportsOfModule(moduleSymbol)) {
    const s = resolve(checker, e);
    if (s.flags & ts.SymbolFlags.Module) {
      modules.set(`${prefix}${e.name}`, s);
      walk(checker, s, `${prefix}${e.name}.`, out, modules);
    } else out.set(`${prefix}${e.name}`, s);
  }
}

/**
 * The `/** ... *\/` comment that opens a module's declaration file: an area's notes that belong to
 * no one class (the replication transitions, the transform engine's reserved names).
 */
export function moduleDoc(module: ts.Symbol): AreaDoc | undefined {
  const file = module.declarations?.find(ts.isSourceFile);
  if (!file) return undefined;
  const text = file.getFullText();
  const range = ts.getLeadingCommentRanges(text, 0)?.find((r) => text.startsWith("/**", r.pos));
  if (!range) return undefined;
  const lines = text.slice(range.pos + 3, range.end - 2).split("\n").map((l) => l.replace(/^\s*\* ?/, "").replace(/\s+$/, ""));
  const sections = lines.join("\n").split(/^(?=@\w+)/m);
  const examples = sections.filter((x) => x.startsWith("@example")).map((x) => x.slice("@example".length).trim());
  return { text: sections[0]!.trim(), examples };
}

export function isResourceClass(checker: ts.TypeChecker, s: ts.Symbol): boolean {
  if (!(s.flags & ts.SymbolFlags.Class)) return false;
  return checker.getBaseTypes(checker.getDeclaredTypeOfSymbol(s) as ts.InterfaceType).some((b) => b.getSymbol()?.getName() === "SvcResource");
}

export function isFunction(checker: ts.TypeChecker, s: ts.Symbol): boolean {
  if (s.flags & ts.SymbolFlags.Function) return true;
  return (s.flags & ts.SymbolFlags.Variable) !== 0 && checker.getTypeOfSymbol(s).getCallSignatures().length > 0;
}

export const areaOf = (qualified: string) => qualified.split(".").slice(0, -1).join(".");
export const leafOf = (qualified: string) => qualified.split(".").pop()!;

/** The runtime value at a qualified name of the built package. */
export function valueAt(pkg: Record<string, unknown>, qualified: string): unknown {
  return qualified.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], pkg);
}

/**
 * The definition a resource class registers: the module that declares the class exports it. Found
 * by identity with the definitions the kinds table loads, so no naming rule links class and kind.
 */
export function definitionOfClass(s: ts.Symbol, defs: Map<unknown, ResourceDefinition>): ResourceDefinition {
  const file = s.declarations![0]!.getSourceFile().fileName.replace(/\.d\.ts$/, ".js");
  const mod = require(file) as Record<string, unknown>;
  const found = [...new Set(Object.values(mod).filter((v) => defs.has(v)))] as ResourceDefinition[];
  if (found.length !== 1) throw new Error(`${s.name}: expected one kind definition in ${file}, found ${found.length}`);
  return found[0]!;
}

/**
 * The definition behind a public function, found by calling it with the invoke functions swapped
 * for recorders (compiled modules call `fn_1.invoke(...)` at call time), so nothing is sent. The
 * Output form's recorder answers a plain Output, which a secret form wraps in pulumi.secret.
 */
export async function definitionOfFunction(fnModule: Record<string, unknown>, f: (...a: unknown[]) => unknown): Promise<{ def?: FnDef; secret?: boolean }> {
  const saved = { invoke: fnModule.invoke, invokeOutput: fnModule.invokeOutput };
  let def: FnDef | undefined;
  fnModule.invoke = (d: FnDef) => ((def = d), Promise.resolve(undefined));
  fnModule.invokeOutput = (d: FnDef) => ((def = d), pulumi.output(undefined));
  try {
    const r = f({}) as unknown;
    if (pulumi.Output.isInstance(r)) return { def, secret: def ? await (r as unknown as { isSecret: Promise<boolean> }).isSecret : undefined };
    if (r && typeof (r as Promise<unknown>).then === "function") await (r as Promise<unknown>).catch(() => undefined);
  } catch {
    // Local helpers (signature checks, parsers) may refuse `{}`: they have no definition.
  } finally {
    Object.assign(fnModule, saved);
  }
  return { def };
}

/** `fooOutput`, `fooAll`, `fooIterator` are forms of `foo` when `foo` is exported beside them. */
export function baseName(name: string, names: Set<string>, area: string): string {
  for (const suffix of ["Output", "All", "Iterator"]) {
    if (name.endsWith(suffix) && names.has(`${area}.${name.slice(0, -suffix.length)}`)) return name.slice(0, -suffix.length);
  }
  return name;
}

export async function surface(root: string): Promise<Surface> {
  const dist = path.join(root, "dist");
  const index = path.join(dist, "src/index.d.ts");
  const program = ts.createProgram([index], {
    strict: true, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022, types: ["node"], esModuleInterop: true, skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const all = new Map<string, ts.Symbol>();
  const modules = new Map<string, ts.Symbol>();
  walk(checker, checker.getSymbolAtLocation(program.getSourceFile(index)!)!, "", all, modules);
  const areaDocs = new Map<string, AreaDoc>();
  for (const [area, m] of modules) {
    const doc = moduleDoc(m);
    if (doc) areaDocs.set(area, doc);
  }

  const defs = new Map<unknown, ResourceDefinition>(kindModules(dist).map((k) => [k.def, k.def]));
  const pkg = require(path.join(dist, "src/index.js")) as Record<string, unknown>;
  const fnModule = require(path.join(dist, "src/core/fn.js")) as Record<string, unknown>;

  const resources: ResourceEntry[] = [];
  const groups = new Map<string, FunctionGroup>();
  const names = new Set(all.keys());
  for (const [name, s] of all) {
    if (isResourceClass(checker, s)) {
      resources.push({ name, area: areaOf(name), symbol: s, def: definitionOfClass(s, defs) });
    } else if (isFunction(checker, s)) {
      const area = areaOf(name);
      const base = baseName(leafOf(name), names, area);
      const key = `${area}.${base}`;
      const group = groups.get(key) ?? { name: base, area, forms: [] };
      groups.set(key, group);
      const value = valueAt(pkg, name);
      const found = typeof value === "function" ? await definitionOfFunction(fnModule, value as (...a: unknown[]) => unknown) : {};
      group.forms.push({ name: leafOf(name), symbol: s, ...found });
    }
  }
  return { checker, resources, groups: [...groups.values()], all, areaDocs };
}

export function ownDeclaration(s: ts.Symbol, dist: string): boolean {
  return (s.declarations ?? []).some((d) => d.getSourceFile().fileName.startsWith(path.join(dist, "src")));
}

export function isErrorClass(checker: ts.TypeChecker, name: string, sym: ts.Symbol): boolean {
  if (!(sym.flags & ts.SymbolFlags.Class) || isResourceClass(checker, sym)) return false;
  const base = checker.getBaseTypes(checker.getDeclaredTypeOfSymbol(sym) as ts.InterfaceType).map((b) => b.getSymbol()?.getName());
  return name === "SvcError" || base.includes("SvcError") || base.includes("Error");
}


export interface ErrorClass {
  name: string;
  code?: string;
  statuses: number[];
  /** The statuses in words: ranges, or "every other" for the class that takes what no other does. */
  statusText: string;
  doc: string;
  /** A SvcError (raised for a service's answer or a local check), not a run-wait or config error. */
  svc: boolean;
}

/** The typed errors with their codes and the HTTP statuses that raise each one, from the build. */
export function errorClasses(dist: string, s: Surface): ErrorClass[] {
  const http = require(path.join(dist, "src/http/index.js")) as typeof import("../../http");
  const statuses = new Map<string, number[]>();
  for (let status = 400; status < 600; status++) {
    const e = http.errorForStatus(status, {});
    statuses.set(e.name, [...(statuses.get(e.name) ?? []), status]);
  }
  const out: ErrorClass[] = [];
  for (const [name, sym] of s.all) {
    if (!isErrorClass(s.checker, name, sym)) continue;
    const base = s.checker.getBaseTypes(s.checker.getDeclaredTypeOfSymbol(sym) as ts.InterfaceType).map((b) => b.getSymbol()?.getName());
    const Ctor = valueAt(require(path.join(dist, "src/index.js")) as Record<string, unknown>, name) as { prototype: object };
    const code = name === "SvcError" ? undefined : codeOf(Ctor, http);
    out.push({ name, code, statuses: statuses.get(leafOf(name)) ?? [], statusText: "", doc: docOf(s.checker, sym, () => undefined), svc: name === "SvcError" || base.includes("SvcError") });
  }
  // The service's errors first, in their declaration order; then the others.
  out.sort((a, b) => Number(b.svc) - Number(a.svc));
  const most = Math.max(...out.map((e) => e.statuses.length));
  for (const e of out) e.statusText = e.statuses.length === most ? "every other 4xx and 5xx" : statusRanges(e.statuses);
  return out;
}

/** The `code` an error class sets, from an instance made with empty details. */
export function codeOf(Ctor: { prototype: object }, http: typeof import("../../http")): string | undefined {
  try {
    const e = new (Ctor as unknown as new (a: unknown, b?: unknown) => { code?: unknown })({ causeCode: "", causeMessage: "" });
    return http.isSvcError(e) || typeof e.code === "string" ? String(e.code) : undefined;
  } catch {
    return undefined;
  }
}

/** `1xx`-style ranges of consecutive statuses: 500–599 rather than a hundred numbers. */
export function statusRanges(list: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < list.length; i++) {
    let j = i;
    while (j + 1 < list.length && list[j + 1] === list[j]! + 1) j++;
    parts.push(j - i >= 2 ? `${list[i]}–${list[j]}` : list.slice(i, j + 1).join(", "));
    i = j;
  }
  return parts.join(", ");
}
