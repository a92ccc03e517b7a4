import { randomUUID } from "node:crypto";
import { emptyReply, jsonReply, type Incoming, type Reply } from "../../http";
import type { Route } from "../../router";
import { hasOwn } from "../../util";
import type { SystemContext } from "../context";
import { dataReply, secretsError } from "../envelope";
import { bad, body, guarded, requiredStr, str, strList } from "../fields";
import { parseDuration } from "../duration";
import { digestOf, encryptTo, publicKeyOf, wrappingToken } from "./secondaryToken";
import { admits, filterPath } from "./filter";
import { clusterAddrOf, freshPrimary, here, idleSecondary, newClusterId, requirePrimary, secondPrimary } from "./common";
import type { PrimaryState, Registration } from "./state";

// Routes relative to `sys/`.
const P = "replication/performance/primary";
export const DEFAULT_TOKEN_TTL = 30 * 60;

function enable(ctx: SystemContext, req: Incoming): Reply {
  const { net, me, st } = here(ctx);
  const addr = clusterAddrOf(body(req));
  if (st.mode === "primary") bad("performance replication is already enabled as primary on this cluster");
  if (st.mode === "secondary") bad("this cluster is a performance secondary: promote it (secondary/promote) or disable it first");
  const other = net.activePrimary();
  if (other) bad(secondPrimary(other));
  st.mode = "primary";
  st.clusterId = newClusterId();
  st.setId = st.clusterId;
  st.primary = freshPrimary(me, addr);
  delete st.secondary;
  return emptyReply(204);
}

/** Keeps the cluster id and the primary's registrations, so a promote back restores them. */
function demote(ctx: SystemContext): Reply {
  const { me, st } = here(ctx);
  const p = requirePrimary(st);
  st.mode = "secondary";
  st.secondary = idleSecondary(Object.keys(me.store.data.secrets.mounts).sort(), p.lastWal);
  return emptyReply(204);
}

/** Forgets the set: a later enable makes a new cluster id and lineage, so old secondaries need a wipe. */
function disable(ctx: SystemContext): Reply {
  const { st } = here(ctx);
  requirePrimary(st);
  st.mode = "disabled";
  st.clusterId = "";
  st.setId = "";
  delete st.primary;
  delete st.secondary;
  return emptyReply(204);
}

function secondaryToken(ctx: SystemContext, req: Incoming): Reply {
  const { me, st } = here(ctx);
  const p = requirePrimary(st);
  const b = body(req);
  const problems: string[] = [];
  const id = str(b, "id") ?? "";
  if (id === "") problems.push("missing id");
  const rawTtl = b.ttl;
  const ttl = rawTtl === undefined || rawTtl === null || rawTtl === "" ? DEFAULT_TOKEN_TTL : parseDuration(rawTtl);
  if (ttl === undefined || ttl <= 0) problems.push(`ttl must be a positive duration such as "30m" or seconds, got ${JSON.stringify(rawTtl)}`);
  const publicKeyText = str(b, "secondary_public_key") ?? "";
  const publicKey = publicKeyText === "" ? undefined : publicKeyOf(publicKeyText);
  if (publicKeyText !== "" && !publicKey) problems.push("secondary_public_key must be the base64 X25519 public key returned by secondary/generate-public-key");
  if (id !== "" && hasOwn(p.secondaries, id)) {
    problems.push(`secondary id "${id}" is already in use (cluster ${p.secondaries[id].clusterId}): revoke it with revoke-secondary first, or choose another id`);
  }
  if (problems.length > 0) bad(...problems);
  // A new token for an id replaces the one not used yet.
  for (const [d, pending] of Object.entries(p.pending)) if (pending.id === id) delete p.pending[d];
  const created = new Date();
  const accessor = randomUUID();
  const seconds = ttl as number;
  const token = wrappingToken({ addr: me.apiAddr, cluster_addr: p.clusterAddr, accessor, exp: Math.floor(created.getTime() / 1000) + seconds });
  p.pending[digestOf(token)] = { id, accessor, created: created.toISOString(), expires: created.getTime() + seconds * 1000 };
  const envelope = { request_id: randomUUID(), lease_id: "", lease_duration: 0, renewable: false, warnings: null, auth: null };
  if (publicKey) {
    const sealed = encryptTo(publicKey, JSON.stringify({ token, primary_api_addr: me.apiAddr, primary_cluster_addr: p.clusterAddr }));
    return jsonReply(200, { ...envelope, data: { token: sealed }, wrap_info: null });
  }
  return jsonReply(200, {
    ...envelope,
    data: null,
    wrap_info: { token, ttl: seconds, creation_time: created.toISOString(), creation_path: `sys/${P}/secondary-token`, wrapped_accessor: accessor },
  });
}

