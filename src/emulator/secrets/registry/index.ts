import type { Engine } from "../context";
import { registryControlRoutes } from "./control";
// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
import { accessConfigRoutes } from "./accessConfig";
import { roleRoutes } from "./role";
/** The service's rows of this folder's files, in the order above: the router takes the first that matches. */
const FOLDER_ROUTES = [...accessConfigRoutes, ...roleRoutes];
/** This folder's kinds whose ids the service assigns, as `PUT /_emulator/next-ids` names them. */
const FOLDER_ASSIGNED_IDS: readonly string[] = [];
// (end of what npm run docs writes)

/** The service-registry engine: access config, token roles, and tokens generated from them. */
export const registryEngine: Engine = {
  type: "registry",
  routes: FOLDER_ROUTES,
  assignedIds: FOLDER_ASSIGNED_IDS,
  controlRoutes: registryControlRoutes,
};
