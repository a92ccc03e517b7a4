/**
 * The thresholds of the ready pack's policies: each policy's config schema (what `pulumi preview
 * --policy-pack-config FILE` may set for it, checked by the CLI against the schema, defaults filled
 * in), and the reading of the config a policy is given.
 */
import type { PolicyConfigSchema } from "@pulumi/policy";
import { seconds } from "../secrets/duration";

/** Durations as the secrets service takes them: integer seconds or text with units ("90s", "1h30m", "24h"). */
const DURATION = "^(\\d+|(\\d+(\\.\\d+)?(ms|s|m|h|d))+)$";

/** A duration threshold of a policy's config. */
export function durationSetting(description: string, dflt: string): PolicyConfigSchema["properties"][string] {
  return { type: "string", pattern: DURATION, default: dflt, description };
}

/** A list of names (hosts, domains, mounts, objects) in a policy's config. */
export function namesSetting(description: string, dflt: string[] = []): PolicyConfigSchema["properties"][string] {
  return { type: "array", items: { type: "string" }, default: dflt, description };
}

/**
 * The config a policy runs with: its schema's defaults, then what the engine configured. The CLI
 * fills in the defaults itself; a policy run without the engine's configuration (a unit test
 * calling it directly) still gets them.
 */
export function configOf<T extends Record<string, unknown>>(schema: PolicyConfigSchema, given: object): T {
  const out: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(schema.properties)) if (typeof s === "object" && s.default !== undefined) out[k] = s.default;
  return { ...out, ...given } as T;
}

/** Seconds of a duration; 0 for "0" (which the service reads as "no limit" or "never expires"). */
export function secondsOf(value: unknown): number | undefined {
  return seconds(value);
}

/** Loopback: traffic to it never leaves the machine. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/** The host of a URL, or undefined when `url` is not one. */
export function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/** Whether `url` uses plain http to a host that is neither loopback nor allowed in `allowed`. */
export function plainHttpOutside(url: string, allowed: readonly string[]): boolean {
  if (!/^http:\/\//i.test(url)) return false;
  const host = hostOf(url);
  return host !== undefined && !isLoopback(host) && !allowed.map((a) => a.toLowerCase()).includes(host.replace(/^\[|\]$/g, "").toLowerCase());
}
