import type { Engine } from "../context";
import { checkOutRoutes } from "./checkOut";
import { configRoutes } from "./config";
import { directoryControlRoutes } from "./control";
import { librarySetRoutes } from "./librarySet";
import { roleRoutes } from "./role";
import { rotateRoutes } from "./rotate";

/**
 * The directory engine: config, roles with rotated passwords, library sets lent through
 * check-out and check-in, and rotations. It works on a real LDAP server when the config's
 * `url` answers, otherwise on a built-in directory whose accounts `/_emulator/directory` adds.
 */
export const directoryEngine: Engine = {
  type: "directory",
  routes: [...configRoutes, ...roleRoutes, ...librarySetRoutes, ...checkOutRoutes, ...rotateRoutes],
  controlRoutes: directoryControlRoutes,
};
