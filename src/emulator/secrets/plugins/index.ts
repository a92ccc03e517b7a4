import type { FixedFolder } from "../context";
// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
import { catalogEntryRoutes } from "./catalogEntry";
/** The service's rows of this folder's files, in the order above: the router takes the first that matches. */
const FOLDER_ROUTES = [...catalogEntryRoutes];
/** This folder's kinds whose ids the service assigns, as `PUT /_emulator/next-ids` names them. */
const FOLDER_ASSIGNED_IDS: readonly string[] = [];
// (end of what npm run docs writes)

/** The plugin catalog, at `sys/plugins/`. */
export const pluginsFolder: FixedFolder = { routes: FOLDER_ROUTES, assignedIds: FOLDER_ASSIGNED_IDS };
