import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { leasedReply, listReply } from "../envelope";
import { bad, type Body, body, bool, guarded, readOne, str, strList } from "../fields";
import { formatDuration, parseDuration } from "../duration";
import { own } from "../objects";
import { accessOf, mint, roles, type RegistryRole } from "./state";

export const CLIENT_NEEDS_POLICY = "Use either a policy document, a list of policies or roles, or set token_type to management";
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function duration(b: Body, key: string): number | undefined {
  if (b[key] === undefined || b[key] === null || b[key] === "") return undefined;
  const seconds = parseDuration(b[key]);
  if (seconds === undefined) bad(`${key} must be integer seconds or a duration such as "1h"`);
  return seconds;
}

/** A write replaces the whole role, as the real-world engine does; both parameter variants are read. */
function write(ctx: SecretsContext, req: Incoming): Reply {
  const b = body(req);
  const problems: string[] = [];
  const tokenType = str(b, "token_type") || "client";
  if (tokenType !== "client" && tokenType !== "management") problems.push("token_type must be client or management");
  const policy = str(b, "policy") ?? "";
  if (policy !== "" && (!BASE64.test(policy) || Buffer.from(policy, "base64").toString("utf8").trim() === "")) {
    problems.push("policy must be a base64-encoded ACL policy");
  }
  const policies = strList(b, "policies", true) ?? [];
  const ttl = duration(b, "ttl");
  const lease = duration(b, "lease");
  if (ttl !== undefined && lease !== undefined && ttl !== lease) problems.push("give ttl (registry 1.4 and above) or lease (older registries), not both");
  const maxTtl = duration(b, "max_ttl") ?? 0;
  const effective = ttl ?? lease ?? 0;
  if (maxTtl > 0 && effective > maxTtl) problems.push(`ttl (${effective}s) must not exceed max_ttl (${maxTtl}s)`);
  if (tokenType === "client" && policy === "" && policies.length === 0) problems.push(CLIENT_NEEDS_POLICY);
  if (problems.length > 0) bad(...problems);
  roles(ctx)[req.params.name] = { token_type: tokenType as RegistryRole["token_type"], policy, policies, local: bool(b, "local") ?? false, ttl: effective, max_ttl: maxTtl };
  return emptyReply(204);
}

function present(role: RegistryRole): Record<string, unknown> {
  return { ...role, policies: [...role.policies], lease: formatDuration(role.ttl) };
}

/** A new token per call, carrying the role's policies and lease. */
function creds(ctx: SecretsContext, req: Incoming): Reply {
  const role = own(roles(ctx), req.params.name);
  if (!role) bad(`role "${req.params.name}" does not exist`);
  if (!accessOf(ctx)) bad("no registry access is configured: POST config/access first");
  const { token, accessor } = mint(ctx.mount, { type: role.token_type, policies: [...role.policies], local: role.local, role: req.params.name });
  return leasedReply(
    { token, accessor, local: role.local },
    { lease_id: `${ctx.mountPath}/creds/${req.params.name}/${accessor}`, renewable: true, lease_duration: role.ttl },
  );
}

export const roleRoutes: Route<SecretsContext>[] = [
  { method: "POST", path: "roles/:name", handler: guarded(write) },
  { method: "GET", path: "roles/:name", handler: readOne((ctx, req) => own(roles(ctx), req.params.name), present) },
  { method: "LIST", path: "roles", handler: (ctx) => listReply(Object.keys(roles(ctx))) },
  {
    method: "DELETE",
    path: "roles/:name",
    handler: (ctx, req) => {
      delete roles(ctx)[req.params.name];
      return emptyReply(204);
    },
  },
  { method: "GET", path: "creds/:name", handler: guarded(creds) },
];
