import type { Engine } from "../context";
import { alphabetRoutes } from "./alphabet";
import { roleRoutes } from "./role";
import { storeRoutes } from "./store";
import { storeSchemaRoutes } from "./storeSchema";
import { templateRoutes } from "./template";
import { tokenizationKeyConfigRoutes } from "./tokenizationKeyConfig";
import { tokenStateRoutes } from "./tokenState";
import { transformationRoutes } from "./transformations";
import { valueRoutes } from "./values";

/** The transform engine: one routes list per object file. */
export const transformEngine: Engine = {
  type: "transform",
  routes: [
    ...templateRoutes,
    ...alphabetRoutes,
    ...roleRoutes,
    ...transformationRoutes,
    // Before the store rows: `stores/builtin/schema` is a schema write, not a built-in store.
    ...storeSchemaRoutes,
    ...storeRoutes,
    ...valueRoutes,
    ...tokenStateRoutes,
    ...tokenizationKeyConfigRoutes,
  ],
  // Tokenized values (and their digests) are only counted on the page, never listed nor opened.
  page: { sealed: ["tokens"] },
};
