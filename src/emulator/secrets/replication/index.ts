import type { FixedFolder } from "../context";
// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
import { statusRoutes } from "./status";
import { performancePrimaryRoutes } from "./performancePrimary";
import { secondaryTokenRoutes } from "./secondaryToken";
import { pathsFilterRoutes } from "./pathsFilter";
import { performanceSecondaryRoutes } from "./performanceSecondary";
/** The service's rows of this folder's files, in the order above: the router takes the first that matches. */
const FOLDER_ROUTES = [...statusRoutes, ...performancePrimaryRoutes, ...secondaryTokenRoutes, ...pathsFilterRoutes, ...performanceSecondaryRoutes];
/** This folder's kinds whose ids the service assigns, as `PUT /_emulator/next-ids` names them. */
const FOLDER_ASSIGNED_IDS: readonly string[] = [];
// (end of what npm run docs writes)

/** Performance replication, at `sys/replication/performance/`: status, primary, secondary tokens, paths filters and secondary. */
export const replicationFolder: FixedFolder = { routes: FOLDER_ROUTES, assignedIds: FOLDER_ASSIGNED_IDS };
