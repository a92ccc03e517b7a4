import type { Engine } from "../context";
import { keyRoutes } from "./key";
import { keyDistributionRoutes } from "./keyDistribution";
import { kmsProviderRoutes } from "./kmsProvider";

/** The key management engine: keys, KMS providers, and keys distributed to providers. */
export const keymgmtEngine: Engine = {
  type: "keymgmt",
  routes: [...keyRoutes, ...kmsProviderRoutes, ...keyDistributionRoutes],
};
