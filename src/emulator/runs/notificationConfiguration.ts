import { emptyReply, type Incoming, type Reply } from "../http";
import type { Route } from "../router";
import type { NotificationConfiguration } from "./state";
import { now, randomId } from "../util";
import { adminWorkspace, readDocument, type RunContext } from "./context";
import { API_PREFIX, documentReply, errorReply, idConflict, invalid, notFound, paginate, simpleError, withLocation } from "./jsonapi";
import { readNcInput } from "./nc-input";
import { verify } from "./verifyNotificationConfiguration";

export const MAX_PER_WORKSPACE = 20;
const TYPE = "notification-configurations";

function serialize(nc: NotificationConfiguration) {
  return {
    id: nc.id,
    type: TYPE,
    attributes: {
      enabled: nc.enabled,
      name: nc.name,
      url: nc.url,
      "destination-type": nc.destinationType,
      // Write-only: stored for signing, never returned.
      token: null,
      triggers: nc.triggers,
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
  let id = randomId("nc");
  while (all(ctx)[id]) id = randomId("nc");
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
