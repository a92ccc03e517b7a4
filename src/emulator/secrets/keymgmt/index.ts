import type { Engine } from "../context";
// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
import { keyRoutes } from "./key";
import { kmsProviderRoutes } from "./kmsProvider";
import { keyDistributionRoutes } from "./keyDistribution";
/** The service's rows of this folder's files, in the order above: the router takes the first that matches. */
const FOLDER_ROUTES = [...keyRoutes, ...kmsProviderRoutes, ...keyDistributionRoutes];
/** This folder's kinds whose ids the service assigns, as `PUT /_emulator/next-ids` names them. */
const FOLDER_ASSIGNED_IDS: readonly string[] = [];
// (end of what npm run docs writes)

/** The key management engine: keys, KMS providers, and keys distributed to providers. */
export const keymgmtEngine: Engine = {
  type: "keymgmt",
  routes: FOLDER_ROUTES,
  assignedIds: FOLDER_ASSIGNED_IDS,
};