/** Disconnects at once; the secondary stays disconnected until it is given a new token. */
function revoke(ctx: SystemContext, req: Incoming): Reply {
  const { st } = here(ctx);
  const p = requirePrimary(st);
  const id = requiredStr(body(req), "id");
  if (hasOwn(p.secondaries, id)) {
    delete p.filters[p.secondaries[id].clusterId];
    delete p.secondaries[id];
  }
  for (const [d, pending] of Object.entries(p.pending)) if (pending.id === id) delete p.pending[d];
  return emptyReply(204);
}

function registered(p: PrimaryState, clusterId: string): Registration | undefined {
  return Object.values(p.secondaries).find((r) => r.clusterId === clusterId);
}

function writeFilter(ctx: SystemContext, req: Incoming): Reply {
  const { st } = here(ctx);
  const p = requirePrimary(st);
  const b = body(req);
  const id = req.params.id;
  const problems: string[] = [];
  if (!registered(p, id)) problems.push(`no secondary with cluster id "${id}" is registered on this primary (the id is the cluster_id in the secondary's status)`);
  const mode = str(b, "mode") || "allow";
  if (mode !== "allow" && mode !== "deny") problems.push(`mode must be allow or deny, got "${mode}"`);
  const paths = strList(b, "paths", true) ?? [];
  paths.forEach((path, i) => filterPath(path) === "/" && problems.push(`paths[${i}] must name a mount or namespace, such as "transform/"`));
  if (problems.length > 0) bad(...problems);
  p.filters[id] = { mode: mode as "allow" | "deny", paths: [...new Set(paths.map(filterPath))].sort() };
  return emptyReply(204);
}

function readFilter(ctx: SystemContext, req: Incoming): Reply {
  const p = requirePrimary(here(ctx).st);
  const f = hasOwn(p.filters, req.params.id) ? p.filters[req.params.id] : undefined;
  return f ? dataReply({ mode: f.mode, paths: [...f.paths] }) : secretsError(404);
}

function deleteFilter(ctx: SystemContext, req: Incoming): Reply {
  const p = requirePrimary(here(ctx).st);
  delete p.filters[req.params.id];
  return emptyReply(204);
}

/** The mounts the secondary's paths filter withholds from it right now. */
function dynamicFilter(ctx: SystemContext, req: Incoming): Reply {
  const { me, st } = here(ctx);
  const p = requirePrimary(st);
  if (!registered(p, req.params.id)) return secretsError(404);
  const filter = hasOwn(p.filters, req.params.id) ? p.filters[req.params.id] : undefined;
  const withheld = Object.keys(me.store.data.secrets.mounts).filter((m) => !admits(filter, m)).map((m) => `${m}/`).sort();
  return dataReply({ dynamic_filtered_mounts: withheld, dynamic_filtered_namespaces: [] });
}

export const primaryRoutes: Route<SystemContext>[] = [
  { method: "POST", path: `${P}/enable`, handler: guarded(enable) },
  { method: "POST", path: `${P}/demote`, handler: guarded(demote) },
  { method: "POST", path: `${P}/disable`, handler: guarded(disable) },
  { method: "POST", path: `${P}/secondary-token`, handler: guarded(secondaryToken), sudo: true },
  { method: "POST", path: `${P}/revoke-secondary`, handler: guarded(revoke) },
  { method: "POST", path: `${P}/paths-filter/:id`, handler: guarded(writeFilter) },
  { method: "GET", path: `${P}/paths-filter/:id`, handler: guarded(readFilter) },
  { method: "DELETE", path: `${P}/paths-filter/:id`, handler: guarded(deleteFilter) },
  { method: "GET", path: `${P}/dynamic-filter/:id`, handler: guarded(dynamicFilter) },
];
