import type { Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SystemContext } from "../context";
import { dataReply } from "../envelope";
import { digestMounts, here } from "./network";

/** Go's zero time in Unix seconds: what the real service reports when no corruption check has run. */
const NEVER_CHECKED = "-62135596800";

/** Needs no token (the route is open). The link of every pair is worked out from both sides now. */
function status(ctx: SystemContext): Reply {
  const { net, me, st } = here(ctx);
  const now = new Date().toISOString();
  if (st.mode === "primary" && st.primary) {
    const p = st.primary;
    const ids = Object.keys(p.secondaries).sort();
    return dataReply({
      mode: "primary",
      cluster_id: st.clusterId,
      primary_cluster_addr: p.clusterAddr,
      state: "running",
      known_secondaries: ids,
      last_wal: p.lastWal,
      merkle_root: p.digest,
      corrupted_merkle_tree: false,
      last_corruption_check_epoch: NEVER_CHECKED,
      secondaries: ids.map((id) => {
        const reg = p.secondaries[id];
        const up = net.connectedSecondary(me, reg) !== undefined;
        return {
          node_id: reg.nodeId,
          api_address: reg.apiAddr,
          cluster_address: reg.clusterAddr,
          connection_status: up ? "connected" : "disconnected",
          last_heartbeat: up ? now : reg.lastHeartbeat,
          secondary_id: id,
          cluster_id: reg.clusterId,
        };
      }),
    });
  }
  if (st.mode === "secondary" && st.secondary) {
    const s = st.secondary;
    const up = net.link(me) !== undefined;
    const known = s.primaryClusterId !== "";
    return dataReply({
      mode: "secondary",
      cluster_id: st.clusterId,
      known_primary_cluster_addrs: [...s.knownPrimaryClusterAddrs],
      last_remote_wal: s.lastRemoteWal,
      merkle_root: digestMounts(me.store.data.secrets.mounts, s.replicatedMounts.filter((m) => m in me.store.data.secrets.mounts)),
      primaries: known
        ? [{ api_address: s.primaryApiAddr, cluster_address: s.primaryClusterAddr, connection_status: up ? "connected" : "disconnected", last_heartbeat: up ? now : s.lastHeartbeat }]
        : [],
      primary_cluster_addr: s.primaryClusterAddr,
      secondary_id: s.secondaryId,
      // stream-wals while connected; connecting while a known primary does not take it; idle with no primary.
      state: up ? "stream-wals" : known ? "connecting" : "idle",
    });
  }
  return dataReply({ mode: "disabled" });
}

export const statusRoutes: Route<SystemContext>[] = [{ method: "GET", path: "replication/performance/status", handler: status, open: true }];
