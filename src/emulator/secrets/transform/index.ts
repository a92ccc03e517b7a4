import type { Engine } from "../engines";
import { alphabetRoutes } from "./alphabet";
import { templateRoutes } from "./template";

/** The transform engine: one routes list per object file (roles, transformations, stores later). */
export const transformEngine: Engine = {
  type: "transform",
  routes: [...templateRoutes, ...alphabetRoutes],
};
