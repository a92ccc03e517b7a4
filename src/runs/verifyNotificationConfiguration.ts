import { field, pick, type InfoOf, type PlainArgsOf } from "../core/fields";
import { segment } from "../core/segment";
import { type FunctionDefinition } from "../core/fn";
import { forms } from "../core/forms";
import { one } from "./jsonapi";
import { RUNS_ROUTES } from "./routes";
import { notificationConfigurationFields, notificationConfigurationSet, type NotificationConfigurationState } from "./notificationConfiguration";

const verifyFields = {
  /** Id of the notification configuration (`nc-...`). */
  id: field(segment),
};

export type VerifyNotificationConfigurationArgs = PlainArgsOf<typeof verifyFields>;

// Typed by its source: a picked record from another file loses its fields' docs in the declaration emit.
const resultFields: Pick<typeof notificationConfigurationFields, "enabled" | "deliveryResponses"> = pick(notificationConfigurationFields, "enabled", "deliveryResponses");

export type VerifyNotificationConfigurationResult = {
  /** Notification configuration id (`nc-...`). */
  id: string;
} & InfoOf<typeof resultFields>;

const definition: FunctionDefinition<VerifyNotificationConfigurationArgs, VerifyNotificationConfigurationResult, "runs"> = {
  name: "verifyNotificationConfiguration",
  fields: verifyFields,
  // It sends a request to the destination: not during preview.
  sideEffects: true, service: "runs",
  async run(ctx, args) {
    const res = one((await ctx.client("runs").request({ route: RUNS_ROUTES.notificationConfiguration.verify, params: { id: args.id } })).body);
    const got = notificationConfigurationSet.decode(res.attributes, {}) as Partial<NotificationConfigurationState>;
    return { id: res.id, enabled: got.enabled === true, deliveryResponses: got.deliveryResponses ?? [] };
  },
};

/**
 * Sends a verification request to the configuration's destination and returns the stored response.
 * Fails with a 400 error when the destination could not be reached. During preview it makes no
 * request and resolves to undefined.
 */
export const verifyNotificationConfiguration = forms(definition).promise;

/** Output form of {@link verifyNotificationConfiguration}: unknown during preview. */
export const verifyNotificationConfigurationOutput = forms(definition).output;
