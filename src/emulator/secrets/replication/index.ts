import type { Route } from "../../router";
import type { SystemContext } from "../context";
import { primaryRoutes } from "./performancePrimary";
import { secondaryRoutes } from "./performanceSecondary";
import { statusRoutes } from "./status";

/** Performance replication, at `sys/replication/performance/`: status, primary and secondary. */
export const replicationRoutes: Route<SystemContext>[] = [...statusRoutes, ...primaryRoutes, ...secondaryRoutes];
export { ReplicationNetwork, type ClusterHandle } from "./network";
export { guardReplicated } from "./guard";
export { emptyReplication, type ReplicationState } from "./state";
