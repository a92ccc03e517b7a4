import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import type { ResourceDefinition } from "./definition";
import { CONNECTION_KEY, SERVER_KEY, URN_KEY } from "./connected";
import { providerFor } from "./trampoline";
import { describeFailures, valueProblems } from "./validate";
import { versionKeys } from "./versions";

/** Where the build writes a kind's provider module, relative to the compiled src/ folder. */
export function providerModulePath(kind: string): string {
  const [service, type] = kind.split(":");
  return path.join("providers", service, `${type}.js`);
}

/**
 * The kind's provider object, loaded from its generated module when there is one, so that an
 * installed package's provider serializes as a require of that module (see src/scripts/providers.ts).
 * From sources (tests under vitest) there is none and the same object comes from the trampoline.
 */
function providerObject(kind: string): pulumi.dynamic.ResourceProvider {
  const file = path.join(__dirname, "..", providerModulePath(kind));
  return fs.existsSync(file) ? require(file) : providerFor(kind);
}

/**
 * Base of every resource class: registers the kind's trampoline provider under the type token
 * `pulumi-nodejs:dynamic/<service>:<Kind>` and marks the kind's secret outputs secret. Every kind
 * takes a `connection` input (src/core/connection.ts): it is made secret as a whole, because it
 * may hold a token that the provider needs again to refresh and delete the object.
 */
export abstract class SvcResource extends pulumi.dynamic.Resource {
  /**
   * Base URL of the server this resource lives on, recorded when it is created (from its
   * `connection`, else the stack config or environment). A different server later replaces it.
   */
  declare readonly serverUrl: pulumi.Output<string>;

  constructor(def: Pick<ResourceDefinition, "kind" | "outputs" | "secrets" | "fields">, name: string, args: object,
    opts?: pulumi.CustomResourceOptions) {
    const [module, type] = def.kind.split(":");
    // The SDK serializes inputs by assigning keys, so a "__proto__" key in a plain value would be
    // dropped before check could refuse it: refuse it here (values inside Outputs are checked there).
    const lost = valueProblems(args).filter((f) => f.property.endsWith("__proto__"));
    if (lost.length > 0) throw new Error(`${def.kind} "${name}": ${describeFailures(lost)}`);
    const props: Record<string, unknown> = {};
    // Output-only keys must be present (as undefined) for the SDK to create their Output properties.
    for (const k of [...def.outputs, ...versionKeys(def.fields)]) props[k] = undefined;
    props[SERVER_KEY] = undefined;
    Object.assign(props, args);
    // Hidden from the CLI's display (a `__` name): the provider logs progress against it.
    props[URN_KEY] = pulumi.createUrn(name, `pulumi-nodejs:dynamic/${module}:${type}`, opts?.parent);
    const secrets = [...(def.secrets ?? [])];
    const connection = (args as Record<string, unknown>)[CONNECTION_KEY];
    if (connection !== undefined && connection !== null) {
      props[CONNECTION_KEY] = pulumi.secret(connection);
      secrets.push(CONNECTION_KEY);
    }
    const options: pulumi.CustomResourceOptions = {
      ...opts,
      additionalSecretOutputs: [...new Set([...(opts?.additionalSecretOutputs ?? []), ...secrets])],
    };
    super(providerObject(def.kind), name, props, options, module, type);
  }
}
