// What users install: the tarball's file list, and a program compiled against the packed package
// under Pulumi's template tsconfig, today's and the one before (no skipLibCheck, no esModuleInterop),
// and the other module resolutions, with this repository's TypeScript (test/package/typescript.test.ts
// takes the releases since). Needs a build (npm test builds first).
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../support/dist";
import { localLinks, manualFiles } from "../support/markdown";
import { compileOutput, fixtureProject, MODERN_RESOLUTIONS, npm, OLD_PULUMI_TEMPLATE, PULUMI_TEMPLATE } from "./tarball";

const tsc = path.join(root, "node_modules/typescript/bin/tsc");
let dir: string;
let project: string;

/** The tarball's files, from one `npm pack --dry-run` for the file. */
let listed: string[] | undefined;
function packList(): string[] {
  if (listed) return listed;
  const out = execFileSync(npm, ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return (listed = (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path));
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pack-"));
  project = fixtureProject(dir);
}, 120_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the npm tarball", () => {
  it("carries the compiled package, both commands, README and LICENSE, and no tests, benchmarks or sources", () => {
    const files = packList();
    for (const f of ["LICENSE", "README.md", "package.json", "dist/src/index.js", "dist/src/index.d.ts",
      "dist/src/runtime.js", "dist/src/core/runtime.js", "dist/src/emulator/cli.js", "dist/src/engine/cli.js", "dist/examples/quickstart/index.js"]) {
      expect(files, f).toContain(f);
    }
    const unwanted = files.filter((f) => /^(test|bench|src|dist\/test|dist\/bench)\//.test(f) || f.endsWith(".map") || f.endsWith(".test.js"));
    expect(unwanted).toEqual([]);
    expect(fs.readFileSync(path.join(root, "LICENSE"), "utf8")).toMatch(/Apache License\s+Version 2\.0/);
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { license: string; bin: Record<string, string> };
    expect(pkg.license).toBe("Apache-2.0");
    for (const bin of Object.values(pkg.bin)) {
      expect(files).toContain(bin);
      expect(fs.readFileSync(path.join(root, bin), "utf8").startsWith("#!/usr/bin/env node"), bin).toBe(true);
    }
  });

  it("carries the manual, and every link of the README and docs/ reaches a file in the tarball", () => {
    const files = new Set(packList());
    for (const f of manualFiles()) expect(files, f).toContain(f);
    // Contributor pages may point into the repository's sources, which users do not install.
    const repositoryOnly = /^(src|test|scripts|bench|\.ci)\//;
    const missing = manualFiles().flatMap((f) => localLinks(f).map((l) => ({ from: f, ...l })))
      .filter((l) => !repositoryOnly.test(l.target) && !files.has(l.target) && ![...files].some((x) => x.startsWith(`${l.target}/`)))
      .map((l) => `${l.from}: ${l.target}`);
    expect(missing).toEqual([]);
  });

  const template = "Pulumi's TypeScript template (nodenext, no skipLibCheck, no esModuleInterop)";
  const configs: Record<string, Record<string, unknown>> = {
    [template]: PULUMI_TEMPLATE,
    "Pulumi's template before March 2026 (commonjs, moduleResolution node)": OLD_PULUMI_TEMPLATE,
    ...MODERN_RESOLUTIONS,
  };
  for (const [name, compilerOptions] of Object.entries(configs)) {
    it(`compiles a program against the packed package under ${name}`, () => {
      // The template's compile also writes bin/, which the next test runs.
      expect(compileOutput(tsc, project, name, compilerOptions, name === template)).toBe("");
    }, 120_000);
  }

  it("runs the program compiled under Pulumi's template through the package's pulumi-svc-engine command (preview)", () => {
    expect(fs.existsSync(path.join(project, "bin/index.js")), "the template's compile above wrote bin/index.js").toBe(true);
    const pkg = JSON.parse(fs.readFileSync(path.join(project, "node_modules/pulumi-svc/package.json"), "utf8")) as { bin: Record<string, string> };
    const engine = path.join(project, "node_modules/pulumi-svc", pkg.bin["pulumi-svc-engine"]!);
    const env: Record<string, string | undefined> = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith("SVC_")) delete env[k];
    const args = ["preview", "--program", "bin/index.js", "--state", path.join(dir, "stack.json"), "--project", "fixture",
      "--stack", "dev", "--cwd", project, "--json",
      "--config", "svc:secretsUrl=http://127.0.0.1:9/v1", "--secret-config", "svc:secretsToken=t0ken-for-preview",
      "--config", "svc:runUrl=http://127.0.0.1:9/api/v2", "--secret-config", "svc:runToken=t0ken-for-preview",
      "--secret-config", "fixture:drToken=dr-t0ken-for-preview"];
    const out = execFileSync(process.execPath, [engine, ...args], { cwd: project, encoding: "utf8", env, timeout: 120_000 });
    const result = JSON.parse(out) as { error?: string; steps: { name: string; op: string }[]; outputs: Record<string, unknown> };
    expect(result.error).toBeUndefined();
    expect(Object.fromEntries(result.steps.map((st) => [st.name, st.op]))).toEqual({ digits: "create", signing: "create", deploy: "create" });
  }, 180_000);
});
