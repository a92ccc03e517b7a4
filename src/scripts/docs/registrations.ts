/**
 * Each emulator folder's registrations, from the build: a folder of src/emulator whose index holds
 * the block (src/emulator/runs, src/emulator/secrets/<area>) imports every file of its own that exports the
 * service's rows (an export named `...Routes`; the control rows live in `control*.ts` files and
 * are the area's), and lists them in `FOLDER_ROUTES` in the block's order, the order its router
 * matches them; and every kind whose ids the service assigns (a file's `ASSIGNED_IDS`, as
 * `PUT /_emulator/next-ids` names it) in `FOLDER_ASSIGNED_IDS`. So an object's emulator model is
 * its one file: `npm run docs` registers it, and what the folder's index does with the lists is
 * written once. Read from the build like the kinds; the emulator still imports nothing from the
 * provider: only this build step reads both.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { hasBlock, withBlock, type BlockLine } from "./blocks";

/** An array of route rows (method, path, handler), as a router takes them. */
const isRoutes = (v: unknown) => Array.isArray(v) && v.every((r) => typeof r?.method === "string" && typeof r?.path === "string" && typeof r?.handler === "function");

/** What one file of a folder registers: the names of its service rows' exports, and the name its kind of assigned ids is imported as, if it has one. */
interface Registered {
  routes: string[];
  ids?: string;
}

/** The block's line of each file of `dir` (under dist) that registers something, in file order, with what it registers. */
function filesOf(dir: string): Map<string, Registered & { line: BlockLine }> {
  const out = new Map<string, Registered & { line: BlockLine }>();
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith(".js") && n !== "index.js" && !n.startsWith("control")).sort()) {
    const base = name.replace(/\.js$/, "");
    const mod = require(path.join(dir, name)) as Record<string, unknown>;
    const routes = Object.entries(mod).filter(([k, v]) => k.endsWith("Routes") && isRoutes(v)).map(([k]) => k);
    const ids = typeof mod.ASSIGNED_IDS === "string" ? `${base}Ids` : undefined;
    if (routes.length === 0 && ids === undefined) continue;
    const names = [...(ids ? [`ASSIGNED_IDS as ${ids}`] : []), ...routes];
    out.set(`./${base}`, { routes, ids, line: { module: `./${base}`, text: `import { ${names.join(", ")} } from "./${base}";` } });
  }
  return out;
}

/** The two lists after the imports, in the block's order. */
function listsOf(files: Map<string, Registered>): (ordered: BlockLine[]) => string[] {
  return (ordered) => {
    const registered = ordered.map((l) => files.get(l.module)!);
    return [
      "/** The service's rows of this folder's files, in the order above: the router takes the first that matches. */",
      `const FOLDER_ROUTES = [${registered.flatMap((r) => r.routes.map((n) => `...${n}`)).join(", ")}];`,
      "/** This folder's kinds whose ids the service assigns, as `PUT /_emulator/next-ids` names them. */",
      `const FOLDER_ASSIGNED_IDS: readonly string[] = [${registered.flatMap((r) => (r.ids ? [r.ids] : [])).join(", ")}];`,
    ];
  };
}

/** Each emulator folder index holding the block (relative to the package folder) and its text with the block written anew. */
export function registrationFiles(root: string): { file: string; text: string }[] {
  const folders = fs.readdirSync(path.join(root, "src/emulator"), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name === "index.ts" && hasBlock(path.join(e.parentPath, e.name)))
    .map((e) => path.relative(root, e.parentPath).split(path.sep).join("/")).sort();
  return folders.map((folder) => {
    const file = `${folder}/index.ts`;
    const files = filesOf(path.join(root, "dist", folder));
    return { file, text: withBlock(path.join(root, file), [...files.values()].map((f) => f.line), listsOf(files)) };
  });
}
