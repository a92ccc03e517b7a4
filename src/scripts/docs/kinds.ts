/**
 * src/kindLoaders.ts, from the build: which module declares each kind. A kind's module is the one
 * file under src/runs or src/secrets that exports both its definition and its resource class
 * (kindFiles); its folder's index exports the class (`npm run docs` writes that line,
 * docs/exports.ts), and the kinds come in the order the package exports their classes
 * (src/index.ts, then each area's index). So adding an API object writes no line of a list: its
 * file is the declaration, and `npm run docs` writes the export and the loader. It writes
 * src/kindUsers.ts beside it: who uses each kind's objects, from every kind's fields.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ResourceDefinition } from "../../core/definition";
import { usersOf } from "../../core/relations";

export const KIND_LOADERS_FILE = "src/kindLoaders.ts";
export const KIND_USERS_FILE = "src/kindUsers.ts";

/** One kind: its name, its module (relative to src, no extension) and its definition. */
export interface KindModule {
  kind: string;
  module: string;
  def: ResourceDefinition;
}

/**
 * A file `npm run docs` cannot follow (a kind's file or export, a page without its marker lines):
 * the contributor's to mend, said in one line.
 */
export class KindFileError extends Error {
  override name = "KindFileError";
}

const isDefinition = (v: unknown): v is ResourceDefinition =>
  typeof v === "object" && v !== null && typeof (v as ResourceDefinition).kind === "string" && typeof (v as ResourceDefinition).create === "function";

/** Every compiled module under a folder but the area indexes, which only re-export. */
function modulesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".js") && e.name !== "index.js")
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** Whether `v` is a resource class of the build under `dist`. */
function resourceClassTest(dist: string): (v: unknown) => boolean {
  const { CustomResource } = require(require.resolve("@pulumi/pulumi", { paths: [dist] })) as typeof import("@pulumi/pulumi");
  return (v) => typeof v === "function" && (v as { prototype?: unknown }).prototype instanceof CustomResource;
}

/** The package's resource classes, in the order its surface exports them. */
function exportedClasses(dist: string): unknown[] {
  const isClass = resourceClassTest(dist);
  const found: unknown[] = [];
  const seen = new Set<object>();
  const visit = (o: object) => {
    if (seen.has(o)) return;
    seen.add(o);
    for (const v of Object.values(o)) {
      if (isClass(v)) {
        if (!found.includes(v)) found.push(v);
      } else if (v && typeof v === "object" && !Array.isArray(v)) visit(v);
    }
  };
  visit(require(path.join(dist, "src/index.js")) as object);
  return found;
}

/** A kind's file: its module (relative to src, no extension), its definition, and its class with the name the file exports it by. */
export interface KindFile extends KindModule {
  cls: unknown;
  className: string;
}

/** Every kind's file of the build under `dist`, in file order: each file under src/runs or src/secrets that exports a kind's definition. */
export function kindFiles(dist: string): KindFile[] {
  const src = path.join(dist, "src");
  const isClass = resourceClassTest(dist);
  const out: KindFile[] = [];
  for (const file of [...modulesUnder(path.join(src, "runs")), ...modulesUnder(path.join(src, "secrets"))]) {
    const mod = require(file) as Record<string, unknown>;
    const defs = [...new Set(Object.values(mod).filter(isDefinition))];
    if (defs.length === 0) continue;
    const module = path.relative(src, file).replace(/\.js$/, "").split(path.sep).join("/");
    const cls = Object.entries(mod).filter(([, v]) => isClass(v));
    if (defs.length !== 1 || cls.length !== 1) {
      throw new KindFileError(`src/${module}.ts exports ${defs.length} kind definitions and ${cls.length} resource class${cls.length === 1 ? "" : "es"}: a kind's file exports one of each`);
    }
    const twice = out.find((k) => k.cls === cls[0]![1] || k.kind === defs[0]!.kind);
    if (twice) throw new KindFileError(`${defs[0]!.kind} is declared in src/${twice.module}.ts and src/${module}.ts`);
    out.push({ kind: defs[0]!.kind, module, def: defs[0]!, cls: cls[0]![1], className: cls[0]![0] });
  }
  return out;
}

/** Every kind of the build under `dist`, in the order of its class on the package's surface. */
export function kindModules(dist: string): KindModule[] {
  const classes = exportedClasses(dist);
  const files = kindFiles(dist);
  const hidden = files.find((k) => !classes.includes(k.cls));
  if (hidden) throw new KindFileError(`src/${hidden.module}.ts declares ${hidden.kind}, and the package does not export its class: run npm run docs (it writes the export into its folder's index.ts)`);
  const orphan = classes.find((c) => !files.some((k) => k.cls === c));
  if (orphan) throw new KindFileError(`${(orphan as { name: string }).name}: the package exports this resource class, and no file under src/runs or src/secrets exports it with its definition`);
  return classes.map((c) => files.find((k) => k.cls === c)!).map(({ kind, module, def }) => ({ kind, module, def }));
}

/** The file's text, from the kinds of the build under `dist`. */
export function kindLoadersSource(dist: string): string {
  const rows = kindModules(dist).map((k) => `  ${JSON.stringify(k.kind)}: () => import("./${k.module}"),`);
  return `// Generated by \`npm run docs\` (src/scripts/docs/kinds.ts) from the kinds' files and the package's exports: do not edit.

/**
 * Each kind's module, in the order the package exports its class. A loader requires the module on
 * first use only (src/kinds.ts), so a provider host that serves one kind loads only that kind.
 */
export const LOADERS: Record<string, () => Promise<object>> = {
${rows.join("\n")}
};
`;
}

/** src/kindUsers.ts, from the fields of the kinds of the build under `dist`. */
export function kindUsersSource(dist: string): string {
  let users: ReturnType<typeof usersOf>;
  try {
    users = usersOf(kindModules(dist).map((k) => k.def));
  } catch (e) {
    throw e instanceof KindFileError ? e : new KindFileError((e as Error).message);
  }
  const entry = (u: object) => `{ ${Object.entries(u).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(", ")} }`;
  const rows = Object.entries(users).map(([kind, us]) => `  ${JSON.stringify(kind)}: [\n${us.map((u) => `    ${entry(u)},\n`).join("")}  ],`);
  return `// Generated by \`npm run docs\` (src/scripts/docs/kinds.ts) from the kinds' fields: do not edit.
import type { Users } from "./core/relations";

/**
 * Each kind's users: the kinds whose fields name its objects (src/core/relations.ts). The delete
 * guard and the review read them here, so that neither loads every kind.
 */
export const USERS: Users = {
${rows.join("\n")}
};
`;
}
