import type { SecretsPrincipal } from "../auth";
import type { Route } from "../transport/router";
import type { Runtime } from "../clusterRuntime";
import type { Mount } from "./state";

/** What a handler of a mounted engine gets: the runtime, the caller, and the mount it was reached at. */
export interface SecretsContext {
  rt: Runtime;
  principal: SecretsPrincipal;
  mountPath: string;
  mount: Mount;
}

/** What handlers at fixed paths (`identity/`, `sys/`) get: there is no mount. */
export type SystemContext = Pick<SecretsContext, "rt" | "principal">;

/** An engine type; its routes are relative to wherever it is mounted. */
export interface Engine {
  type: string;
  routes: Route<SecretsContext>[];
}
