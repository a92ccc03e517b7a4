/**
 * Writes the reference pages (docs/reference/) from two sources and nothing else:
 * - the built declarations (dist/src/index.d.ts, what an installed package gives editors): every
 *   doc, class description, @remarks, @example and @throws, every type as TypeScript prints it,
 *   and which arguments are required;
 * - the runtime definitions in the same build: each kind's type token, flags (identity, immutable,
 *   secret, write-only, local, set, default), routes, check, and each function's definition
 *   (side effects, token needs) and whether its Output form is secret.
 * A doc is never written here: what the generator adds is how the machinery treats each flag.
 *
 * One job a file: docs/surface.ts reads the build (the type walker), docs/markdown.ts turns docs
 * and types into Markdown, docs/pages.ts writes each page's text; this file puts the pages together
 * and writes them. `npm run docs` builds first, then runs this with no arguments (writes
 * docs/reference/); test/docs/reference.test.ts runs `writeReference` and compares with what is
 * committed. Sources are written from the build as well: each area's exports of its kinds
 * (docs/exports.ts), each emulator folder's registrations (docs/registrations.ts),
 * src/kindLoaders.ts and src/kindUsers.ts (docs/kinds.ts: which module declares each kind, who uses
 * each kind's objects) and src/core/secretVersions.ts (docs/versions.ts); when one changes, the
 * build is made again and the pass repeated (docsPass).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { testingPageText } from "./docs/testing";
import { errorsPageText, functionsPage, functionsPageText, indexPageText, readmeBlock, README_BEGIN, README_END, resourcePage, resourcePageText } from "./docs/pages";
import { settingsBlock, SETTINGS_BEGIN, SETTINGS_END } from "./docs/settings";
import { errorClasses, surface } from "./docs/surface";
import { KIND_LOADERS_FILE, KIND_USERS_FILE, KindFileError, kindLoadersSource, kindUsersSource } from "./docs/kinds";
import { SECRET_VERSIONS_FILE, secretVersionsSource } from "./docs/versions";
import { areaExportFiles } from "./docs/exports";
import { registrationFiles } from "./docs/registrations";

export { KIND_LOADERS_FILE, kindLoadersSource, KIND_USERS_FILE, kindUsersSource, SECRET_VERSIONS_FILE, secretVersionsSource, areaExportFiles, registrationFiles };

export { README_BEGIN, README_END };

/** One page: its path under docs/reference (always with `/`) and its text. */
export interface Page {
  path: string;
  text: string;
}

/** `text` with its block from the line `begin` to the line `end` replaced by `block`, which holds both. */
function splice(name: string, text: string, begin: string, end: string, block: string): string {
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new KindFileError(`${name} has no "${begin}" ... "${end}" block`);
  return text.slice(0, from) + block + text.slice(to + end.length);
}

/** The README with its list replaced by `block`; it must hold the two marker lines. */
export function spliceReadme(readme: string, block: string): string {
  return splice("README.md", readme, README_BEGIN, README_END, block);
}

/** The files that show the settings table (under `root`) and their text with the table written anew. */
export function settingsFiles(root: string): { file: string; text: string }[] {
  return [["README.md", true], ["docs/configuration.md", false]].map(([name, needed]) => {
    const file = path.join(root, name as string);
    return { file, text: splice(name as string, fs.readFileSync(file, "utf8"), SETTINGS_BEGIN, SETTINGS_END, settingsBlock(needed as boolean)) };
  });
}

export interface Reference {
  /** The pages under docs/reference, in a stable order. */
  pages: Page[];
  /** The README's list, marker lines included. */
  readme: string;
}

/** Every page and the README's list. `root` is the package folder holding dist/. */
export async function reference(root: string): Promise<Reference> {
  const dist = path.join(root, "dist");
  const s = await surface(root);
  const provider = require(path.join(dist, "src/core/provider.js")) as typeof import("../core/provider");
  const errors = errorClasses(dist, s);
  const pages: Page[] = [{ path: "README.md", text: indexPageText(s, errors) }, { path: "errors.md", text: errorsPageText(errors, s, dist) },
    { path: "testing.md", text: testingPageText(dist) }];
  for (const r of s.resources) pages.push({ path: resourcePage(r), text: resourcePageText(r, s, errors, dist, provider.check) });
  for (const area of [...new Set(s.groups.map((g) => g.area))]) {
    pages.push({ path: functionsPage(area), text: functionsPageText(area, s.groups.filter((g) => g.area === area), s, dist) });
  }
  return {
    pages: pages.map((p) => ({ path: p.path, text: `${p.text.replace(/\n{3,}/g, "\n\n").trimEnd()}\n` })),
    readme: readmeBlock(s),
  };
}

