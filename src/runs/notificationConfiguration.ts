import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { field, fieldSet, output, type ArgsOf, type OutputsOf, type StateOf } from "../core/fields";
import { segment } from "../core/segment";
import { createOnce, firstNew } from "../core/createOnce";
import type { Context, ResourceDefinition } from "../core/definition";
import { registration, SvcResource } from "../core/resource";
import { isUnknown } from "../core/unknown";
import { isSvcError } from "../http";
import { allIds, membersOf, one, pages, relationshipsOf, type JsonApiResource } from "./jsonapi";
import { RUNS_ROUTES } from "./routes";
import { ASSESSMENT_NOTIFICATION_TRIGGERS, RUN_NOTIFICATION_TRIGGERS } from "./runVocabulary";
import { confirmGoneIn } from "./visibility";
import type { ConnectionArgs } from "../core/connection";

export const TRIGGERS = [...RUN_NOTIFICATION_TRIGGERS, ...ASSESSMENT_NOTIFICATION_TRIGGERS] as const;
export type Trigger = (typeof TRIGGERS)[number];

export const DESTINATION_TYPES = ["generic", "email", "chat-a", "chat-b"] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

/** The latest response of a destination to a notification or verification request. */
export interface DeliveryResponse {
  /** The URL the request went to. */
  url: string;
  /** The body the destination answered with. */
  body: string;
  /** The destination's HTTP status code, as text. */
  code: string;
  /** The destination's response headers. */
  headers: Record<string, string[]>;
  /** When the request was sent (ISO 8601, `sent-at`). */
  sentAt: string;
  /** Whether the destination answered 2xx. */
  successful: boolean;
}

const URL_TYPES: ReadonlyArray<string> = ["generic", "chat-a", "chat-b"];

// Check runs at preview and again at update, and many configurations share a destination.
const checkedUrls = new Map<string, boolean>();

function httpUrl(value: string): boolean {
  let ok = checkedUrls.get(value);
  if (ok === undefined) {
    try {
      const u = new URL(value);
      ok = u.protocol === "http:" || u.protocol === "https:";
    } catch {
      ok = false;
    }
    if (checkedUrls.size >= 256) checkedUrls.clear();
    checkedUrls.set(value, ok);
  }
  return ok;
}

/** `delivery-responses` of a configuration document, with the resource's property names. */
function deliveryResponses(raw: unknown): DeliveryResponse[] {
  return (Array.isArray(raw) ? (raw as Record<string, unknown>[]) : []).map((d) => ({
    url: String(d.url ?? ""),
    body: String(d.body ?? ""),
    code: String(d.code ?? ""),
    headers: (d.headers as Record<string, string[]>) ?? {},
    sentAt: String(d["sent-at"] ?? ""),
    successful: d.successful === true,
  }));
}

export const notificationConfigurationFields = {
  /**
   * Id of the workspace (`ws-...`) whose runs notify. Changing it replaces the configuration. In the
   * create's path and the `subscribable` relationship, never an attribute.
   */
  workspaceId: field(segment, { immutable: true, relationship: { name: "subscribable", type: "workspaces" } }),
  /** Human-readable name. */
  name: field(() => z.string().min(1, "must not be empty")),
  /**
   * Where notifications go: `generic` (HTTP POST of the JSON payload, signed when `token` is set),
   * `chat-a`, `chat-b` (chat webhooks) or `email` (to `emailUsers`). Changing it replaces the configuration.
   */
  destinationType: field(() => z.enum(DESTINATION_TYPES, { error: `must be one of ${DESTINATION_TYPES.join(", ")}` }), { immutable: true }),
  /** http or https URL; required for generic, chat-a and chat-b, not allowed for email. */
  url: field(() => z.string(), {
    optional: true,
    outside: "destinations",
    // Only email has none: null there, so the service keeps no URL for it.
    absent: null,
    decode: (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined),
  }),
  /**
   * Whether notifications are sent. Default false. Enabling sends a verification request to `url`
   * first; a destination that does not answer 2xx fails the create or update and nothing is saved.
   */
  enabled: field(() => z.boolean(), { default: false }),
  /**
   * Key of the `X-Svc-Notification-Signature` HMAC-SHA512 of each generic payload. Write-only: the
   * service never returns it; it is kept secret in state. Removing it clears it on the service.
   */
  token: field(() => z.string().min(1, "must not be empty when set"), { optional: true, secret: true, writeOnly: true, usedOnlyIf: { destinationType: ["generic"] } }),
  /** Events that notify (a set: order and duplicates do not matter), e.g. `run:completed`, `run:errored`. */
  triggers: field(() => z.array(z.enum(TRIGGERS, { error: `must be one of ${TRIGGERS.join(", ")}` })), { set: true, default: [] as Trigger[] }),
  /**
   * Ids of organization users (`user-...`) who receive email; only for destination type email. The
   * `users` relationship, never an attribute.
   */
  emailUsers: field(() => z.array(z.string().min(1, "must not be empty")), { optional: true, set: true, relationship: { name: "users", type: "users" } }),
  /**
   * Id (`nc-...`) of an existing configuration to take over instead of creating one
   * (docs/adopting.md): the create reads it, fails when it does not exist or its
   * `workspaceId` or `destinationType` differ from the program's, writes it only when something
   * differs (a `token` given is always written: it cannot be read), and keeps its id. Only the
   * create reads it; a configuration another resource of the stack holds is refused.
   */
  adoptId: field(segment, { local: true }),
  /** The most recent response of the destination (verification or notification). */
  deliveryResponses: output<DeliveryResponse[]>({ decode: (v) => deliveryResponses(v) }),
  /** When the configuration was created (ISO 8601, `created-at`). */
  createdAt: output<string>(),
  /** When the configuration last changed (ISO 8601, `updated-at`). */
  updatedAt: output<string>(),
};

