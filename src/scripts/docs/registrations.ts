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

const isRoutes = (v: unknown) => Array.isArray(v) && v.every((r) => typeof r?.method === "string" && typeof r?.path === "string" && typeof r?.handler === "function");
const camel = (file: string) => file.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());

/** What one file of a folder registers: its service rows' exports and its kind of assigned ids, if any. */
function registered(file: string): { routes: string[]; ids: boolean } {
  const mod = require(file) as Record<string, unknown>;
  return {
    routes: Object.entries(mod).filter(([k, v]) => k.endsWith("Routes") && isRoutes(v)).map(([k]) => k),
    ids: typeof mod.ASSIGNED_IDS === "string",
  };
}

/** The block's line of each file of `dir` (under dist) that registers something, in file order. */
function linesOf(dir: string): BlockLine[] {
  const out: BlockLine[] = [];
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith(".js") && n !== "index.js" && !n.startsWith("control")).sort()) {
    const base = name.replace(/\.js$/, "");
    const { routes, ids } = registered(path.join(dir, name));
    if (routes.length === 0 && !ids) continue;
    const names = [...(ids ? [`ASSIGNED_IDS as ${camel(base)}Ids`] : []), ...routes];
    out.push({ module: `./${base}`, text: `import { ${names.join(", ")} } from "./${base}";` });
  }
  return out;
}

/** The lists after the imports, in their order. */
function lists(ordered: BlockLine[]): string[] {
  const names = (l: BlockLine) => /import \{ (.*) \} from/.exec(l.text)![1]!.split(", ");
  const routes = ordered.flatMap((l) => names(l).filter((n) => n.endsWith("Routes")).map((n) => `...${n}`));
  const ids = ordered.flatMap((l) => names(l).filter((n) => n.startsWith("ASSIGNED_IDS as ")).map((n) => n.slice("ASSIGNED_IDS as ".length)));
  return [
    "/** The service's rows of this folder's files, in the order above: the router takes the first that matches. */",
    `const FOLDER_ROUTES = [${routes.join(", ")}];`,
    "/** This folder's kinds whose ids the service assigns, as `PUT /_emulator/next-ids` names them. */",
    `const FOLDER_ASSIGNED_IDS: readonly string[] = [${ids.join(", ")}];`,
  ];
}

/** Each emulator folder index holding the block (relative to the package folder) and its text with the block written anew. */
export function registrationFiles(root: string): { file: string; text: string }[] {
  const folders = fs.readdirSync(path.join(root, "src/emulator"), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name === "index.ts" && hasBlock(path.join(e.parentPath, e.name)))
    .map((e) => path.relative(root, e.parentPath).split(path.sep).join("/")).sort();
  return folders.map((folder) => {
    const file = `${folder}/index.ts`;
    return { file, text: withBlock(path.join(root, file), linesOf(path.join(root, "dist", folder)), lists) };
  });
}
