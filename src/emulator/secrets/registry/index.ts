import type { Engine } from "../context";
import { accessConfigRoutes } from "./accessConfig";
import { registryControlRoutes } from "./control";
import { roleRoutes } from "./role";

/** The service-registry engine: access config, token roles, and tokens generated from them. */
export const registryEngine: Engine = {
  type: "registry",
  routes: [...accessConfigRoutes, ...roleRoutes],
  controlRoutes: registryControlRoutes,
};
