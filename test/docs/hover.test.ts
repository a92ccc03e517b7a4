// What a user sees on hover: a program written against the built declarations (dist/src/*.d.ts, as
// installed) names every argument and every output of every resource class, and the TypeScript
// language service's quick info at each name must carry the field's doc. The Args and output
// members are mapped types over the field records (src/core/fields.ts): this proves the docs survive
// the mapping and the declaration emit.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../support/dist";

const OPTIONS: ts.CompilerOptions = {
  strict: true, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10, target: ts.ScriptTarget.ES2022,
  types: ["node"], typeRoots: [path.join(root, "node_modules/@types")], skipLibCheck: true,
  baseUrl: root, paths: { "pulumi-svc": [path.join(root, "dist/src/index.d.ts")] },
};

let dir: string;
let file: string;
let service: ts.LanguageService;
/** Every hover position: `Class.member (argument|output)` → offset in the program. */
const positions = new Map<string, number>();

/** The exported resource classes, as `svc.secrets.transform.Template`, read from the built declarations. */
function resourceClasses(): { name: string; args: string[]; outputs: string[] }[] {
  const program = ts.createProgram([path.join(root, "dist/src/index.d.ts")], OPTIONS);
  const checker = program.getTypeChecker();
  const out: { name: string; args: string[]; outputs: string[] }[] = [];
  const walk = (symbol: ts.Symbol, prefix: string) => {
    for (const e of checker.getExportsOfModule(symbol)) {
      const s = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
      if (s.flags & ts.SymbolFlags.Module) walk(s, `${prefix}${e.name}.`);
      else if (s.flags & ts.SymbolFlags.Class) {
        const instance = checker.getDeclaredTypeOfSymbol(s);
        if (!checker.getBaseTypes(instance as ts.InterfaceType).some((b) => b.getSymbol()?.getName() === "SvcResource")) continue;
        const ctor = checker.getTypeOfSymbol(s).getConstructSignatures()[0]!;
        const args = checker.getTypeOfSymbol(ctor.getParameters()[1]!);
        const own = (p: ts.Symbol) => (p.declarations ?? []).some((d) => d.getSourceFile().fileName.includes(`${path.sep}dist${path.sep}src${path.sep}`));
        out.push({
          name: `${prefix}${e.name}`,
          args: checker.getPropertiesOfType(checker.getApparentType(args)).filter(own).map((p) => p.name),
          outputs: checker.getPropertiesOfType(instance).filter(own).map((p) => p.name),
        });
      }
    }
  };
  walk(checker.getSymbolAtLocation(program.getSourceFile(path.join(root, "dist/src/index.d.ts"))!)!, "svc.");
  return out;
}

beforeAll(() => {
  const classes = resourceClasses();
  let text = 'import * as svc from "pulumi-svc";\n';
  classes.forEach((c, i) => {
    text += `declare const args${i}: ConstructorParameters<typeof ${c.name}>[1];\n`;
    for (const a of c.args) {
      text += `args${i}.`;
      positions.set(`${c.name}.${a} (argument)`, text.length);
      text += `${a};\n`;
    }
    // The static side every class has: get and isInstance, like every Pulumi provider's classes.
    for (const m of ["get", "isInstance"]) {
      text += `${c.name}.`;
      positions.set(`${c.name}.${m} (static)`, text.length);
      text += `${m};\n`;
    }
    text += `declare const r${i}: ${c.name};\n`;
    for (const o of c.outputs) {
      text += `r${i}.`;
      positions.set(`${c.name}.${o} (output)`, text.length);
      text += `${o};\n`;
    }
  });
  text += "svc.secrets.keymgmt.Key.";
  positions.set("Key.get call", text.length);
  text += 'get("signing", "keymgmt/key/signing");\n';
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-hover-"));
  file = path.join(dir, "program.ts");
  fs.writeFileSync(file, text);
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => [file],
    getScriptVersion: () => "1",
    getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, "utf8")) : undefined),
    getCurrentDirectory: () => root,
    getCompilationSettings: () => OPTIONS,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  service = ts.createLanguageService(host, ts.createDocumentRegistry());
}, 120_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("hover over the built declarations", () => {
  it("the program compiles against dist/src/*.d.ts and names every argument and output", () => {
    expect(positions.size).toBeGreaterThan(150);
    const errors = service.getSemanticDiagnostics(file).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(errors).toEqual([]);
  });

  it("every argument, output and static member of every resource class shows its doc on hover", () => {
    const missing: string[] = [];
    for (const [name, pos] of positions) {
      const info = service.getQuickInfoAtPosition(file, pos);
      const doc = ts.displayPartsToString(info?.documentation ?? []).trim();
      if (doc === "") missing.push(name);
    }
    expect(missing).toEqual([]);
  });

  it("get and isInstance show their docs on every class", () => {
    const doc = (name: string) => ts.displayPartsToString(service.getQuickInfoAtPosition(file, positions.get(name)!)?.documentation ?? []);
    expect(doc("svc.secrets.keymgmt.Key.get (static)")).toMatch(/without managing it/);
    expect(doc("svc.runs.NotificationConfiguration.isInstance (static)")).toMatch(/is a resource of this class/);
    // At a call the signature says what get returns and takes: the class itself, and its arguments as the state.
    const display = ts.displayPartsToString(service.getQuickInfoAtPosition(file, positions.get("Key.get call")!)?.displayParts ?? []);
    expect(display).toContain("state?: Partial<svc.secrets.keymgmt.KeyArgs>");
    expect(display).toMatch(/\): svc\.secrets\.keymgmt\.Key$/);
  });

  it("the hover shows the field's own doc (Template.pattern, Key.deletionAllowed)", () => {
    const doc = (name: string) => ts.displayPartsToString(service.getQuickInfoAtPosition(file, positions.get(name)!)?.documentation ?? []);
    expect(doc("svc.secrets.transform.Template.pattern (argument)")).toMatch(/at least one capture\s+group/);
    expect(doc("svc.secrets.transform.Template.pattern (output)")).toMatch(/at least one capture\s+group/);
    expect(doc("svc.secrets.keymgmt.Key.deletionAllowed (argument)")).toMatch(/may be deleted/);
  });
});
