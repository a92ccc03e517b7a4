// The npm tarball as users get it, shared by the package tests.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { root } from "../support/dist";

export const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Packs the built package into `dir` and returns the tarball's path. */
export function packTarball(dir: string): string {
  if (!fs.existsSync(path.join(root, "dist/src/index.d.ts"))) throw new Error("dist/ is missing: run npm run build (npm test does)");
  const out = execFileSync(npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return path.join(dir, (JSON.parse(out) as { filename: string }[])[0]!.filename);
}
