import { emptyReply, type Incoming, type Reply } from "../transport/http";
import type { Route } from "../transport/router";
import { hasOwn, isRecord, now, randomId } from "../util";
import { adminWorkspace, type RunContext } from "./context";
import { API_PREFIX, documentReply, errorReply, idConflict, invalid, notFound, paginate, readDocument, simpleError, withLocation, type ApiError } from "./jsonapi";
import type { NcFields, NotificationConfiguration, User } from "./state";
import { DESTINATION_TYPES, NOTIFICATION_TRIGGERS, type DestinationType } from "./vocabulary";
import { verify } from "./verifyNotificationConfiguration";

/**
 * Notification configurations: the body rules shared by create and update, and the CRUD and verify
 * routes. Enabling (create, update) and verify send the verification request first
 * (verifyNotificationConfiguration.ts); a configuration's writes run one at a time.
 */

/** This kind, whose ids the service assigns, as `PUT /_emulator/next-ids` names it (an area's assignedIds). */
export const ASSIGNED_IDS = "notificationConfigurations";

const DOCUMENT_TYPES = ["notification-configuration", "notification-configurations"];

/**
 * The attributes a body may write: each one's stored member, and what a create without it stores
 * (none: the attribute is required). Updates start from the stored values instead.
 */
const ATTRIBUTES: readonly { wire: string; key: Exclude<keyof NcFields, "userIds">; create?: unknown; writeOnly?: true }[] = [
  { wire: "name", key: "name" },
  { wire: "destination-type", key: "destinationType" },
  { wire: "url", key: "url", create: null },
  { wire: "enabled", key: "enabled", create: false },
  // Stored for signing, never returned.
  { wire: "token", key: "token", create: null, writeOnly: true },
  { wire: "triggers", key: "triggers", create: [] },
];

const A = "/data/attributes";

/**
 * Reads a create (previous undefined) or update body. Absent attributes keep the previous
 * value, so create and update share one set of rules applied to the merged result.
 */
function readNcInput(body: unknown, users: Record<string, User>, previous?: NcFields): NcFields | ApiError[] {
  if (!isRecord(body) || !isRecord(body.data)) return [invalid("/data", "data must be a JSON object")];
  const data = body.data;
  const errors: ApiError[] = [];
  if (previous === undefined || hasOwn(data, "type")) {
    if (typeof data.type !== "string" || !DOCUMENT_TYPES.includes(data.type)) {
      errors.push(invalid("/data/type", 'type must be "notification-configuration" or "notification-configurations"'));
    }
  }
  const attributes = data.attributes ?? {};
  if (!isRecord(attributes)) return [...errors, invalid(A, "attributes must be a JSON object")];
  const relationships = data.relationships ?? {};
  if (!isRecord(relationships)) return [...errors, invalid("/data/relationships", "relationships must be a JSON object")];

  const base: Record<string, unknown> = {};
  for (const a of ATTRIBUTES) {
    const value = previous ? previous[a.key] : a.create;
    if (value !== undefined) base[a.wire] = value;
  }
  const merged = { ...base, ...attributes };

  const destinationType = merged["destination-type"];
  if (!DESTINATION_TYPES.includes(destinationType as DestinationType)) {
    errors.push(invalid(`${A}/destination-type`, `destination-type is required and must be one of ${DESTINATION_TYPES.join(", ")}`));
  } else if (previous && destinationType !== previous.destinationType) {
    errors.push(invalid(`${A}/destination-type`, "destination-type cannot be changed"));
  }
  const name = merged.name;
  if (typeof name !== "string" || name.trim() === "") errors.push(invalid(`${A}/name`, "name is required and must be a non-empty string"));
  const enabled = merged.enabled;
  if (typeof enabled !== "boolean") errors.push(invalid(`${A}/enabled`, "enabled must be a boolean"));
  const token = merged.token ?? null;
  if (token !== null && typeof token !== "string") errors.push(invalid(`${A}/token`, "token must be a string or null"));
  const triggers = readTriggers(merged.triggers, errors);
  const url = readUrl(merged.url ?? null, destinationType, errors);
  const userIds = readUsers(relationships, users, destinationType, previous?.userIds ?? [], errors);

  if (errors.length > 0) return errors;
  return {
    name: name as string,
    destinationType: destinationType as DestinationType,
    url,
    enabled: enabled as boolean,
    token: token as string | null,
    triggers,
    userIds,
  };
}

