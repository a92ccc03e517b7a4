// What npm run docs derives from the files (src/scripts/docs/): src/kindLoaders.ts from the kinds'
// files (a kind's file exports its definition and its class, and nothing else declares it), each
// area's exports of its kinds (the index's block), and each emulator folder's registrations (its
// files' service rows and kinds of assigned ids). Built packages of a few files each show what the
// derivations write, the order they keep, and what they refuse.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { KIND_NAMES } from "../../src/kinds";
import { fromDist, root } from "../support/dist";

type Kinds = typeof import("../../src/scripts/docs/kinds");
const { kindModules, KindFileError } = fromDist<Kinds>("src/scripts/docs/kinds.js");
const { areaExportFiles } = fromDist<typeof import("../../src/scripts/docs/exports")>("src/scripts/docs/exports.js");
const { registrationFiles } = fromDist<typeof import("../../src/scripts/docs/registrations")>("src/scripts/docs/registrations.js");
const { BLOCK_BEGIN, BLOCK_END } = fromDist<typeof import("../../src/scripts/docs/blocks")>("src/scripts/docs/blocks.js");

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
    expect(() => kindModules(two)).toThrow("src/runs/a.ts exports 2 kind definitions and 1 resource class: a kind's file exports one of each");
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
    expect(() => kindModules(hidden)).toThrow("src/runs/a.ts declares runs:A, and the package does not export its class: run npm run docs");
    const classless = pkg({
      "index.js": ``,
      "runs/a.js": `${DEF("runs:A")}module.exports = { def };\n`,
    });
    expect(() => kindModules(classless)).toThrow("src/runs/a.ts exports 1 kind definitions and 0 resource classes");
  });
});

/** A package folder holding `files` (relative path → text: its sources and its build), its node_modules the repository's. */
function tree(files: Record<string, string>): string {
  const dir = path.dirname(pkg({}));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const block = (...lines: string[]) => [BLOCK_BEGIN, ...lines, BLOCK_END].join("\n");
const D_TS = (name: string) => `export type ${name}Args = { n: string };\nexport declare class ${name} extends ${name}_base {\n    constructor(name: string, args: ${name}Args, opts?: object);\n}\n`;

describe("an area's exports of its kinds", () => {
  it("exports each kind's class and arguments from its folder's index, in the order kept there, a new kind last; the rest of the index is left alone", () => {
    const root = tree({
      "src/secrets/area/index.ts": `/** The area. */\n${block('export { Zeta, type ZetaArgs } from "./zeta";')}\nexport { type Extra } from "./zeta";\n`,
      "dist/src/secrets/area/zeta.js": `${CLASS("Zeta")}${DEF("secrets:AreaZeta")}module.exports = { Zeta, def };\n`,
      "dist/src/secrets/area/zeta.d.ts": D_TS("Zeta"),
      "dist/src/secrets/area/alpha.js": `${CLASS("Alpha")}${DEF("secrets:AreaAlpha")}module.exports = { Alpha, def };\n`,
      "dist/src/secrets/area/alpha.d.ts": D_TS("Alpha"),
    });
    expect(areaExportFiles(root)).toEqual([{
      file: "src/secrets/area/index.ts",
      text: `/** The area. */\n${block('export { Zeta, type ZetaArgs } from "./zeta";', 'export { Alpha, type AlphaArgs } from "./alpha";')}\nexport { type Extra } from "./zeta";\n`,
    }]);
  });

  it("refuses a kind whose arguments' type its file does not export, and an index without the block", () => {
    const hiddenArgs = tree({
      "src/runs/index.ts": block(),
      "dist/src/runs/a.js": `${CLASS("A")}${DEF("runs:A")}module.exports = { A, def };\n`,
      "dist/src/runs/a.d.ts": D_TS("A").replace("export type AArgs", "type AArgs"),
    });
    expect(() => areaExportFiles(hiddenArgs)).toThrow("src/runs/a.ts does not export AArgs, the type of A's arguments");
    const noBlock = tree({
      "src/runs/index.ts": "",
      "dist/src/runs/a.js": `${CLASS("A")}${DEF("runs:A")}module.exports = { A, def };\n`,
      "dist/src/runs/a.d.ts": D_TS("A"),
    });
    expect(() => areaExportFiles(noBlock)).toThrow(KindFileError);
  });
});

describe("an emulator folder's registrations", () => {
  const ROUTES = (name: string, path: string) => `exports.${name} = [{ method: "GET", path: ${JSON.stringify(path)}, handler: () => ({}) }];\n`;
  it("lists the service rows and the assigned ids of its files but the control ones, in the order kept there, a new file last", () => {
    const root = tree({
      "src/emulator/area/index.ts": `import type { X } from "./x";\n${block('import { zetaRoutes } from "./zeta";')}\nexport const area = { routes: FOLDER_ROUTES, ids: FOLDER_ASSIGNED_IDS };\n`,
      "dist/src/emulator/area/zeta.js": ROUTES("zetaRoutes", "zeta/:name"),
      "dist/src/emulator/area/alpha.js": `${ROUTES("alphaRoutes", "alpha/:name")}exports.ASSIGNED_IDS = "alphas";\n`,
      "dist/src/emulator/area/control.js": ROUTES("areaControlRoutes", "/area"),
      "dist/src/emulator/area/state.js": "exports.table = {};\n",
      "dist/src/emulator/other/beta.js": ROUTES("betaRoutes", "beta"),
    });
    const lines = [
      'import { zetaRoutes } from "./zeta";',
      'import { ASSIGNED_IDS as alphaIds, alphaRoutes } from "./alpha";',
      "/** The service's rows of this folder's files, in the order above: the router takes the first that matches. */",
      "const FOLDER_ROUTES = [...zetaRoutes, ...alphaRoutes];",
      "/** This folder's kinds whose ids the service assigns, as `PUT /_emulator/next-ids` names them. */",
      "const FOLDER_ASSIGNED_IDS: readonly string[] = [alphaIds];",
    ];
    expect(registrationFiles(root)).toEqual([{
      file: "src/emulator/area/index.ts",
      text: `import type { X } from "./x";\n${block(...lines)}\nexport const area = { routes: FOLDER_ROUTES, ids: FOLDER_ASSIGNED_IDS };\n`,
    }]);
  });
});

describe("a page npm run docs writes into", () => {
  it("without its marker lines is refused in one line naming the page", () => {
    const { spliceReadme } = fromDist<typeof import("../../src/scripts/docs")>("src/scripts/docs.js");
    expect(() => spliceReadme("# pulumi-svc\n\nno list here\n", "the list")).toThrow(KindFileError);
    expect(() => spliceReadme("# pulumi-svc\n", "the list")).toThrow(/^README\.md has no "/);
  });
});
