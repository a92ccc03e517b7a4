import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SystemContext } from "../context";
import { bad, body, guarded, str, type Body } from "../fields";
import { freshPrimary, here, secondPrimary } from "./network";
import { disableReplication, idleSecondary, newClusterId, type PrimaryState, type ReplicationState } from "./state";

// Routes relative to `sys/`.
export const PRIMARY_PATH = "replication/performance/primary";
const P = PRIMARY_PATH;

export function requirePrimary(st: ReplicationState): PrimaryState {
  if (st.mode !== "primary" || !st.primary) bad(`performance replication is not enabled as primary on this cluster (mode: ${st.mode})`);
  return st.primary;
}

/** `primary_cluster_addr`, checked to be an http(s) address; "" when absent. */
export function clusterAddrOf(b: Body): string {
  const addr = (str(b, "primary_cluster_addr") ?? "").trim();
  if (addr !== "" && !/^https?:\/\/[^/\s]+\/?$/.test(addr)) bad(`primary_cluster_addr must be an address such as https://10.0.0.1:8201, got "${addr}"`);
  return addr.replace(/\/+$/, "");
}

function enable(ctx: SystemContext, req: Incoming): Reply {
  const { net, me, st } = here(ctx);
  const addr = clusterAddrOf(body(req));
  if (st.mode === "primary") bad("performance replication is already enabled as primary on this cluster");
  if (st.mode === "secondary") bad("this cluster is a performance secondary: promote it (secondary/promote) or disable it first");
  const other = net.activePrimary();
  if (other) bad(secondPrimary(other));
  st.mode = "primary";
  st.clusterId = newClusterId();
  st.setId = st.clusterId;
  st.primary = freshPrimary(me, addr);
  delete st.secondary;
  return emptyReply(204);
}

/** Keeps the cluster id and the primary's registrations, so a promote back restores them. */
function demote(ctx: SystemContext): Reply {
  const { me, st } = here(ctx);
  const p = requirePrimary(st);
  st.mode = "secondary";
  st.secondary = idleSecondary(Object.keys(me.store.data.secrets.mounts).sort(), p.lastWal);
  return emptyReply(204);
}

/** Forgets the set: a later enable makes a new cluster id and lineage, so old secondaries need a wipe. */
function disable(ctx: SystemContext): Reply {
  const { st } = here(ctx);
  requirePrimary(st);
  disableReplication(st);
  return emptyReply(204);
}

export const performancePrimaryRoutes: Route<SystemContext>[] = [
  { method: "POST", path: `${P}/enable`, handler: guarded(enable) },
  { method: "POST", path: `${P}/demote`, handler: guarded(demote) },
  { method: "POST", path: `${P}/disable`, handler: guarded(disable) },
];