function readTriggers(value: unknown, errors: ApiError[]): string[] {
  if (!Array.isArray(value)) {
    errors.push(invalid(`${A}/triggers`, "triggers must be an array of trigger values"));
    return [];
  }
  const out: string[] = [];
  value.forEach((trigger, i) => {
    if (typeof trigger !== "string" || !(NOTIFICATION_TRIGGERS as readonly string[]).includes(trigger)) {
      errors.push(invalid(`${A}/triggers/${i}`, `triggers contains an unknown trigger ${JSON.stringify(trigger)}; allowed: ${NOTIFICATION_TRIGGERS.join(", ")}`));
    } else if (!out.includes(trigger)) {
      out.push(trigger);
    }
  });
  return out;
}

function readUrl(value: unknown, destinationType: unknown, errors: ApiError[]): string | null {
  if (destinationType === "email") {
    if (value !== null) errors.push(invalid(`${A}/url`, "url must be absent or null for destination-type email"));
    return null;
  }
  if (typeof value !== "string" || value === "") {
    errors.push(invalid(`${A}/url`, "url is required for destination-type generic, chat-a and chat-b"));
    return null;
  }
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    errors.push(invalid(`${A}/url`, "url must be an absolute http or https URL"));
    return null;
  }
  if ((parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.hostname === "") {
    errors.push(invalid(`${A}/url`, "url must be an http or https URL"));
    return null;
  }
  return value;
}

function readUsers(
  relationships: Record<string, unknown>,
  users: Record<string, User>,
  destinationType: unknown,
  previous: string[],
  errors: ApiError[],
): string[] {
  const pointer = "/data/relationships/users";
  if (!hasOwn(relationships, "users")) return destinationType === "email" ? previous : [];
  const raw = relationships.users;
  // Both the JSON:API form {data: [...]} and a bare array are accepted.
  const list = raw === null ? [] : Array.isArray(raw) ? raw : isRecord(raw) ? (raw.data ?? []) : undefined;
  if (!Array.isArray(list)) {
    errors.push(invalid(pointer, "users must be a relationship object whose data is an array of {id, type: \"users\"}"));
    return [];
  }
  if (list.length > 0 && destinationType !== "email") {
    errors.push(invalid(pointer, "users can only be set for destination-type email"));
    return [];
  }
  const ids: string[] = [];
  for (const [i, item] of list.entries()) {
    if (!isRecord(item) || typeof item.id !== "string" || (item.type !== undefined && item.type !== "users")) {
      errors.push(invalid(`${pointer}/data/${i}`, 'users entries must be {id: string, type: "users"}'));
    } else if (!users[item.id]) {
      errors.push(invalid(`${pointer}/data/${i}/id`, `users: user ${item.id} does not exist`));
    } else if (!ids.includes(item.id)) {
      ids.push(item.id);
    }
  }
  return ids;
}

export const MAX_PER_WORKSPACE = 20;
const TYPE = "notification-configurations";

function serialize(nc: NotificationConfiguration) {
  return {
    id: nc.id,
    type: TYPE,
    attributes: {
      ...Object.fromEntries(ATTRIBUTES.map((a) => [a.wire, a.writeOnly ? null : nc[a.key]])),
      "delivery-responses": nc.deliveryResponses,
      "created-at": nc.createdAt,
      "updated-at": nc.updatedAt,
    },
    relationships: {
      subscribable: { data: { id: nc.workspaceId, type: "workspaces" } },
      users: { data: nc.userIds.map((id) => ({ id, type: "users" })) },
    },
    links: { self: `${API_PREFIX}/notification-configurations/${nc.id}` },
  };
}

function all(ctx: RunContext): Record<string, NotificationConfiguration> {
  return ctx.rt.store.data.run.notificationConfigurations;
}

function inWorkspace(ctx: RunContext, workspaceId: string): NotificationConfiguration[] {
  return Object.values(all(ctx)).filter((nc) => nc.workspaceId === workspaceId);
}

/** The configuration when it exists and the caller administers its workspace. */
function find(ctx: RunContext, id: string): NotificationConfiguration | undefined {
  const nc = all(ctx)[id];
  return nc && adminWorkspace(ctx, nc.workspaceId) ? nc : undefined;
}

function limitReached(ctx: RunContext, workspaceId: string): Reply | undefined {
  if (inWorkspace(ctx, workspaceId).length < MAX_PER_WORKSPACE) return undefined;
  return errorReply(422, [invalid("/data", `a workspace can hold at most ${MAX_PER_WORKSPACE} notification configurations`)]);
}

function verificationFailed(error: string | undefined): Reply {
  return simpleError(400, "verification failed", error ?? "verification request could not be completed");
}

function list(ctx: RunContext, req: Incoming): Reply {
  const workspaceId = req.params.workspace_id;
  if (!adminWorkspace(ctx, workspaceId)) return notFound();
  const page = paginate(inWorkspace(ctx, workspaceId), req.query, `/workspaces/${encodeURIComponent(workspaceId)}/notification-configurations`);
  if (Array.isArray(page)) return errorReply(422, page);
  return documentReply(200, { data: page.items.map(serialize), ...(page.links ? { links: page.links } : {}), ...(page.meta ? { meta: page.meta } : {}) });
}