/** @internal */
export const notificationConfigurationSet = fieldSet(notificationConfigurationFields, {
  case: "kebab",
  refine(v, ctx) {
    const type = v.destinationType as string;
    if (isUnknown(type)) return;
    if (URL_TYPES.includes(type)) {
      if (v.url === undefined) ctx.addIssue({ code: "custom", path: ["url"], message: `is required for destination type ${type}` });
      else if (!isUnknown(v.url) && !httpUrl(v.url)) ctx.addIssue({ code: "custom", path: ["url"], message: "must be an http or https URL" });
      if (v.emailUsers !== undefined && v.emailUsers.length > 0) {
        ctx.addIssue({ code: "custom", path: ["emailUsers"], message: "is only allowed for destination type email" });
      }
    } else if (type === "email" && v.url !== undefined) {
      ctx.addIssue({ code: "custom", path: ["url"], message: "must not be set for destination type email" });
    }
  },
});

export type NotificationConfigurationState = StateOf<typeof notificationConfigurationFields>;

function fromResource(res: JsonApiResource, prior: Partial<NotificationConfigurationState>): NotificationConfigurationState {
  const state = notificationConfigurationSet.decode(membersOf(notificationConfigurationSet, res), prior) as NotificationConfigurationState;
  state.workspaceId ??= "";
  // Only an email configuration has users; the service answers none, or an empty list, for the others.
  if (state.destinationType === "email") state.emailUsers ??= [];
  else delete state.emailUsers;
  return state;
}

/**
 * The JSON:API body; `token` is sent only when set, or as null to clear one the old state had. The
 * workspace is in the create's path, never in the body; an email configuration names its users.
 */
function toDocument(p: NotificationConfigurationState, clearToken: boolean): unknown {
  const attributes = notificationConfigurationSet.body(p);
  if (p.token === undefined && clearToken) attributes.token = null;
  const data: Record<string, unknown> = { type: "notification-configuration", attributes };
  if (p.destinationType === "email") data.relationships = relationshipsOf(notificationConfigurationSet, { ...p, emailUsers: p.emailUsers ?? [] }, ["workspaceId"]);
  return { data };
}

/**
 * The workspace's configurations before the first attempt; undefined when the workspace cannot be
 * listed (the create then fails with the server's own message, and a lookup takes nothing).
 */
async function listIds(ctx: Context, workspaceId: string): Promise<Set<string> | undefined> {
  try {
    return await allIds(ctx.client("runs"), { route: RUNS_ROUTES.notificationConfiguration.list, params: { workspace_id: workspaceId } });
  } catch (e) {
    if (isSvcError(e, "not_found")) return undefined;
    throw e;
  }
}

const sameSet = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
  JSON.stringify([...new Set(a ?? [])].sort()) === JSON.stringify([...new Set(b ?? [])].sort());

/** Whether a listed configuration holds every attribute a create with these inputs sends (the token cannot be read). */
function sameAs(res: JsonApiResource, inputs: NotificationConfigurationState): boolean {
  // Decoded without the inputs as prior: a field the listed one lacks must not match by default.
  const got = fromResource(res, { workspaceId: inputs.workspaceId });
  return got.name === inputs.name && got.destinationType === inputs.destinationType && got.enabled === inputs.enabled &&
    got.url === (inputs.destinationType === "email" ? undefined : inputs.url) &&
    sameSet(got.triggers, inputs.triggers) && sameSet(got.emailUsers, inputs.destinationType === "email" ? inputs.emailUsers : undefined);
}

const listSpec = (workspaceId: string) => ({ route: RUNS_ROUTES.notificationConfiguration.list, params: { workspace_id: workspaceId } });

/**
 * The configuration a lost create made: one that did not exist before the first attempt, that no
 * other create of this process owns, and whose every attribute is what we sent.
 */
