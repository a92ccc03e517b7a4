// Every example is a Pulumi project of its own, its step2 the same project, and the README's
// example commands use only variables it defines.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../support/dist";

const examples = path.join(root, "examples");
const programs = fs.readdirSync(examples).filter((d) => {
  const dir = path.join(examples, d);
  // A Pulumi program registers resources (in index.ts or a module beside it such as shared.ts), and
  // every example the real CLI runs has a cli.json; the receiver example is a plain server.
  if (!fs.existsSync(path.join(dir, "index.ts"))) return false;
  if (fs.existsSync(path.join(dir, "cli.json"))) return true;
  return /new svc\.|svc\.\w+\.\w+\(/.test(fs.readFileSync(path.join(dir, "index.ts"), "utf8"));
});
const nameOf = (file: string) => /^name:\s*(\S+)/m.exec(fs.readFileSync(file, "utf8"))?.[1];

describe("examples", () => {
  it("finds the example programs", () => {
    expect(programs).toEqual(expect.arrayContaining(["keymgmt", "quickstart", "runs", "transform", "directory", "replication"]));
    expect(programs).not.toContain("receiver");
  });

  for (const d of programs) {
    it(`${d} has its own Pulumi.yaml (nodejs, TypeScript), and its step2 the same project name`, () => {
      const yaml = path.join(examples, d, "Pulumi.yaml");
      expect(fs.existsSync(yaml)).toBe(true);
      expect(fs.readFileSync(yaml, "utf8")).toMatch(/runtime:\s*\n\s+name: nodejs/);
      const step2 = path.join(examples, d, "step2");
      if (fs.existsSync(step2)) expect(nameOf(path.join(step2, "Pulumi.yaml"))).toBe(nameOf(yaml));
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
