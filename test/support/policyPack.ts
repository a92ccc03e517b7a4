// A CrossGuard policy pack folder for a test, laid out as a user's is after `npm install` in it:
// PulumiPolicy.yaml, package.json (the pack's version comes from it), the pack's files, and its own
// node_modules, here links to this checkout's @pulumi/policy and @pulumi/pulumi and to this
// checkout as pulumi-svc (its built dist/, as the examples use it). No network.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll } from "vitest";
import { root } from "./dist";

const made: string[] = [];
let cleanup = false;

/** A pack of `files` (at least index.js or index.ts) in a temporary folder, removed after the test file. */
export function packFolder(files: Record<string, string>, name = "test-pack"): string {
  if (!cleanup) {
    cleanup = true;
    afterAll(() => {
      for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
    });
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-policy-pack-"));
  made.push(dir);
  const ts = "index.ts" in files;
  fs.writeFileSync(path.join(dir, "PulumiPolicy.yaml"), `runtime:\n  name: nodejs\n  options:\n    typescript: ${ts}\ndescription: ${name}\n`);
  if (!("package.json" in files)) fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0", main: ts ? "index.ts" : "index.js" }));
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  const modules = path.join(dir, "node_modules");
  fs.mkdirSync(path.join(modules, "@pulumi"), { recursive: true });
  for (const pkg of ["@pulumi/policy", "@pulumi/pulumi"]) fs.symlinkSync(path.dirname(require.resolve(`${pkg}/package.json`, { paths: [root] })), path.join(modules, pkg), "dir");
  fs.symlinkSync(root, path.join(modules, "pulumi-svc"), "dir");
  return dir;
}

/** examples/policy as a user has it after `npm install` there (its config file included). */
export function examplePack(): string {
  const src = path.join(root, "examples/policy");
  const files = Object.fromEntries(fs.readdirSync(src).filter((f) => fs.statSync(path.join(src, f)).isFile() && f !== "PulumiPolicy.yaml").map((f) => [f, fs.readFileSync(path.join(src, f), "utf8")]));
  const dir = packFolder(files, "svc-guard-example");
  fs.copyFileSync(path.join(src, "PulumiPolicy.yaml"), path.join(dir, "PulumiPolicy.yaml"));
  return dir;
}

/**
 * A pack with, for every class of the package, a policy through `@pulumi/policy`'s own
 * validateResourceOfType (`raw-<Kind>`) and one through pulumi-svc/policy's (`typed-<Kind>`), each
 * reporting what it was given as JSON, and a stack policy per class (`stack-<Kind>`): the classes
 * are found from the package's exports, so a new kind is in it. One remediation (`remediate-key`)
 * turns a key's deletionAllowed off before the analyses see it.
 */
export const EVERY_CLASS_PACK = `"use strict";
const policy = require("@pulumi/policy");
const sp = require("pulumi-svc/policy");
const svc = require("pulumi-svc");
const classes = [];
const walk = (o) => { for (const v of Object.values(o)) { if (typeof v === "function" && typeof v.__pulumiType === "string") classes.push(v); else if (v && typeof v === "object" && !Array.isArray(v)) walk(v); } };
walk(svc.runs); walk(svc.secrets);
const policies = [];
for (const C of classes) {
  const kind = C.__pulumiType.split("/").pop().replace(":", "-");
  const said = (args, props) => JSON.stringify({ type: args.type, keys: Object.keys(props).sort(), props });
  policies.push({ name: "raw-" + kind, description: "raw " + kind, enforcementLevel: "advisory",
    validateResource: policy.validateResourceOfType(C, (props, args, report) => report(said(args, props))) });
  policies.push({ name: "typed-" + kind, description: "typed " + kind, enforcementLevel: "advisory",
    validateResource: sp.validateResourceOfType(C, (props, args, report) => report(said(args, props))) });
  policies.push({ name: "stack-" + kind, description: "stack " + kind, enforcementLevel: "advisory",
    validateStack: sp.validateStackResourcesOfType(C, (all, args, report) => report(JSON.stringify({ n: all.length, keys: all.map((p) => Object.keys(p).sort()) }), args.resources[0].urn)) });
}
// A remediation, applied before the analyses above see the key.
policies.push({ name: "remediate-key", description: "remediate key", enforcementLevel: "remediate",
  remediateResource: sp.remediateResourceOfType(svc.secrets.keymgmt.Key, (key) => (key.deletionAllowed ? { deletionAllowed: false } : undefined)) });
new policy.PolicyPack("every-class", { policies });
`;

/** The ready pack alone, in JavaScript (no TypeScript compile when it starts). */
export const READY_PACK = `"use strict";
const { PolicyPack } = require("@pulumi/policy");
new PolicyPack("svc-guard", { policies: require("pulumi-svc/policy").svcPolicies() });
`;
