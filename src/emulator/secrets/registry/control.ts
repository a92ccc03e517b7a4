import { jsonReply, parseJson, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { Runtime } from "../../clusterRuntime";
import { isRecord } from "../../util";
import { mint } from "./state";

/**
 * `/_emulator/registry/tokens`: mints an ACL token in the built-in registry, the way an operator
 * bootstraps one on a real registry, so an access config has a management token to use.
 */
function mintToken(rt: Runtime, req: Incoming): Reply {
  const parsed = parseJson(req.body);
  const b = parsed.ok ? parsed.value ?? {} : undefined;
  if (!isRecord(b)) return jsonReply(400, { error: "body must be a JSON object" });
  const path = b.mount ?? "registry";
  const mounts = rt.store.data.secrets.mounts;
  const mount = typeof path === "string" && Object.prototype.hasOwnProperty.call(mounts, path) ? mounts[path] : undefined;
  if (!mount || mount.type !== "registry") return jsonReply(400, { error: `no registry engine is mounted at "${String(path)}"` });
  const type = b.type ?? "management";
  if (type !== "management" && type !== "client") return jsonReply(400, { error: "type must be management or client" });
  return jsonReply(200, mint(mount, { type, policies: [], local: false, role: "" }));
}

export const registryControlRoutes: Route<Runtime>[] = [{ method: "POST", path: "/registry/tokens", handler: mintToken }];