/**
 * Writes every page under `out` (pages no longer generated are removed with the old folder) and,
 * given a README file, replaces its list.
 */
export async function writeReference(root: string, out: string, readmeFile?: string): Promise<Reference> {
  const ref = await reference(root);
  fs.rmSync(out, { recursive: true, force: true });
  for (const p of ref.pages) {
    const file = path.join(out, ...p.path.split("/"));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, p.text);
  }
  if (readmeFile) fs.writeFileSync(readmeFile, spliceReadme(fs.readFileSync(readmeFile, "utf8"), ref.readme));
  return ref;
}

/** A source `npm run docs` writes (relative to the package folder) and its text. */
interface Written {
  file: string;
  text: string;
}

/**
 * The sources derived from the build under `root`, in two stages: the kinds' exports and the
 * emulator's registrations (from the files), then what is read from the package's kinds (their
 * loaders, their users, the version outputs), which needs the first stage's exports built.
 */
const STAGES: ReadonlyArray<(root: string) => Promise<Written[]>> = [
  async (root) => [...areaExportFiles(root), ...registrationFiles(root)],
  async (root) => {
    const dist = path.join(root, "dist");
    return [
      { file: KIND_LOADERS_FILE, text: kindLoadersSource(dist) },
      { file: KIND_USERS_FILE, text: kindUsersSource(dist) },
      { file: SECRET_VERSIONS_FILE, text: await secretVersionsSource(dist) },
    ];
  },
];

/** Writes what differs; the files that did. */
function writeChanged(root: string, files: readonly Written[]): string[] {
  const changed = files.filter((f) => fs.readFileSync(path.join(root, f.file), "utf8") !== f.text);
  for (const f of changed) fs.writeFileSync(path.join(root, f.file), f.text);
  return changed.map((f) => f.file);
}

/**
 * One pass: the derived sources first, then the pages from the same build. A source that changed
 * makes the build stale (a new kind's export, its loader, a version output the pages show), so the
 * build is made again and a fresh process takes the next pass, until nothing changes: one
 * `npm run docs` leaves the sources, the pages and dist/ in step.
 */
async function docsPass(root: string, pass: number): Promise<void> {
  let changed: string[] = [];
  for (const stage of STAGES) {
    changed = writeChanged(root, await stage(root));
    if (changed.length > 0) break;
  }
  if (changed.length > 0) {
    if (pass >= 4) throw new KindFileError(`${changed.join(", ")} still changed after ${pass} builds: the sources npm run docs writes do not settle`);
    console.log(`${changed.join(", ")}: written; building again for the next pass`);
    const build = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
    if (build.status !== 0) {
      // The compiler's errors are above: one line more says what stopped, with no stack.
      console.error(`npm run docs: npm run build failed (exit ${build.status ?? "by a signal"}) after ${changed.join(", ")} changed`);
      process.exitCode = build.status || 1;
      return;
    }
    // The new build's modules, not this process's: a fresh process, whose failure says its own words.
    const next = spawnSync(process.execPath, [path.join(root, "dist/src/scripts/docs.js")], { cwd: root, stdio: "inherit", env: { ...process.env, SVC_DOCS_PASS: String(pass + 1) } });
    process.exitCode = next.status ?? 1;
    return;
  }
  const ref = await writeReference(root, path.join(root, "docs/reference"), path.join(root, "docs/README.md"));
  for (const f of settingsFiles(root)) fs.writeFileSync(f.file, f.text);
  console.log(`docs/reference: ${ref.pages.length} pages; docs/README.md: the list of resources and functions; README.md and docs/configuration.md: the settings; ` +
    `the kinds' exports, the emulator folders' registrations, ${KIND_LOADERS_FILE}, ${KIND_USERS_FILE} and ${SECRET_VERSIONS_FILE}: as written`);
}

if (require.main === module) {
  const root = path.resolve(__dirname, "../../..");
  docsPass(root, Number(process.env.SVC_DOCS_PASS ?? "1")).catch((e: unknown) => {
    console.error(e instanceof KindFileError ? `npm run docs: ${e.message}` : e);
    process.exitCode = 1;
  });
}
