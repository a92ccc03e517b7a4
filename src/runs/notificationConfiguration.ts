import type * as pulumi from "@pulumi/pulumi";
import { z } from "../core/zod";
import { field, fieldSet, nested, output, type ArgsOf, type Field, type OutputsOf, type ReadOf, type StateOf } from "../core/fields";
import { segment } from "../core/segment";
import { registration, SvcResource } from "../core/resource";
import { isUnknown } from "../core/unknown";
import { RUNS_ROUTES } from "./routes";
import { ASSESSMENT_NOTIFICATION_TRIGGERS, DESTINATION_TYPES, RUN_NOTIFICATION_TRIGGERS, URL_DESTINATION_TYPES } from "./runVocabulary";
import { serviceObject } from "./serviceObject";
import type { ConnectionArgs } from "../core/connection";

export const TRIGGERS = [...RUN_NOTIFICATION_TRIGGERS, ...ASSESSMENT_NOTIFICATION_TRIGGERS] as const;
export type Trigger = (typeof TRIGGERS)[number];

/** What the service keeps of a request to the destination: its `delivery-responses`, each as the seed lists its fields. */
const deliveryResponseFields = {
  /** The URL the request went to. */
  url: output<string>({ default: "", decode: String }),
  /** The body the destination answered with. */
  body: output<string>({ default: "", decode: String }),
  /** The destination's HTTP status code, as text. */
  code: output<string>({ default: "", decode: String }),
  /** The destination's response headers. */
  headers: output<Record<string, string[]>>({ default: {} }),
  /** When the request was sent (ISO 8601, `sent-at`). */
  sentAt: output<string>({ default: "", decode: String }),
  /** Whether the destination answered 2xx. */
  successful: output<boolean>({ default: false, decode: (v) => v === true }),
};

/** The latest response of a destination to a notification or verification request. */
export interface DeliveryResponse extends ReadOf<typeof deliveryResponseFields> {}

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
  emailUsers: field(() => z.array(z.string().min(1, "must not be empty")), {
    optional: true, set: true, relationship: { name: "users", type: "users" },
    // The seed's `users` "for destination type email": the others have none. Sent empty when left out, which clears them.
    usedOnlyIf: { destinationType: ["email"] }, absent: [],
  }),
  /**
   * Id (`nc-...`) of an existing configuration to take over instead of creating one
   * (docs/adopting.md): the create reads it, fails when it does not exist or its
   * `workspaceId` or `destinationType` differ from the program's, writes it only when something
   * differs (a `token` given is always written: it cannot be read), and keeps its id. Only the
   * create reads it; a configuration another resource of the stack holds is refused.
   */
  adoptId: field(segment, { local: true }),
  /** The most recent response of the destination (verification or notification). */
  deliveryResponses: nested(deliveryResponseFields, { case: "kebab", list: true }) as Field<DeliveryResponse[], "output">,
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
    if ((URL_DESTINATION_TYPES as readonly string[]).includes(type)) {
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

export const notificationConfigurationDefinition = serviceObject<NotificationConfigurationState>({
  kind: "runs:NotificationConfiguration",
  fields: notificationConfigurationSet,
  // The verify action is verifyNotificationConfiguration's: the service verifies on enable itself.
  routes: RUNS_ROUTES.notificationConfiguration,
  risk: {
    lost: "the workspace stops notifying this destination",
    changes: {
      url: "deliveries go to the new URL from now on",
      token: "deliveries are signed with the new token, so a destination that checks the old signature rejects them",
    },
    instead: "a second configuration beside the old one while the destination moves",
  },
});

export type NotificationConfigurationArgs = ArgsOf<typeof notificationConfigurationFields> & ConnectionArgs<"runs">;

/**
 * A notification configuration of a workspace in the run service (`nc-...`):
 * `/notification-configurations/{id}`, created under `/workspaces/{workspace_id}/notification-configurations`.
 *
 * @remarks
 * A create whose response is lost (connection dropped, timeout, 5xx) is not blindly repeated: the
 * provider lists the workspace's configurations and uses the one the lost request created (one
 * with every value it sent but the token, which the service never returns, made since the attempt
 * began); only if there is none does it try again. A create never makes a second configuration
 * with every value of one the workspace has: it may be what a cancelled `pulumi up` made
 * (docs/behaviour.md, "When a deploy is cancelled"), so the create fails and names
 * `npx pulumi-svc-recover` and `adoptId`.
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
