import * as fs from "node:fs";
import * as path from "node:path";

/** Each file under `dir`, recursively, by its path, with its size and time of last change; none when `dir` is absent. */
export function filesUnder(dir: string): { file: string; size: number; mtimeMs: number }[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name)).map((file) => { const st = fs.statSync(file); return { file, size: st.size, mtimeMs: st.mtimeMs }; });
}
