// The program file of a program folder, found as the Node.js language host finds it.
import * as fs from "node:fs";
import * as path from "node:path";

export function programEntry(dir: string): string {
  const pkg = path.join(dir, "package.json");
  const main = fs.existsSync(pkg) ? (JSON.parse(fs.readFileSync(pkg, "utf8")) as { main?: string }).main : undefined;
  const candidates = [...(main ? [main] : []), "index.js", "index.ts"].map((f) => path.resolve(dir, f));
  const found = candidates.find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
  if (!found) throw new Error(`testStack: ${dir} holds no program (package.json main, index.js or index.ts)`);
  return found;
}
