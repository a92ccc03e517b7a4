import { createHash } from "node:crypto";
import type { Mount, SecretsState } from "../state";
import type { Store } from "../../persistence/store";
import { hasOwn, nullProto } from "../../util";
import { admits, type PrimaryState, type Registration, type ReplicationState } from "./state";

/** A cluster's storage, as far as replication reads it (clusterRuntime.ts cannot be imported here: it imports this file). */
export type SecretsStore = Store<{ secrets: SecretsState }, object>;

/** One cluster of the emulator: its storage and the address it answers on (`http://host:port`). */
export interface ClusterHandle {
  index: number;
  apiAddr: string;
  store: SecretsStore;
}

/** The replication state of a cluster (a handle, or a runtime: both hold the cluster's store). */
export const stateOf = (c: { store: SecretsStore }): ReplicationState => c.store.data.secrets.replication;
const mountsOf = (c: ClusterHandle): Record<string, Mount> => c.store.data.secrets.mounts;

/** The cluster a request reached (a handler's context: its runtime holds the network), its replication state and the network of all clusters. */
export function here(ctx: { rt: { store: SecretsStore; cluster: { network: ReplicationNetwork } } }): { net: ReplicationNetwork; me: ClusterHandle; st: ReplicationState } {
  const net = ctx.rt.cluster.network;
  const me = net.handleOf(ctx.rt.store);
  return { net, me, st: stateOf(me) };
}

/** The error for a second active primary: the seed names the rule, not its text. */
export function secondPrimary(other: ClusterHandle): string {
  return `only one performance primary may be active in a replication set: cluster ${stateOf(other).clusterId} at ${other.apiAddr} ` +
    "is already primary; demote or disable it first";
}

const NOTHING = Symbol("empty map");

/**
 * Keys sorted at every level, so equal storage always hashes the same. A map holding nothing (also
 * after dropping maps holding nothing) counts as absent: engines create the bag of a kind on first
 * read, which changes nothing that matters.
 */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== "object" || value === null) return value;
  const obj = value as Record<string, unknown>;
  const entries = Object.keys(obj).sort().map((k) => [k, canonical(obj[k])]).filter(([, v]) => v !== NOTHING);
  return entries.length === 0 ? NOTHING : entries;
}

/** SHA-256 over the given mounts: the primary's and a secondary's `merkle_root`. */
export function digestMounts(mounts: Record<string, Mount>, paths = Object.keys(mounts)): string {
  const picked = [...paths].sort().map((p) => [p, canonical(mounts[p])]);
  return createHash("sha256").update(JSON.stringify(picked)).digest("hex");
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

/** Mount paths `a` and `b` would collide (equal, or one nested in the other). */
const overlaps = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

/**
 * The emulator's clusters, which form one replication set: at most one of them may be an active
 * primary. Replication is in-process: after every request that may have changed something, settle()
 * counts a new WAL on the primary when its storage changed and copies the replicated mounts (deep
 * clones, filtered per secondary) to every connected secondary.
 */
export class ReplicationNetwork {
  readonly clusters: ClusterHandle[] = [];

  add(handle: ClusterHandle): void {
    this.clusters.push(handle);
  }

  handleOf(store: SecretsStore): ClusterHandle {
    const found = this.clusters.find((c) => c.store === store);
    if (!found) throw new Error("store is not a cluster of this emulator");
    return found;
  }

  /** The cluster currently replicating under `clusterId` (any mode but disabled). */
  byClusterId(clusterId: string): ClusterHandle | undefined {
    if (clusterId === "") return undefined;
    return this.clusters.find((c) => stateOf(c).mode !== "disabled" && stateOf(c).clusterId === clusterId);
  }

  /** The cluster answering at an API address (`http://host:port`, with or without `/v1`). */
  byApiAddr(addr: string): ClusterHandle | undefined {
    const wanted = normaliseAddr(addr);
    return this.clusters.find((c) => normaliseAddr(c.apiAddr) === wanted);
  }

  activePrimary(): ClusterHandle | undefined {
    return this.clusters.find((c) => stateOf(c).mode === "primary");
  }

  /** The primary a secondary is connected to and its registration there, when the link is up. */
  link(c: ClusterHandle): { primary: ClusterHandle; reg: Registration } | undefined {
    const st = stateOf(c);
    const sec = st.secondary;
    if (st.mode !== "secondary" || !sec || sec.primaryClusterId === "") return undefined;
    const primary = this.clusters.find((o) => o !== c && stateOf(o).mode === "primary" && stateOf(o).clusterId === sec.primaryClusterId);
    const regs = primary && stateOf(primary).primary?.secondaries;
    const reg = regs && hasOwn(regs, sec.secondaryId) ? regs[sec.secondaryId] : undefined;
    if (!primary || !reg || reg.clusterId !== st.clusterId) return undefined;
    return { primary, reg };
  }

  /** The secondary cluster registered on a primary under `reg`, when it is connected. */
  connectedSecondary(primary: ClusterHandle, reg: Registration): ClusterHandle | undefined {
    const c = this.byClusterId(reg.clusterId);
    return c && this.link(c)?.primary === primary ? c : undefined;
  }

  settle(): void {
    // Formatted only when a secondary syncs: settle runs after every request.
    let stamp: string | undefined;
    const now = () => (stamp ??= new Date().toISOString());
    for (const c of this.clusters) {
      const p = stateOf(c).mode === "primary" ? stateOf(c).primary : undefined;
      if (!p) continue;
      const digest = digestMounts(mountsOf(c));
      if (digest === p.digest) continue;
      p.digest = digest;
      p.lastWal += 1;
      c.store.save();
    }
    for (const c of this.clusters) {
      const l = this.link(c);
      if (!l) continue;
      const st = stateOf(c);
      const sec = st.secondary!;
      const primary = stateOf(l.primary);
      const p = primary.primary!;
      const filter = hasOwn(p.filters, st.clusterId) ? p.filters[st.clusterId] : undefined;
      const key = `${primary.clusterId}|${p.lastWal}|${JSON.stringify(filter ?? null)}`;
      if (sec.syncKey === key) continue;
      const from = mountsOf(l.primary);
      const to = mountsOf(c);
      const allowed = Object.keys(from).filter((m) => admits(filter, m)).sort();
      for (const old of sec.replicatedMounts) if (!allowed.includes(old)) delete to[old];
      for (const path of allowed) {
        for (const m of Object.keys(to)) if (overlaps(m, path)) delete to[m];
        to[path] = nullProto(JSON.parse(JSON.stringify(from[path])) as Mount);
      }
      sec.replicatedMounts = allowed;
      sec.filteredMounts = Object.keys(from).filter((m) => !allowed.includes(m)).map((m) => `${m}/`).sort();
      sec.syncKey = key;
      sec.lastRemoteWal = p.lastWal;
      sec.lastHeartbeat = now();
      l.reg.lastHeartbeat = now();
      c.store.save();
      l.primary.store.save();
    }
  }
}

/** `http://h:1/v1/` and `http://h:1` are the same cluster. */
export function normaliseAddr(addr: string): string {
  return addr.trim().replace(/\/+$/, "").replace(/\/v1$/, "").toLowerCase();
}
