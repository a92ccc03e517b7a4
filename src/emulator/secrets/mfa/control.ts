import { emptyReply, jsonReply, parseJson, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { Runtime } from "../../clusterRuntime";
import { isRecord } from "../../util";

/**
 * `/_emulator/login-enforcements`: the seed has no login-enforcement API, but deleting an MFA
 * method must fail while one uses it, so tests add enforcements here.
 */

const fail = (status: number, error: string): Reply => jsonReply(status, { error });

function put(rt: Runtime, req: Incoming): Reply {
  const parsed = parseJson(req.body);
  if (!parsed.ok) return fail(400, `invalid JSON: ${parsed.error}`);
  const input = parsed.value;
  if (!isRecord(input)) return fail(400, "body must be a JSON object");
  const { name, methodIds } = input;
  if (typeof name !== "string" || name === "") return fail(400, "name is required");
  if (!Array.isArray(methodIds) || methodIds.length === 0) return fail(400, "methodIds must be a non-empty array of MFA method ids");
  const mfa = rt.store.data.secrets.mfa;
  for (const [i, id] of methodIds.entries()) {
    if (typeof id !== "string" || !mfa.dualfactor[id]) return fail(400, `methodIds[${i}]: no MFA method with id ${JSON.stringify(id)}`);
  }
  mfa.loginEnforcements[name] = { name, methodIds: [...new Set(methodIds as string[])] };
  return emptyReply(204);
}

export const mfaControlRoutes: Route<Runtime>[] = [
  { method: "POST", path: "/login-enforcements", handler: put },
  { method: "GET", path: "/login-enforcements", handler: (rt) => jsonReply(200, { loginEnforcements: Object.values(rt.store.data.secrets.mfa.loginEnforcements) }) },
  {
    method: "DELETE",
    path: "/login-enforcements/:name",
    handler: (rt, req) => {
      delete rt.store.data.secrets.mfa.loginEnforcements[req.params.name];
      return emptyReply(204);
    },
  },
];
