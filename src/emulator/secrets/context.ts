import type { Area } from "../area";
import type { SecretsPrincipal } from "../auth";
import type { Route } from "../transport/router";
import type { Data, Runtime } from "../clusterRuntime";
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

/** An engine type, an area of its own (its `/_emulator` rows, what the page only counts); its routes are relative to wherever it is mounted. */
export interface Engine extends Area<Runtime, Data> {
  type: string;
  routes: Route<SecretsContext>[];
}

/** A folder of a part at a fixed path (identity, dual-factor methods, plugins): its service rows and its kinds whose ids the service assigns. */
export interface FixedFolder {
  routes: Route<SystemContext>[];
  assignedIds: readonly string[];
}
