import type { Engine } from "../context";
import { directoryControlRoutes } from "./control";
// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
import { configRoutes } from "./config";
import { roleRoutes } from "./role";
import { librarySetRoutes } from "./librarySet";
import { checkOutRoutes } from "./checkOut";
import { rotateRoutes } from "./rotate";
/** The service's rows of this folder's files, in the order above: the router takes the first that matches. */
const FOLDER_ROUTES = [...configRoutes, ...roleRoutes, ...librarySetRoutes, ...checkOutRoutes, ...rotateRoutes];
/** This folder's kinds whose ids the service assigns, as `PUT /_emulator/next-ids` names them. */
const FOLDER_ASSIGNED_IDS: readonly string[] = [];
// (end of what npm run docs writes)

/**
 * The directory engine: config, roles with rotated passwords, library sets lent through
 * check-out and check-in, and rotations. It works on a real LDAP server when the config's
 * `url` answers, otherwise on a built-in directory whose accounts `/_emulator/directory` adds.
 */
export const directoryEngine: Engine = {
  type: "directory",
  routes: FOLDER_ROUTES,
  assignedIds: FOLDER_ASSIGNED_IDS,
  controlRoutes: directoryControlRoutes,
};
