// The reference pages (docs/reference/), the list in docs/README.md, the settings tables of README.md
// and docs/configuration.md, src/kindLoaders.ts, src/kindUsers.ts, src/core/secretVersions.ts, the
// areas' exports of their kinds and the emulator folders' registrations are generated (npm run
// docs): the committed ones must be what the generator writes from the current build, so a doc
// changed in a source and not regenerated, a new kind's file or emulator model npm run docs has not
// yet registered, or a page edited by hand, fails here naming the file. Every resource
// class and function the package exports must have a page, found from the built package itself
// rather than from the generator.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromDist, root } from "../support/dist";

type Docs = typeof import("../../src/scripts/docs");

const committed = path.join(root, "docs/reference");
let out: string;
let readme: string;

/** Every file under a folder, as paths with `/` relative to it. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}

beforeAll(async () => {
  out = fs.mkdtempSync(path.join(os.tmpdir(), "svc-reference-"));
  readme = path.join(out, "README.md");
  fs.copyFileSync(path.join(root, "docs/README.md"), readme);
  await fromDist<Docs>("src/scripts/docs.js").writeReference(root, path.join(out, "reference"), readme);
}, 120_000);

afterAll(() => {
  if (out) fs.rmSync(out, { recursive: true, force: true });
});

describe("the reference pages", () => {
  it("the committed pages are what npm run docs writes", () => {
    const generated = filesUnder(path.join(out, "reference"));
    const problems: string[] = [];
    for (const page of generated) {
      const file = path.join(committed, page);
      if (!fs.existsSync(file)) problems.push(`docs/reference/${page}: missing (run npm run docs)`);
      else if (fs.readFileSync(file, "utf8") !== fs.readFileSync(path.join(out, "reference", page), "utf8")) {
        problems.push(`docs/reference/${page}: differs from what npm run docs writes`);
      }
    }
    for (const page of filesUnder(committed)) {
      if (!generated.includes(page)) problems.push(`docs/reference/${page}: no longer generated (run npm run docs)`);
    }
    expect(problems).toEqual([]);
  });

  it("the manual index's list of resources and functions is what npm run docs writes", () => {
    expect(fs.readFileSync(path.join(root, "docs/README.md"), "utf8") === fs.readFileSync(readme, "utf8"),
      "docs/README.md: the list between the reference markers differs from what npm run docs writes").toBe(true);
  });

  it("the settings tables of README.md and docs/configuration.md are what npm run docs writes from SETTINGS", () => {
    const stale = fromDist<Docs>("src/scripts/docs.js").settingsFiles(root)
      .filter((f) => fs.readFileSync(f.file, "utf8") !== f.text).map((f) => path.relative(root, f.file));
    expect(stale, "run npm run docs").toEqual([]);
  });

  it("SecretVersions (src/core/secretVersions.ts) is what npm run docs writes from the records", async () => {
    const docs = fromDist<Docs>("src/scripts/docs.js");
    const committedSource = fs.readFileSync(path.join(root, docs.SECRET_VERSIONS_FILE), "utf8");
    expect(committedSource === await docs.secretVersionsSource(path.join(root, "dist")), `${docs.SECRET_VERSIONS_FILE}: run npm run docs`).toBe(true);
  });

  it("the kinds' loaders (src/kindLoaders.ts) are what npm run docs writes from the kinds' files", () => {
    const docs = fromDist<Docs>("src/scripts/docs.js");
    const committedSource = fs.readFileSync(path.join(root, docs.KIND_LOADERS_FILE), "utf8");
    expect(committedSource === docs.kindLoadersSource(path.join(root, "dist")), `${docs.KIND_LOADERS_FILE}: run npm run docs`).toBe(true);
  });

  it("the kinds' users (src/kindUsers.ts) are what npm run docs writes from the kinds' fields", () => {
    const docs = fromDist<Docs>("src/scripts/docs.js");
    const committedSource = fs.readFileSync(path.join(root, docs.KIND_USERS_FILE), "utf8");
    expect(committedSource === docs.kindUsersSource(path.join(root, "dist")), `${docs.KIND_USERS_FILE}: run npm run docs`).toBe(true);
  });

  it("the areas' exports of their kinds and the emulator folders' registrations are what npm run docs writes from the files", () => {
    const docs = fromDist<Docs>("src/scripts/docs.js");
    const written = [...docs.areaExportFiles(root), ...docs.registrationFiles(root)];
    expect(written.map((f) => f.file)).toEqual(expect.arrayContaining(["src/secrets/transform/index.ts", "src/runs/index.ts", "src/emulator/runs/index.ts", "src/emulator/secrets/transform/index.ts"]));
    const stale = written.filter((f) => fs.readFileSync(path.join(root, f.file), "utf8") !== f.text).map((f) => `${f.file}: run npm run docs`);
    expect(stale).toEqual([]);
  });

  it("every resource class and function exported from src/index.ts has a page", () => {
    const svc = fromDist<Record<string, unknown>>("src/index.js");
    // The classes extend CustomResource through their kind's SvcResource(definition).
    const { CustomResource } = fromDist<typeof import("@pulumi/pulumi")>("../node_modules/@pulumi/pulumi/index.js");
    const missing: string[] = [];
    let resources = 0;
    let functions = 0;
    const visit = (o: Record<string, unknown>, area: string[]) => {
      for (const [name, v] of Object.entries(o)) {
        if (typeof v === "function") {
          const isClass = /^class\b/.test(Function.prototype.toString.call(v));
          if (isClass && v.prototype instanceof CustomResource) {
            resources++;
            const page = path.join(committed, ...area, `${name}.md`);
            if (!fs.existsSync(page)) missing.push(`svc.${[...area, name].join(".")}: no page ${path.relative(root, page)}`);
          } else if (!isClass) {
            functions++;
            const page = path.join(committed, ...area, "functions.md");
            // Each form is listed by its call (`getRoleOutput(args, opts?)`) on its area's page.
            if (!fs.existsSync(page) || !fs.readFileSync(page, "utf8").includes(`\`${name}(`)) {
              missing.push(`svc.${[...area, name].join(".")}: not on ${path.relative(root, page)}`);
            }
          }
        } else if (v !== null && typeof v === "object" && !Array.isArray(v) && area.length < 2 && !/^[A-Z_]+$/.test(name)) {
          visit(v as Record<string, unknown>, [...area, name]);
        }
      }
    };
    visit(svc, []);
    expect(resources).toBeGreaterThanOrEqual(27);
    expect(functions).toBeGreaterThanOrEqual(100);
    expect(missing).toEqual([]);
  });
});
