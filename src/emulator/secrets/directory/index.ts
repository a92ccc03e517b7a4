import type { Engine } from "../context";
import { configRoutes } from "./config";
import { libraryRoutes } from "./librarySet";
import { roleRoutes } from "./role";
import { rootRoutes } from "./root";

/**
 * The directory engine: config, roles with rotated passwords, library sets lent through
 * check-out and check-in, and root rotation. It works on a real LDAP server when the config's
 * `url` answers, otherwise on a built-in directory seeded through `/_emulator/directory`.
 */
export const directoryEngine: Engine = {
  type: "directory",
  routes: [...configRoutes, ...roleRoutes, ...libraryRoutes, ...rootRoutes],
};
