import type { Engine } from "../context";
import { distributionRoutes } from "./distribution";
import { keyRoutes } from "./key";
import { kmsRoutes } from "./kms";

/** The key management engine: keys, KMS providers, and keys distributed to providers. */
export const keymgmtEngine: Engine = {
  type: "keymgmt",
  routes: [...keyRoutes, ...kmsRoutes, ...distributionRoutes],
};
