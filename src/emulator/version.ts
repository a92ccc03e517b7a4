import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The package's version, reported by the services' health and ping answers. Found by walking up
 * from this file because it runs both from src/ (tests) and from dist/src/ (the built CLI).
 */
function packageVersion(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; version?: unknown };
    if (pkg.name === "pulumi-svc" && typeof pkg.version === "string") return pkg.version;
  }
  return "0.0.0";
}

export const EMULATOR_VERSION = packageVersion();

/** The run service's API version, sent as TFP-API-Version (go-tfe reads it from GET /ping). */
export const RUN_API_VERSION = "2.6";
