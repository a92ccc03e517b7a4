import type { SecretsPrincipal } from "../auth";
import type { Runtime } from "../runtime";
import type { Mount } from "../state";

export interface SecretsContext {
  rt: Runtime;
  principal: SecretsPrincipal;
  mountPath: string;
  mount: Mount;
}
