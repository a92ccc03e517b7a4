import * as fs from "node:fs";
import * as path from "node:path";

/**
 * The compiled file `name` beside the module `filename`, for a Node process started with it: from
 * dist/, its neighbour; from the TypeScript sources (vitest runs src/), the one tsc put under dist/.
 */
export function compiledPath(filename: string, name: string): string {
  const dir = path.dirname(filename);
  if (filename.endsWith(".js")) return path.join(dir, name);
  let top = dir;
  while (!fs.existsSync(path.join(top, "package.json")) && path.dirname(top) !== top) top = path.dirname(top);
  return path.join(top, "dist", path.relative(top, dir), name);
}
