/**
 * The secrets service's stored model: the mounted engines (each engine keeps its own kinds in
 * `objects`, see the engine's state.ts) and the parts at fixed paths, each from its area's state.ts.
 */
import type { IdentityState } from "./identity/state";
import type { MfaState } from "./mfa/state";
import type { PluginState } from "./plugins/state";
import type { ReplicationState } from "./replication/state";
import { isRecord } from "../util";

/** An engine instance; `objects[kind][name]` so each object file owns one kind. */
export interface Mount {
  type: string;
  objects: Record<string, Record<string, unknown>>;
}

export interface SecretsState {
  mounts: Record<string, Mount>;
  /** Parts of the service at fixed paths, not mounts: `identity/` and `sys/plugins/`. */
  identity: IdentityState;
  mfa: MfaState;
  plugins: PluginState;
  /** This cluster's performance-replication role (`sys/replication/performance/`). */
  replication: ReplicationState;
}

/** Engines mounted on a fresh emulator: mount path → engine type. */
export const DEFAULT_MOUNTS: Record<string, string> = { transform: "transform", keymgmt: "keymgmt", directory: "directory", registry: "registry" };

/** The mount table of a fresh emulator. */
export function initialMounts(): Record<string, Mount> {
  return Object.fromEntries(Object.entries(DEFAULT_MOUNTS).map(([path, type]) => [path, { type, objects: {} }]));
}

/** A restored mount table's problem, if any: every mount names one of `types` and holds a map of objects. */
export function mountProblem(mounts: Record<string, unknown>, types: string[]): string | undefined {
  for (const [path, mount] of Object.entries(mounts)) {
    if (!isRecord(mount) || typeof mount.type !== "string" || !types.includes(mount.type) || !isRecord(mount.objects)) {
      return `mount ${JSON.stringify(path)} must be {type: ${types.join(" | ")}, objects: {...}}`;
    }
  }
  return undefined;
}
