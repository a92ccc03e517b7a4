// Every example is a Pulumi project of its own, its step2 the same project, and the README's
// example commands use only variables it defines.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../support/dist";

const examples = path.join(root, "examples");
const programs = fs.readdirSync(examples).filter((d) => {
  const dir = path.join(examples, d);
  // A Pulumi program uses the package or the SDK in index.ts, or in the shared.ts its steps import;
  // the receiver example (whose index.ts imports only its server) is a plain server.
  const text = ["index.ts", "shared.ts"].filter((f) => fs.existsSync(path.join(dir, f))).map((f) => fs.readFileSync(path.join(dir, f), "utf8")).join("\n");
  return fs.existsSync(path.join(dir, "index.ts")) && /from "(pulumi-svc|@pulumi\/pulumi)"/.test(text);
});
const nameOf = (file: string) => /^name:\s*(\S+)/m.exec(fs.readFileSync(file, "utf8"))?.[1];

describe("examples", () => {
  it("finds the example programs", () => {
    expect(programs).toEqual(expect.arrayContaining(["directory", "keymgmt", "quickstart", "registry", "replication", "runs", "transform"]));
    expect(programs).not.toContain("receiver");
  });

  for (const d of programs) {
    it(`${d} has its own Pulumi.yaml (nodejs, TypeScript), and its step2 the same project name`, () => {
      const yaml = path.join(examples, d, "Pulumi.yaml");
      expect(fs.existsSync(yaml)).toBe(true);
      expect(fs.readFileSync(yaml, "utf8")).toMatch(/runtime:\s*\n\s+name: nodejs/);
      const step2 = path.join(examples, d, "step2");
      if (fs.existsSync(step2)) {
        expect(fs.existsSync(path.join(step2, "Pulumi.yaml")), `${d}/step2/Pulumi.yaml`).toBe(true);
        expect(nameOf(path.join(step2, "Pulumi.yaml"))).toBe(nameOf(yaml));
      }
    });
  }

  it("the README's example commands use no undefined shell variable", () => {
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
    const defined = new Set(["HOME", "PWD", "SVC_RUN_URL", "SVC_RUN_TOKEN", "SVC_SECRETS_URL", "SVC_SECRETS_TOKEN",
      "RUN_TOKEN", "SECRETS_TOKEN", "PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "PATH"]);
    const used = [...readme.matchAll(/\$\{?([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!);
    expect(used.filter((v) => !defined.has(v))).toEqual([]);
  });
});
