// Every example is a Pulumi project of its own, its step2 the same project, each type-checks
// under its own tsconfig.json, and the example commands (README, CHANGELOG, docs/) use only
// variables they define.
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { root } from "../support/dist";
import { commandFiles, shellBlocks } from "../support/markdown";

const examples = path.join(root, "examples");
// Folders of examples/ that are not Pulumi programs, and why. Every other folder is one.
const NOT_PROGRAMS: Record<string, string> = {
  receiver: "a plain webhook server, run with node (README: Receiving notifications)",
  policy: "a CrossGuard policy pack (PulumiPolicy.yaml), run beside a program by pulumi preview --policy-pack (docs/policy.md)",
};
const folders = fs.readdirSync(examples, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
const programs = folders.filter((d) => !(d in NOT_PROGRAMS));
const nameOf = (file: string) => /^name:\s*(\S+)/m.exec(fs.readFileSync(file, "utf8"))?.[1];
const registersResources = (dir: string) =>
  fs.readdirSync(dir).filter((f) => f.endsWith(".ts")).some((f) => /new (svc|\w+)\.\w+\(|new svc\.|pulumi\.(Config|export)/.test(fs.readFileSync(path.join(dir, f), "utf8")));

describe("examples", () => {
  it("every folder of examples/ is a program, or listed with the reason it is not", () => {
    expect(programs).toEqual(expect.arrayContaining(["directory", "identity", "keymgmt", "quickstart", "registry", "replication", "runs", "transform"]));
    for (const d of Object.keys(NOT_PROGRAMS)) {
      expect(folders, `${d} is listed as not a program but does not exist`).toContain(d);
      expect(fs.existsSync(path.join(examples, d, "Pulumi.yaml")), `${d} has a Pulumi.yaml: it is a program`).toBe(false);
      expect(registersResources(path.join(examples, d)), `${d} registers resources: it is a program`).toBe(false);
    }
  });

  for (const d of programs) {
    it(`${d} has its own Pulumi.yaml (nodejs, TypeScript, main: index.ts) and tsconfig.json, and its step2 the same project in files of its own`, () => {
      const project = (dir: string) => {
        const yaml = path.join(dir, "Pulumi.yaml");
        expect(fs.existsSync(yaml), `${yaml} exists`).toBe(true);
        expect(fs.readFileSync(yaml, "utf8")).toMatch(/runtime:\s*\n\s+name: nodejs/);
        // Without it, Pulumi's language host runs the repository's package.json main (docs/examples.md).
        expect(fs.readFileSync(yaml, "utf8"), `${yaml} names its program`).toMatch(/^main: index\.ts$/m);
        expect(fs.existsSync(path.join(dir, "index.ts")), `${dir}/index.ts exists`).toBe(true);
        // ts-node's type check follows the package's import of itself only with a rootDir above every source.
        const tsconfig = path.join(dir, "tsconfig.json");
        expect(fs.existsSync(tsconfig), `${tsconfig} exists`).toBe(true);
        const rootDir = /"rootDir":\s*"([^"]+)"/.exec(fs.readFileSync(tsconfig, "utf8"))?.[1];
        expect(rootDir && path.resolve(dir, rootDir), `${tsconfig}'s rootDir`).toBe(examples);
        return yaml;
      };
      const yaml = project(path.join(examples, d));
      const step2 = path.join(examples, d, "step2");
      if (!fs.existsSync(step2)) return;
      // Without it the real CLI run in step2 finds the parent's project and runs the parent's program.
      expect(nameOf(project(step2))).toBe(nameOf(yaml));
    });
  }

  // The CLI suites run the examples without ts-node's type check (test/cli/cli.ts, typeCheck) but
  // for the quickstart's lifecycle: this is the check they leave out, under each folder's own
  // tsconfig.json as ts-node reads it, of index.ts and what it imports against the built package.
  it("every program type-checks under its own tsconfig.json, as the CLI's ts-node checks it, and a wrong one fails", () => {
    const dirs = programs.flatMap((d) => [path.join(examples, d), path.join(examples, d, "step2")]).filter((dir) => fs.existsSync(dir));
    // Every example is a module, so one compilation for the folders whose options are the same sees
    // what a compilation of each alone would.
    const groups = new Map<string, { options: ts.CompilerOptions; files: string[] }>();
    for (const dir of dirs) {
      const parsed = ts.getParsedCommandLineOfConfigFile(path.join(dir, "tsconfig.json"), {}, {
        ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n")); },
      })!;
      expect(parsed.errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")), dir).toEqual([]);
      const { configFilePath: _, ...options } = parsed.options;
      const key = JSON.stringify(options);
      if (!groups.has(key)) groups.set(key, { options: { ...options, noEmit: true }, files: [] });
      groups.get(key)!.files.push(path.join(dir, "index.ts"));
    }
    // Not vacuous: a wrong program beside the quickstart, seen by the compiler only, is reported.
    const planted = path.join(examples, "quickstart", "planted.ts");
    const problems = (options: ts.CompilerOptions, files: string[]) => {
      const host = ts.createCompilerHost(options);
      const [read, exists] = [host.readFile.bind(host), host.fileExists.bind(host)];
      host.readFile = (file) => (file === planted ? 'export const planted: number = "text";\n' : read(file));
      host.fileExists = (file) => file === planted || exists(file);
      return ts.getPreEmitDiagnostics(ts.createProgram(files, options, host)).map((d) => {
        const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
        return d.file ? `${path.relative(root, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ${text}` : text;
      });
    };
    expect(dirs.length).toBeGreaterThan(programs.length);
    for (const { options, files } of groups.values()) {
      const withPlanted = files.includes(path.join(examples, "quickstart", "index.ts"));
      expect(problems(options, withPlanted ? [...files, planted] : files), files.map((f) => path.relative(root, f)).join(", "))
        .toEqual(withPlanted ? ["examples/quickstart/planted.ts:1: Type 'string' is not assignable to type 'number'."] : []);
    }
  }, 120_000);

  it("the example commands of the README, the CHANGELOG and docs/ use no undefined shell variable", () => {
    // What the emulator prints (with --clusters 2 also the second cluster's, suffixed _1), what the
    // reader is told to provide, and the shell's own.
    const defined = new Set(["HOME", "PWD", "SVC_RUN_URL", "SVC_RUN_TOKEN", "SVC_SECRETS_URL", "SVC_SECRETS_TOKEN",
      "SVC_SECRETS_URL_1", "SVC_SECRETS_TOKEN_1", "SVC_EMULATOR_CONTROL_TOKEN", "RUN_TOKEN", "SECRETS_TOKEN", "PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "PATH"]);
    const undefinedVars: string[] = [];
    for (const file of commandFiles()) {
      const text = fs.readFileSync(path.join(root, file), "utf8");
      // A variable a shell block of the same page exports is defined there.
      const exported = new Set(shellBlocks(file).flatMap((b) => b.commands.flatMap((c) => [...c.text.matchAll(/(?:^export\s+|\s)([A-Z][A-Z0-9_]*)=/g)].map((m) => m[1]!))));
      for (const m of text.matchAll(/\$\{?([A-Z][A-Z0-9_]*)/g)) {
        if (!defined.has(m[1]!) && !exported.has(m[1]!)) undefinedVars.push(`${file}: $${m[1]}`);
      }
    }
    expect(undefinedVars).toEqual([]);
  });
});
