import { randomUUID } from "node:crypto";
import { randomHex } from "../../util";

/**
 * What one cluster keeps about performance replication, in its own state (so it is sealed in the
 * state file with everything else and `reset` makes the cluster disabled again). Links between
 * clusters are never stored as references: a secondary names its primary by cluster id, and whether
 * the two are connected is worked out from both sides each time (network.ts).
 */
export type ReplicationMode = "disabled" | "primary" | "secondary";

export interface PathsFilter {
  mode: "allow" | "deny";
  /** Mount paths with a trailing slash, sorted, without duplicates. */
  paths: string[];
}

/** An activation token issued by secondary-token and not used yet. */
export interface PendingActivation {
  /** The `id` given to secondary-token: the secondary's name on this primary. */
  id: string;
  accessor: string;
  created: string;
  /** Unix ms. */
  expires: number;
}

/** A secondary that activated with a token of this primary. */
export interface Registration {
  /** The secondary's own cluster id (the key of paths filters). */
  clusterId: string;
  apiAddr: string;
  clusterAddr: string;
  nodeId: string;
  activatedAt: string;
  /** Last time data was streamed to it; "" before the first sync. */
  lastHeartbeat: string;
}

export interface PrimaryState {
  /** Address given to secondaries (`primary_cluster_addr`, else this cluster's own address). */
  clusterAddr: string;
  /** Counts changes of the replicated storage; `digest` is the storage it was counted at. */
  lastWal: number;
  digest: string;
  /** Keyed by SHA-256 of the activation secret: the secret itself is never kept. */
  pending: Record<string, PendingActivation>;
  /** Keyed by secondary id. */
  secondaries: Record<string, Registration>;
  /** Keyed by the secondary's cluster id. */
  filters: Record<string, PathsFilter>;
}

export interface SecondaryState {
  /** "" when no primary is known (a demoted primary, or after update-primary with a blank token). */
  secondaryId: string;
  primaryClusterId: string;
  primaryClusterAddr: string;
  primaryApiAddr: string;
  knownPrimaryClusterAddrs: string[];
  caFile: string;
  caPath: string;
  lastRemoteWal: number;
  lastHeartbeat: string;
  /** Mount paths whose content comes from the primary; writes to them are refused here. */
  replicatedMounts: string[];
  /** Primary mounts the paths filter withheld at the last sync. */
  filteredMounts: string[];
  /** What the last sync copied (primary, WAL, filter), so an unchanged state is not copied again. */
  syncKey: string;
}

export interface ReplicationState {
  mode: ReplicationMode;
  /** New on every enable; kept by demote and promote. "" while disabled. */
  clusterId: string;
  /**
   * The lineage of this cluster's storage: the cluster id of the primary the set was formed around.
   * update-primary (no wipe) only joins a primary of the same lineage; a primary that was disabled
   * and enabled again starts a new one, so its old secondaries need a wipe (secondary/enable).
   */
  setId: string;
  /** This cluster's node, as secondaries' entries in a primary's status name it. */
  nodeId: string;
  /** Present while primary, and kept by demote so a promote back restores its secondaries. */
  primary?: PrimaryState;
  secondary?: SecondaryState;
  /** From generate-public-key: X25519, DER in base64 (the private key never leaves the cluster). */
  keyPair?: { publicKey: string; privateKey: string };
}

export function emptyReplication(): ReplicationState {
  return { mode: "disabled", clusterId: "", setId: "", nodeId: `node-${randomHex(8)}` };
}

/** A disable, by either role: the cluster leaves its set (a later enable makes a new id and lineage). */
export function disableReplication(st: ReplicationState): void {
  st.mode = "disabled";
  st.clusterId = "";
  st.setId = "";
  delete st.primary;
  delete st.secondary;
}

export function idleSecondary(replicatedMounts: string[], lastRemoteWal: number): SecondaryState {
  return {
    secondaryId: "",
    primaryClusterId: "",
    primaryClusterAddr: "",
    primaryApiAddr: "",
    knownPrimaryClusterAddrs: [],
    caFile: "",
    caPath: "",
    lastRemoteWal,
    lastHeartbeat: "",
    replicatedMounts,
    filteredMounts: [],
    syncKey: "",
  };
}

export const newClusterId = () => randomUUID();

/** `transform`, `/transform/` and `transform/` all name the mount `transform/`. */
export function filterPath(path: string): string {
  return `${path.trim().replace(/^\/+|\/+$/g, "")}/`;
}

/**
 * Whether a mount (stored without a trailing slash) replicates under a filter. A filter path names
 * a mount, or a prefix of nested mount paths (a namespace); no filter replicates everything.
 */
export function admits(filter: PathsFilter | undefined, mountPath: string): boolean {
  if (!filter) return true;
  const listed = filter.paths.some((p) => `${mountPath}/`.startsWith(p));
  return filter.mode === "allow" ? listed : !listed;
}
