import type { Engine } from "../context";
import { accessRoutes } from "./access";
import { registryRoleRoutes } from "./roles";

/** The service-registry engine: access config, token roles, and tokens generated from them. */
export const registryEngine: Engine = {
  type: "registry",
  routes: [...accessRoutes, ...registryRoleRoutes],
};
