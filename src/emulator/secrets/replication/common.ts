import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { X509Certificate } from "node:crypto";
import type { SystemContext } from "../context";
import { bad, str, type Body } from "../fields";
import { digestMounts, stateOf, type ClusterHandle, type ReplicationNetwork } from "./network";
import type { PrimaryState, ReplicationState, SecondaryState } from "./state";

/** The cluster a request reached, its replication state and the network of all clusters. */
export function here(ctx: SystemContext): { net: ReplicationNetwork; me: ClusterHandle; st: ReplicationState } {
  const net = ctx.rt.cluster.network;
  const me = net.handleOf(ctx.rt.store);
  return { net, me, st: stateOf(me) };
}

export function requirePrimary(st: ReplicationState): PrimaryState {
  if (st.mode !== "primary" || !st.primary) bad(`performance replication is not enabled as primary on this cluster (mode: ${st.mode})`);
  return st.primary;
}

export function requireSecondary(st: ReplicationState): SecondaryState {
  if (st.mode !== "secondary" || !st.secondary) bad(`this cluster is not a performance secondary (mode: ${st.mode})`);
  return st.secondary;
}

/** The error for a second active primary: the seed names the rule, not its text. */
export function secondPrimary(other: ClusterHandle): string {
  return `only one performance primary may be active in a replication set: cluster ${stateOf(other).clusterId} at ${other.apiAddr} ` +
    "is already primary; demote or disable it first";
}

/** `primary_cluster_addr`, checked to be an http(s) address; "" when absent. */
export function clusterAddrOf(b: Body): string {
  const addr = (str(b, "primary_cluster_addr") ?? "").trim();
  if (addr !== "" && !/^https?:\/\/[^/\s]+\/?$/.test(addr)) bad(`primary_cluster_addr must be an address such as https://10.0.0.1:8201, got "${addr}"`);
  return addr.replace(/\/+$/, "");
}

/** `ca_file` and `ca_path` are read on the secondary as the real service does: they must exist. */
export function caOf(b: Body): { caFile: string; caPath: string } {
  const caFile = str(b, "ca_file") ?? "";
  const caPath = str(b, "ca_path") ?? "";
  const problems: string[] = [];
  if (caFile !== "") {
    try {
      new X509Certificate(readFileSync(caFile));
    } catch {
      problems.push(`ca_file must be a readable PEM CA certificate file: ${caFile}`);
    }
  }
  if (caPath !== "" && !(existsSync(caPath) && statSync(caPath).isDirectory())) problems.push(`ca_path must be a directory of PEM files: ${caPath}`);
  if (problems.length > 0) bad(...problems);
  return { caFile, caPath };
}

export function freshPrimary(me: ClusterHandle, clusterAddr: string, lastWal = 0): PrimaryState {
  return {
    clusterAddr: clusterAddr || me.apiAddr,
    lastWal,
    digest: digestMounts(me.store.data.secrets.mounts),
    pending: Object.create(null),
    secondaries: Object.create(null),
    filters: Object.create(null),
  };
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
