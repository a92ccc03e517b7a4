import type { Engine } from "../context";
import { alphabetRoutes } from "./alphabet";
import { keyRoutes } from "./keys";
import { roleRoutes } from "./role";
import { storeRoutes } from "./store";
import { templateRoutes } from "./template";
import { tokenStateRoutes } from "./tokenState";
import { transformationRoutes } from "./transformation";
import { valueRoutes } from "./values";

/** The transform engine: one routes list per object file. */
export const transformEngine: Engine = {
  type: "transform",
  routes: [...templateRoutes, ...alphabetRoutes, ...roleRoutes, ...transformationRoutes, ...storeRoutes, ...valueRoutes, ...tokenStateRoutes, ...keyRoutes],
};
