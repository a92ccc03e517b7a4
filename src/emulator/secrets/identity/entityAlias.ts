import { randomUUID } from "node:crypto";
import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import { now } from "../../util";
import type { SystemContext } from "../context";
import { dataReply, listReply } from "../envelope";
import { bad, body, guarded, notFound, readOne, requiredStr, str, strMap } from "../fields";
import type { EntityAlias } from "./state";

/** This kind, whose ids the service assigns, as `PUT /_emulator/next-ids` names it (an area's assignedIds). */
export const ASSIGNED_IDS = "entityAliases";

// Routes are relative to `identity/`, which is part of the service rather than a mount.

const identity = (ctx: SystemContext) => ctx.rt.store.data.secrets.identity;

function present(ctx: SystemContext, alias: EntityAlias): Record<string, unknown> {
  const mount = identity(ctx).authMounts[alias.mount_accessor];
  return {
    id: alias.id,
    name: alias.name,
    canonical_id: alias.canonical_id,
    mount_accessor: alias.mount_accessor,
    // The real-world service reports the full mount path of an auth method.
    mount_path: mount ? `auth/${mount.path}` : "",
    mount_type: mount?.type ?? "",
    custom_metadata: { ...alias.custom_metadata },
    metadata: { ...alias.metadata },
    local: mount?.local ?? false,
    creation_time: alias.creation_time,
    last_update_time: alias.last_update_time,
  };
}

/**
 * Creates an alias, or updates `existing`. name, canonical_id and mount_accessor are required on
 * every write; custom_metadata left out keeps its value.
 */
function save(ctx: SystemContext, b: Record<string, unknown>, existing: EntityAlias | undefined): Reply {
  const name = requiredStr(b, "name");
  const canonicalId = requiredStr(b, "canonical_id");
  const accessor = requiredStr(b, "mount_accessor");
  const customMetadata = strMap(b, "custom_metadata");
  const state = identity(ctx);
  if (!state.entities[canonicalId]) bad(`canonical_id: no entity with id "${canonicalId}"`);
  if (!state.authMounts[accessor]) bad(`mount_accessor: no auth mount with accessor "${accessor}"`);
  // The real-world rule: one alias per name on an auth mount, since a login resolves by (mount, name).
  const clash = Object.values(state.aliases).find((a) => a.mount_accessor === accessor && a.name === name && a.id !== existing?.id);
  if (clash) bad(`name: alias "${name}" already exists on mount accessor "${accessor}" (alias ${clash.id}, entity ${clash.canonical_id}); update that alias instead`);

  const at = now();
  const alias: EntityAlias = {
    id: existing?.id ?? ctx.rt.nextIds.take(ASSIGNED_IDS, (id) => state.aliases[id] !== undefined) ?? randomUUID(),
    name,
    canonical_id: canonicalId,
    mount_accessor: accessor,
    custom_metadata: customMetadata ?? existing?.custom_metadata ?? {},
    metadata: existing?.metadata ?? {},
    creation_time: existing?.creation_time ?? at,
    last_update_time: at,
  };
  state.aliases[alias.id] = alias;
  return dataReply({ canonical_id: alias.canonical_id, id: alias.id });
}

/** POST entity-alias: without `id` it creates; with `id` it updates that alias, which must exist. */
function writeCollection(ctx: SystemContext, req: Incoming): Reply {
  const b = body(req);
  const id = str(b, "id");
  if (id === undefined || id === "") return save(ctx, b, undefined);
  const existing = identity(ctx).aliases[id];
  if (!existing) bad(`id: no entity alias with id "${id}"; leave id out to create one`);
  return save(ctx, b, existing);
}

function writeById(ctx: SystemContext, req: Incoming): Reply {
  const existing = identity(ctx).aliases[req.params.id];
  if (!existing) return notFound();
  const b = body(req);
  const id = str(b, "id");
  if (id !== undefined && id !== "" && id !== existing.id) bad(`id "${id}" in the body differs from the path`);
  return save(ctx, b, existing);
}

export const entityAliasRoutes: Route<SystemContext>[] = [
  { method: "POST", path: "entity-alias", handler: guarded(writeCollection) },
  { method: "POST", path: "entity-alias/id/:id", handler: guarded(writeById) },
  { method: "GET", path: "entity-alias/id/:id", handler: readOne((ctx, req) => identity(ctx).aliases[req.params.id], (alias, ctx) => present(ctx, alias)) },
  {
    method: "DELETE",
    path: "entity-alias/id/:id",
    handler: (ctx, req) => {
      delete identity(ctx).aliases[req.params.id];
      return emptyReply(204);
    },
  },
  // `GET entity-alias/id?list=true` arrives here too: the dispatcher turns it into LIST.
  { method: "LIST", path: "entity-alias/id", handler: (ctx) => listReply(Object.keys(identity(ctx).aliases)) },
];
