import type { Engine } from "../context";
// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
import { templateRoutes } from "./template";
import { alphabetRoutes } from "./alphabet";
import { roleRoutes } from "./role";
import { transformationRoutes } from "./transformations";
import { storeSchemaRoutes } from "./storeSchema";
import { storeRoutes } from "./store";
import { valueRoutes } from "./values";
import { tokenStateRoutes } from "./tokenState";
import { tokenizationKeyConfigRoutes } from "./tokenizationKeyConfig";
/** The service's rows of this folder's files, in the order above: the router takes the first that matches. */
const FOLDER_ROUTES = [...templateRoutes, ...alphabetRoutes, ...roleRoutes, ...transformationRoutes, ...storeSchemaRoutes, ...storeRoutes, ...valueRoutes, ...tokenStateRoutes, ...tokenizationKeyConfigRoutes];
/** This folder's kinds whose ids the service assigns, as `PUT /_emulator/next-ids` names them. */
const FOLDER_ASSIGNED_IDS: readonly string[] = [];
// (end of what npm run docs writes)

/**
 * The transform engine: one routes list per object file, in the order above (the schema's rows
 * before the store's: `stores/builtin/schema` is a schema write, not a built-in store).
 */
export const transformEngine: Engine = {
  type: "transform",
  routes: FOLDER_ROUTES,
  assignedIds: FOLDER_ASSIGNED_IDS,
  // Tokenized values (and their digests) are only counted on the page, never listed nor opened.
  page: { sealed: ["tokens"] },
};
