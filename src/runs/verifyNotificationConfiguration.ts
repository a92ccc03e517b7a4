import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { segment } from "../core/segment";
import { invoke, invokeOutput, type FunctionDefinition, type SvcInvokeOptions, type SvcInvokeOutputOptions } from "../core/fn";
import { one } from "./jsonapi";
import { deliveryResponses, ROUTES, type DeliveryResponse } from "./notificationConfiguration";

export interface VerifyNotificationConfigurationArgs {
  /** Id of the notification configuration (`nc-...`). */
  id: string;
}

export interface VerifyNotificationConfigurationResult {
  /** Notification configuration id (`nc-...`). */
  id: string;
  /** Whether the configuration is enabled. */
  enabled: boolean;
  /** The destination's response to the verification request. */
  deliveryResponses: DeliveryResponse[];
}

let schema: z.ZodType | undefined;

const definition: FunctionDefinition<VerifyNotificationConfigurationArgs, VerifyNotificationConfigurationResult> = {
  name: "verifyNotificationConfiguration",
  schema: () => (schema ??= z.object({ id: segment() })),
  // It sends a request to the destination: not during preview.
  sideEffects: true, service: "runs",
  async run(ctx, args) {
    const res = one((await ctx.client("runs").request({ route: ROUTES.verify, params: { id: args.id } })).body);
    return {
      id: res.id,
      enabled: res.attributes.enabled === true,
      deliveryResponses: deliveryResponses(res.attributes),
    };
  },
};

/**
 * Sends a verification request to the configuration's destination and returns the stored response.
 * Fails with a 400 error when the destination could not be reached. During preview it makes no
 * request and resolves to undefined.
 */
export function verifyNotificationConfiguration(args: VerifyNotificationConfigurationArgs, opts?: SvcInvokeOptions<"runs">): Promise<VerifyNotificationConfigurationResult> {
  return invoke(definition, args, opts);
}

/** Output form of {@link verifyNotificationConfiguration}: unknown during preview. */
export function verifyNotificationConfigurationOutput(args: {
  /** Notification configuration id (`nc-...`). */
  id: pulumi.Input<string>;
}, opts?: SvcInvokeOutputOptions<"runs">): pulumi.Output<VerifyNotificationConfigurationResult> {
  return invokeOutput(definition, args, opts);
}