async function findCreated(ctx: Context, inputs: NotificationConfigurationState, before: Set<string> | undefined, owned: (id: string) => boolean) {
  if (!before) return undefined;
  return firstNew(pages(ctx.client("runs"), listSpec(inputs.workspaceId)), (res) => res.id, before, owned, (res) => sameAs(res, inputs));
}

/** The workspace's configurations with every attribute of these inputs (a workspace holds at most 20); none when it cannot be listed. */
async function lookalikes(ctx: Context, inputs: NotificationConfigurationState): Promise<string[]> {
  try {
    return [...await allIds(ctx.client("runs"), listSpec(inputs.workspaceId), 100, (res) => sameAs(res, inputs))];
  } catch (e) {
    if (!isSvcError(e, "not_found")) throw e;
    return [];
  }
}

export const notificationConfigurationDefinition: ResourceDefinition<NotificationConfigurationState, NotificationConfigurationState> = {
  kind: "runs:NotificationConfiguration",
  discover: { list: RUNS_ROUTES.notificationConfiguration.list },
  risk: {
    lost: "the workspace stops notifying this destination",
    changes: {
      url: "deliveries go to the new URL from now on",
      token: "deliveries are signed with the new token, so a destination that checks the old signature rejects them",
    },
    instead: "a second configuration beside the old one while the destination moves",
  },
  ...notificationConfigurationSet,
  // The verify action belongs to verifyNotificationConfiguration; the service verifies on enable itself.
  routes: {
    create: RUNS_ROUTES.notificationConfiguration.create, read: RUNS_ROUTES.notificationConfiguration.read,
    update: RUNS_ROUTES.notificationConfiguration.update, delete: RUNS_ROUTES.notificationConfiguration.delete,
    list: RUNS_ROUTES.notificationConfiguration.list,
  },
  leftovers: { find: lookalikes, otherwise: 'to take over one made another way, set adoptId: "<its id>"' },
  confirmGone: confirmGoneIn(RUNS_ROUTES.notificationConfiguration.list, "notification configuration"),
  async create(ctx, inputs) {
    const client = ctx.client("runs");
    const before = await listIds(ctx, inputs.workspaceId);
    const res = await createOnce({
      scope: `notification-configurations:${client.baseUrl}:${inputs.workspaceId}`,
      attempt: async () => one((await client.request({
        route: RUNS_ROUTES.notificationConfiguration.create, params: { workspace_id: inputs.workspaceId }, body: toDocument(inputs, false),
      })).body),
      find: (owned) => findCreated(ctx, inputs, before, owned),
      idOf: (created) => created.id,
      log: (m) => ctx.log(`notification configuration ${inputs.name}: ${m}`),
    });
    return { id: res.id, outs: fromResource(res, inputs) };
  },
  async read(ctx, id, props) {
    const res = await ctx.client("runs").request({ route: RUNS_ROUTES.notificationConfiguration.read, params: { id } });
    return fromResource(one(res.body), props);
  },
  async update(ctx, id, olds, news) {
    // Setting the same attributes twice has the same result, so a retried PATCH is safe.
    const res = await ctx.client("runs").request({
      route: RUNS_ROUTES.notificationConfiguration.update, params: { id }, body: toDocument(news, olds.token !== undefined), retry: "safe",
    });
    return fromResource(one(res.body), news);
  },
  async delete(ctx, id) {
    await ctx.client("runs").request({ route: RUNS_ROUTES.notificationConfiguration.delete, params: { id } });
  },
};

export type NotificationConfigurationArgs = ArgsOf<typeof notificationConfigurationFields> & ConnectionArgs<"runs">;

/**
 * A notification configuration of a workspace in the run service (`nc-...`):
 * `/notification-configurations/{id}`, created under `/workspaces/{workspace_id}/notification-configurations`.
 *
 * @remarks
 * A create whose response is lost (connection dropped, timeout, 5xx) is not blindly repeated: the
 * provider lists the workspace's configurations and uses the one the lost request created (same
 * name, destination type and url, created since the attempt began); only if there is none does it
 * try again. A create never makes a second configuration with every value of one the workspace
 * has: it may be what a cancelled `pulumi up` made (docs/behaviour.md, "When a deploy is
 * cancelled"), so the create fails and names `npx pulumi-svc-recover` and `adoptId`.
 *
 * @example
 * ```ts
 * new svc.runs.NotificationConfiguration("hook", {
 *   workspaceId: "ws-example00000001", name: "ci", destinationType: "generic",
 *   url: "https://hooks.example.com/run", enabled: true, triggers: ["run:completed", "run:errored"],
 *   token: cfg.requireSecret("hookToken"),
 * });
 * ```
 */
export interface NotificationConfiguration extends OutputsOf<typeof notificationConfigurationFields> {}
export class NotificationConfiguration extends SvcResource(notificationConfigurationDefinition) { constructor(name: string, args: NotificationConfigurationArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }
