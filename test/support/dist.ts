import * as fs from "node:fs";
import * as path from "node:path";
import { createRequire } from "node:module";

export const root = path.resolve(__dirname, "../..");

/**
 * Loads a module from the compiled package with Node's own require, so what runs is what users
 * install, not the vitest-transformed source. `npm test` builds first.
 */
export function fromDist<T>(relative: string): T {
  const file = path.join(root, "dist", relative);
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run npm run build (npm test does)`);
  return createRequire(file)(file) as T;
}

/** Environment for child processes with every SVC_* variable removed, so only stack config counts. */
export function withoutSvcEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const k of Object.keys(process.env)) if (k.startsWith("SVC_")) env[k] = undefined;
  return env;
}
