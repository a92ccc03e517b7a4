import type { FixedFolder } from "../context";
// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
import { ASSIGNED_IDS as entityAliasIds, entityAliasRoutes } from "./entityAlias";
/** The service's rows of this folder's files, in the order above: the router takes the first that matches. */
const FOLDER_ROUTES = [...entityAliasRoutes];
/** This folder's kinds whose ids the service assigns, as `PUT /_emulator/next-ids` names them. */
const FOLDER_ASSIGNED_IDS: readonly string[] = [entityAliasIds];
// (end of what npm run docs writes)

/** Identity's entity aliases, at `identity/` (dual-factor methods share the prefix from their own folder). */
export const identityFolder: FixedFolder = { routes: FOLDER_ROUTES, assignedIds: FOLDER_ASSIGNED_IDS };
