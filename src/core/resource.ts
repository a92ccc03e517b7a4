import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { ADOPT_ID, PROVIDER_KEY, type ResourceDefinition } from "./definition";
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
 * The text the engine stores as each resource's `__provider` and the host evaluates (its
 * `handler()` must return the provider object). Installed under node_modules, it is one require of
 * the kind's generated module (src/scripts/providers.ts), which the host resolves from its working
 * directory as it would the SDK serializer's require, in about 100 characters instead of the
 * serializer's 300: the engine rewrites every resource's entry after each step, so at a thousand
 * resources each character counts. Elsewhere (a checkout, tests under vitest) the SDK serializes
 * the provider object, which captures the trampoline by value.
 */
const serialized = new Map<string, pulumi.Input<string>>();
function serializedProvider(kind: string): pulumi.Input<string> {
  let text = serialized.get(kind);
  if (text !== undefined) return text;
  const file = path.join(__dirname, "..", providerModulePath(kind));
  const built = fs.existsSync(file);
  const posix = file.split(path.sep).join("/");
  const at = posix.lastIndexOf("/node_modules/");
  if (built && at >= 0) {
    text = `exports.handler = () => require(${JSON.stringify(posix.slice(at + "/node_modules/".length))});\n`;
  } else {
    const provider: pulumi.dynamic.ResourceProvider = built ? require(file) : providerFor(kind);
    text = pulumi.output(pulumi.runtime.serializeFunction(() => provider).then((f) => f.text));
  }
  serialized.set(kind, text);
  return text;
}

/**
 * Base of every resource class: the kind's resources are registered as dynamic resources of the
 * type `pulumi-nodejs:dynamic/<service>:<Kind>`, served by the SDK's dynamic-provider host. At run
 * time it is CustomResource itself, so that no frame of this package comes between the SDK's and
 * the user's: the SDK skips a fixed number of frames (Resource, CustomResource, the concrete class)
 * and records the next as the resource's source position, and V8 does not always leave out the
 * frame of a constructor a class inherits. Each kind's class calls `super(...registration(...))`.
 */
export interface SvcResource extends pulumi.CustomResource {
  /**
   * Base URL of the server this resource lives on, recorded when it is created (from its
   * `connection`, else the stack config or environment). A different server later replaces it.
   */
  readonly serverUrl: pulumi.Output<string>;
}
export const SvcResource = pulumi.CustomResource as unknown as abstract new (t: string, name: string, props?: pulumi.Inputs,
  opts?: pulumi.CustomResourceOptions) => SvcResource;

const takers = new Map<string, string>();

/**
 * One program, one taker per object: a second resource of the kind given the same `adoptId` fails
 * here, before either is registered (an id that comes as an Output, when it is known, before that
 * resource is). The provider process refuses takers the program cannot see (docs/adopting.md).
 */
function takenOnce(kind: string, name: string, adoptId: unknown): unknown {
  const claim = (id: unknown) => {
    if (typeof id !== "string") return id;
    const other = takers.get(`${kind}\n${id}`);
    if (other !== undefined && other !== name) {
      throw new Error(`${kind} "${name}": adoptId ${id} is given to "${other}" too; one object can belong to one resource`);
    }
    takers.set(`${kind}\n${id}`, name);
    return id;
  };
  return pulumi.Output.isInstance(adoptId) ? adoptId.apply(claim) : claim(adoptId);
}

/**
 * The arguments of a kind's `super` call: its type token, its properties with the serialized
 * provider, and the options that mark its secret outputs secret. Every kind takes a `connection`
 * input (src/core/connection.ts): it is made secret as a whole, because it may hold a token that the
 * provider needs again to refresh and delete the object.
 */
export function registration(def: Pick<ResourceDefinition, "kind" | "outputs" | "secrets" | "fields">, name: string, args: object,
  opts?: pulumi.CustomResourceOptions): [string, string, pulumi.Inputs, pulumi.CustomResourceOptions] {
  const [module, type] = def.kind.split(":");
  const token = `pulumi-nodejs:dynamic/${module}:${type}`;
  // The SDK serializes inputs by assigning keys, so a "__proto__" key in a plain value would be
  // dropped before check could refuse it: refuse it here (values inside Outputs are checked there).
  const lost = valueProblems(args).filter((f) => f.property.endsWith("__proto__"));
  if (lost.length > 0) throw new Error(`${def.kind} "${name}": ${describeFailures(lost)}`);
  const props: Record<string, unknown> = {};
  // The SDK makes an Output property only for a key it is given: every declared field must be
  // present (as undefined when the program left it out), so `resource.mount` exists, carries the
  // value the provider settled on (a default included) and orders whatever refers to it.
  for (const k of [...Object.keys(def.fields ?? {}), ...def.outputs, ...versionKeys(def.fields)]) props[k] = undefined;
  props[SERVER_KEY] = undefined;
  Object.assign(props, args);
  // Hidden from the CLI's display (a `__` name): the provider logs progress against it.
  props[URN_KEY] = pulumi.createUrn(name, token, opts?.parent);
  const secrets = [...(def.secrets ?? [])];
  const connection = (args as Record<string, unknown>)[CONNECTION_KEY];
  if (connection !== undefined && connection !== null) {
    props[CONNECTION_KEY] = pulumi.secret(connection);
    secrets.push(CONNECTION_KEY);
  }
  if (ADOPT_ID in props && props[ADOPT_ID] !== undefined) props[ADOPT_ID] = takenOnce(def.kind, name, props[ADOPT_ID]);
  if (PROVIDER_KEY in props) throw new Error(`${def.kind} "${name}": ${PROVIDER_KEY} is the engine's own key, not an argument`);
  props[PROVIDER_KEY] = serializedProvider(def.kind);
  const options: pulumi.CustomResourceOptions = {
    ...opts,
    additionalSecretOutputs: [...new Set([...(opts?.additionalSecretOutputs ?? []), ...secrets])],
  };
  return [token, name, props, options];
}
