import { jsonReply, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import { EMULATOR_VERSION } from "../../version";
import type { SystemContext } from "../context";

/**
 * `sys/health`: answered without a token, outside the data envelope, as probes and load balancers
 * expect. The emulator is always initialized, unsealed and active.
 */
function health(ctx: SystemContext): Reply {
  const st = ctx.rt.store.data.secrets.replication;
  return jsonReply(200, {
    initialized: true,
    sealed: false,
    standby: false,
    performance_standby: false,
    replication_performance_mode: st.mode,
    replication_dr_mode: "disabled",
    server_time_utc: Math.floor(Date.now() / 1000),
    version: EMULATOR_VERSION,
    cluster_name: `emulator-cluster-${ctx.rt.cluster.index}`,
    cluster_id: st.clusterId,
  });
}

export const healthRoutes: Route<SystemContext>[] = [
  { method: "GET", path: "health", handler: health, open: true },
  { method: "HEAD", path: "health", handler: health, open: true },
];
