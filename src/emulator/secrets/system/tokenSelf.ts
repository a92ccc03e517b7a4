import { createHash } from "node:crypto";
import { header, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SystemContext } from "../context";
import { dataReply } from "../envelope";

/**
 * `auth/token/lookup-self`: what the calling token is. The root token carries the `root` policy,
 * which is what grants sudo; the user token only `default`. Emulator tokens never expire (ttl 0).
 * The accessor is derived from the token so it is the same across restarts and snapshots.
 */
function lookupSelf(ctx: SystemContext, req: { headers: Parameters<typeof header>[0] }): Reply {
  const token = header(req.headers, "x-svc-token") ?? "";
  const root = ctx.principal.sudo;
  return dataReply({
    accessor: createHash("sha256").update(`accessor:${token}`).digest("hex").slice(0, 24),
    creation_ttl: 0,
    display_name: root ? "root" : "token",
    entity_id: "",
    expire_time: null,
    explicit_max_ttl: 0,
    id: token,
    meta: null,
    num_uses: 0,
    orphan: true,
    path: root ? "auth/token/root" : "auth/token/create",
    policies: root ? ["root"] : ["default"],
    renewable: false,
    ttl: 0,
    type: "service",
  });
}

export const tokenSelfRoutes: Route<SystemContext>[] = [{ method: "GET", path: "token/lookup-self", handler: lookupSelf }];
