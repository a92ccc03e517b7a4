// src/kindLoaders.ts is derived from the kinds' files (src/scripts/docs/kinds.ts): a kind's file
// exports its definition and the class the package exports, and nothing else declares it. Built
// packages of a few files each show that the derivation refuses what would make a loader wrong.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { KIND_NAMES } from "../../src/kinds";
import { fromDist, root } from "../support/dist";

type Kinds = typeof import("../../src/scripts/docs/kinds");
const { kindModules, KindFileError } = fromDist<Kinds>("src/scripts/docs/kinds.js");

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const CLASS = (name: string) => `const { CustomResource } = require("@pulumi/pulumi");\nclass ${name} extends CustomResource {}\n`;
const DEF = (kind: string) => `const def = { kind: ${JSON.stringify(kind)}, create: async () => ({}) };\n`;

/** A package whose dist/src holds `files` (relative path → text), its node_modules the repository's. */
function pkg(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-kinds-"));
  made.push(dir);
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
  for (const [rel, text] of Object.entries({ "runs/.keep.js": "", "secrets/.keep.js": "", ...files })) {
    const file = path.join(dir, "dist/src", rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  return path.join(dir, "dist");
}

describe("which module declares each kind", () => {
  it("the build's kinds are KIND_NAMES, in its order, each in the module whose kind it is", () => {
    const kinds = kindModules(path.join(root, "dist"));
    expect(kinds.map((k) => k.kind)).toEqual(KIND_NAMES);
    for (const k of kinds) expect(k.def.kind).toBe(k.kind);
  });

  it("follows the order of the package's exports, not of the files", () => {
    const dist = pkg({
      "index.js": `exports.area = require("./secrets/area");\n`,
      "secrets/area/index.js": `exports.Zeta = require("./zeta").Zeta;\nexports.Alpha = require("./alpha").Alpha;\n`,
      "secrets/area/alpha.js": `${CLASS("Alpha")}${DEF("secrets:AreaAlpha")}module.exports = { Alpha, def };\n`,
      "secrets/area/zeta.js": `${CLASS("Zeta")}${DEF("secrets:AreaZeta")}module.exports = { Zeta, def };\n`,
    });
    expect(kindModules(dist).map((k) => [k.kind, k.module])).toEqual([["secrets:AreaZeta", "secrets/area/zeta"], ["secrets:AreaAlpha", "secrets/area/alpha"]]);
  });

  it("refuses a kind's file with two definitions, a class declared twice, and a class with no file", () => {
    const two = pkg({
      "index.js": `exports.A = require("./runs/a").A;\n`,
      "runs/a.js": `${CLASS("A")}${DEF("runs:A")}module.exports = { A, def, other: { kind: "runs:B", create: async () => ({}) } };\n`,
    });
    expect(() => kindModules(two)).toThrow(KindFileError);
    expect(() => kindModules(two)).toThrow("src/runs/a.ts exports 2 kind definitions and 1 of the package's resource classes");
    const twice = pkg({
      "index.js": `exports.A = require("./runs/a").A;\n`,
      "runs/a.js": `${CLASS("A")}${DEF("runs:A")}module.exports = { A, def };\n`,
      "runs/b.js": `${DEF("runs:A")}module.exports = { A: require("./a").A, def };\n`,
    });
    expect(() => kindModules(twice)).toThrow("runs:A is declared in src/runs/a.ts and src/runs/b.ts");
    const orphan = pkg({
      "index.js": `${CLASS("A")}exports.A = A;\n`,
    });
    expect(() => kindModules(orphan)).toThrow("A: the package exports this resource class, and no file under src/runs or src/secrets exports it with its definition");
    const hidden = pkg({
      "index.js": ``,
      "runs/a.js": `${CLASS("A")}${DEF("runs:A")}module.exports = { A, def };\n`,
    });
    expect(() => kindModules(hidden)).toThrow("src/runs/a.ts exports 1 kind definitions and 0 of the package's resource classes");
  });
});
