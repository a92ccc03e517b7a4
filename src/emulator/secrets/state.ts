/**
 * The secrets service's stored model: the mounted engines (each engine keeps its own kinds in
 * `objects`, see the engine's state.ts) and the parts at fixed paths, each from its area's state.ts.
 */
import { initialIdentity, type IdentityState } from "./identity/state";
import { emptyMfa, type MfaState } from "./mfa/state";
import { emptyPlugins, type PluginState } from "./plugins/state";
import { emptyReplication, type ReplicationState } from "./replication/state";

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

/** The secrets service's initial state. */
export function initialSecretsState(): SecretsState {
  return {
    mounts: Object.fromEntries(Object.entries(DEFAULT_MOUNTS).map(([path, type]) => [path, { type, objects: {} }])),
    identity: initialIdentity(),
    mfa: emptyMfa(),
    plugins: emptyPlugins(),
    replication: emptyReplication(),
  };
}
