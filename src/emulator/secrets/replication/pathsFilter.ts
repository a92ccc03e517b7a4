import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import { hasOwn } from "../../util";
import type { SystemContext } from "../context";
import { dataReply, secretsError } from "../envelope";
import { bad, body, guarded, str, strList } from "../fields";
import { here } from "./network";
import { PRIMARY_PATH as P, requirePrimary } from "./performancePrimary";
import { requireSecondary, SECONDARY_PATH as S } from "./performanceSecondary";
import { admits, filterPath, type PrimaryState, type Registration } from "./state";

/**
 * Which mounts replicate to one secondary: `primary/paths-filter/:id`, written on the primary and
 * keyed by the secondary's cluster id, and the mounts it withholds as each side sees them
 * (`primary/dynamic-filter/:id`, `secondary/dynamic-filter/:id`).
 */

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
function primaryDynamicFilter(ctx: SystemContext, req: Incoming): Reply {
  const { me, st } = here(ctx);
  const p = requirePrimary(st);
  if (!registered(p, req.params.id)) return secretsError(404);
  const filter = hasOwn(p.filters, req.params.id) ? p.filters[req.params.id] : undefined;
  const withheld = Object.keys(me.store.data.secrets.mounts).filter((m) => !admits(filter, m)).map((m) => `${m}/`).sort();
  return dataReply({ dynamic_filtered_mounts: withheld, dynamic_filtered_namespaces: [] });
}

/** The mounts the paths filter withheld at the last sync, read on the secondary (`:id` is its cluster id). */
function secondaryDynamicFilter(ctx: SystemContext, req: Incoming): Reply {
  const { st } = here(ctx);
  const sec = requireSecondary(st);
  if (req.params.id !== st.clusterId) return secretsError(404);
  return dataReply({ dynamic_filtered_mounts: [...sec.filteredMounts], dynamic_filtered_namespaces: [] });
}

export const pathsFilterRoutes: Route<SystemContext>[] = [
  { method: "POST", path: `${P}/paths-filter/:id`, handler: guarded(writeFilter) },
  { method: "GET", path: `${P}/paths-filter/:id`, handler: guarded(readFilter) },
  { method: "DELETE", path: `${P}/paths-filter/:id`, handler: guarded(deleteFilter) },
  { method: "GET", path: `${P}/dynamic-filter/:id`, handler: guarded(primaryDynamicFilter) },
  { method: "GET", path: `${S}/dynamic-filter/:id`, handler: guarded(secondaryDynamicFilter) },
];
