import type { Route } from "../../transport/router";
import type { SystemContext } from "../context";
import { pathsFilterRoutes } from "./pathsFilter";
import { performancePrimaryRoutes } from "./performancePrimary";
import { performanceSecondaryRoutes } from "./performanceSecondary";
import { secondaryTokenRoutes } from "./secondaryToken";
import { statusRoutes } from "./status";

/** Performance replication, at `sys/replication/performance/`: status, primary, secondary tokens, paths filters and secondary. */
export const replicationRoutes: Route<SystemContext>[] = [
  ...statusRoutes,
  ...performancePrimaryRoutes,
  ...secondaryTokenRoutes,
  ...pathsFilterRoutes,
  ...performanceSecondaryRoutes,
];
