import type { Route } from "../router";
import type { SecretsContext } from "./context";
import { entityAliasRoutes } from "./identity/entity-alias";
import { directoryEngine } from "./directory";
import { keymgmtEngine } from "./keymgmt";
import { registryEngine } from "./registry";
import { dualFactorRoutes } from "./mfa/dualfactor";
import { catalogRoutes } from "./plugins/catalog";
import { replicationRoutes } from "./replication";
import { transformEngine } from "./transform";

/** An engine type; its routes are relative to wherever it is mounted. */
export interface Engine {
  type: string;
  routes: Route<SecretsContext>[];
}

/** Engine types that can be mounted; adding an engine is one line here. */
export const ENGINES: Record<string, Engine> = {
  [transformEngine.type]: transformEngine,
  [keymgmtEngine.type]: keymgmtEngine,
  [directoryEngine.type]: directoryEngine,
  [registryEngine.type]: registryEngine,
};

/** What handlers at fixed paths get: there is no mount. */
export type SystemContext = Pick<SecretsContext, "rt" | "principal">;

/**
 * Parts of the service that live at fixed paths instead of mounts: prefix → routes relative to it.
 * These prefixes are reserved; nothing can be mounted at or under them.
 */
export const SYSTEM_PATHS: Record<string, Route<SystemContext>[]> = {
  identity: [...entityAliasRoutes, ...dualFactorRoutes],
  sys: [...catalogRoutes, ...replicationRoutes],
};
