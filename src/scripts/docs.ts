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
 * committed. Three sources are written from the build as well: src/kindLoaders.ts and
 * src/kindUsers.ts (docs/kinds.ts: which module declares each kind, who uses each kind's objects)
 * and src/core/secretVersions.ts (docs/versions.ts).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { testingPageText } from "./docs/testing";
import { errorsPageText, functionsPage, functionsPageText, indexPageText, readmeBlock, README_BEGIN, README_END, resourcePage, resourcePageText } from "./docs/pages";
import { settingsBlock, SETTINGS_BEGIN, SETTINGS_END } from "./docs/settings";
import { errorClasses, surface } from "./docs/surface";
import { KIND_LOADERS_FILE, KIND_USERS_FILE, KindFileError, kindLoadersSource, kindUsersSource } from "./docs/kinds";
import { SECRET_VERSIONS_FILE, secretVersionsSource } from "./docs/versions";

export { KIND_LOADERS_FILE, kindLoadersSource, KIND_USERS_FILE, kindUsersSource, SECRET_VERSIONS_FILE, secretVersionsSource };

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
  if (from < 0 || to < from) throw new Error(`${name} has no "${begin}" ... "${end}" block`);
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

if (require.main === module) {
  const root = path.resolve(__dirname, "../../..");
  writeReference(root, path.join(root, "docs/reference"), path.join(root, "docs/README.md")).then(async (ref) => {
    for (const f of settingsFiles(root)) fs.writeFileSync(f.file, f.text);
    fs.writeFileSync(path.join(root, KIND_LOADERS_FILE), kindLoadersSource(path.join(root, "dist")));
    fs.writeFileSync(path.join(root, KIND_USERS_FILE), kindUsersSource(path.join(root, "dist")));
    const versionsFile = path.join(root, SECRET_VERSIONS_FILE);
    const versions = await secretVersionsSource(path.join(root, "dist"));
    if (fs.readFileSync(versionsFile, "utf8") !== versions) {
      fs.writeFileSync(versionsFile, versions);
      // The pages were written from a build without it: the next run's build has it.
      console.log(`${SECRET_VERSIONS_FILE} changed: run npm run docs again so the pages show the version outputs it declares`);
    }
    console.log(`docs/reference: ${ref.pages.length} pages; docs/README.md: the list of resources and functions; README.md and docs/configuration.md: the settings; ${KIND_LOADERS_FILE}; ${KIND_USERS_FILE}; ${SECRET_VERSIONS_FILE}`);
  }, (e: unknown) => {
    console.error(e instanceof KindFileError ? `npm run docs: ${e.message}` : e);
    process.exitCode = 1;
  });
}
