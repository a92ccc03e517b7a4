import * as pulumi from "@pulumi/pulumi";
import type { ResourceDefinition } from "./definition";
import { providerFor } from "./trampoline";

/**
 * Base of every resource class: registers the kind's trampoline provider under the type token
 * `pulumi-nodejs:dynamic/<service>:<Kind>` and marks the kind's secret outputs secret.
 */
export abstract class SvcResource extends pulumi.dynamic.Resource {
  constructor(def: Pick<ResourceDefinition, "kind" | "outputs" | "secrets">, name: string, args: object,
    opts?: pulumi.CustomResourceOptions) {
    const [module, type] = def.kind.split(":");
    const props: Record<string, unknown> = {};
    // Output-only keys must be present (as undefined) for the SDK to create their Output properties.
    for (const k of def.outputs) props[k] = undefined;
    Object.assign(props, args);
    const secrets = [...(def.secrets ?? [])];
    const options: pulumi.CustomResourceOptions = {
      ...opts,
      additionalSecretOutputs: [...new Set([...(opts?.additionalSecretOutputs ?? []), ...secrets])],
    };
    super(providerFor(def.kind), name, props, options, module, type);
  }
}