async function create(ctx: RunContext, req: Incoming): Promise<Reply> {
  const workspaceId = req.params.workspace_id;
  if (!adminWorkspace(ctx, workspaceId)) return notFound();
  const body = readDocument(req);
  if (!body.ok) return errorReply(422, body.errors);
  const fields = readNcInput(body.value, ctx.rt.store.data.run.users);
  if (Array.isArray(fields)) return errorReply(422, fields);
  const full = limitReached(ctx, workspaceId);
  if (full) return full;
  const at = now();
  const inUse = (id: string) => all(ctx)[id] !== undefined;
  let id = ctx.rt.nextIds.take(ASSIGNED_IDS, inUse) ?? randomId("nc");
  while (inUse(id)) id = randomId("nc");
  const nc: NotificationConfiguration = { id, workspaceId, ...fields, deliveryResponses: [], createdAt: at, updatedAt: at };
  if (nc.enabled) {
    const result = await verify(ctx.rt, nc);
    if (!result.ok) return verificationFailed(result.error);
    if (result.response) nc.deliveryResponses = [result.response];
    // The verification awaited the network: re-check what may have changed meanwhile.
    if (!adminWorkspace(ctx, workspaceId)) return notFound();
    const fullNow = limitReached(ctx, workspaceId);
    if (fullNow) return fullNow;
  }
  all(ctx)[nc.id] = nc;
  const resource = serialize(nc);
  return withLocation(documentReply(201, { data: resource }), resource.links.self);
}

function show(ctx: RunContext, req: Incoming): Reply {
  const nc = find(ctx, req.params.id);
  return nc ? documentReply(200, { data: serialize(nc) }) : notFound();
}

/** One write at a time per configuration, so each applies to the version the previous one left. */
function update(ctx: RunContext, req: Incoming): Promise<Reply> {
  return ctx.rt.serial.run(`nc:${req.params.id}`, () => updateLatest(ctx, req));
}

async function updateLatest(ctx: RunContext, req: Incoming): Promise<Reply> {
  const previous = find(ctx, req.params.id);
  if (!previous) return notFound();
  const body = readDocument(req);
  if (!body.ok) return errorReply(422, body.errors);
  const conflict = idConflict(body.value, previous.id);
  if (conflict) return conflict;
  const fields = readNcInput(body.value, ctx.rt.store.data.run.users, previous);
  if (Array.isArray(fields)) return errorReply(422, fields);
  const next: NotificationConfiguration = { ...previous, ...fields, updatedAt: now() };
  if (next.enabled) {
    const result = await verify(ctx.rt, next);
    // A failed verification saves nothing: the stored configuration stays as it was.
    if (!result.ok) return verificationFailed(result.error);
    if (result.response) next.deliveryResponses = [result.response];
    if (!find(ctx, next.id)) return notFound();
  }
  all(ctx)[next.id] = next;
  return documentReply(200, { data: serialize(next) });
}

function remove(ctx: RunContext, req: Incoming): Reply {
  const nc = find(ctx, req.params.id);
  if (!nc) return notFound();
  delete all(ctx)[nc.id];
  return emptyReply(204);
}

function verifyAction(ctx: RunContext, req: Incoming): Promise<Reply> {
  return ctx.rt.serial.run(`nc:${req.params.id}`, () => verifyLatest(ctx, req));
}

async function verifyLatest(ctx: RunContext, req: Incoming): Promise<Reply> {
  const nc = find(ctx, req.params.id);
  if (!nc) return notFound();
  const result = await verify(ctx.rt, nc);
  const current = find(ctx, nc.id);
  if (!current) return notFound();
  // Unlike create and update, verify keeps the failed response: that is its purpose.
  if (result.response) current.deliveryResponses = [result.response];
  return result.ok ? documentReply(200, { data: serialize(current) }) : verificationFailed(result.error);
}

export const notificationConfigurationRoutes: Route<RunContext>[] = [
  { method: "GET", path: "/workspaces/:workspace_id/notification-configurations", handler: list },
  { method: "POST", path: "/workspaces/:workspace_id/notification-configurations", handler: create },
  { method: "GET", path: "/notification-configurations/:id", handler: show },
  { method: "PATCH", path: "/notification-configurations/:id", handler: update },
  { method: "DELETE", path: "/notification-configurations/:id", handler: remove },
  { method: "POST", path: "/notification-configurations/:id/actions/verify", handler: verifyAction },
];
