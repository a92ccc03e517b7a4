import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { ADOPT_ID, PROVIDER_KEY, type ResourceDefinition } from "./definition";
import { CONNECTION_KEY, READ_KEY, SERVER_KEY, URN_KEY } from "./connected";
import { builtProviderText, providerModulePath } from "./providerText";
import { providerFor } from "./trampoline";
import { typeToken } from "./token";
import { describeFailures, valueProblems } from "./validate";
import { versionKeys } from "./versions";

/**
 * The text each resource's state keeps as `__provider` (src/core/providerText.ts): where the build
 * wrote the kind's provider module, a require of it (the installed package's one line, or a
 * checkout's by name, else by path); elsewhere (tests under vitest, from the TypeScript sources)
 * the SDK serializes the provider object, which captures the trampoline by value.
 */
const serialized = new Map<string, pulumi.Input<string>>();
function serializedProvider(kind: string): pulumi.Input<string> {
  let text = serialized.get(kind);
  if (text !== undefined) return text;
  const file = path.join(__dirname, "..", providerModulePath(kind));
  if (fs.existsSync(file)) {
    text = builtProviderText(kind, file);
  } else {
    const provider = providerFor(kind);
    text = pulumi.output(pulumi.runtime.serializeFunction(() => provider).then((f) => f.text));
  }
  serialized.set(kind, text);
  return text;
}

/**
 * What every kind's resource is: a CustomResource registered as a dynamic resource of the type
 * `pulumi-nodejs:dynamic/<service>:<Kind>`, served by the SDK's dynamic-provider host.
 */
export interface SvcResource extends pulumi.CustomResource {
  /**
   * Base URL of the server this resource lives on, recorded when it is created (from its
   * `connection`, else the stack config or environment). A different server later replaces it.
   */
  readonly serverUrl: pulumi.Output<string>;
}

/** A kind's resource class, as `get` and `isInstance` see it through `this`. */
type KindClass = new (name: string, args: any, opts?: pulumi.CustomResourceOptions) => SvcResource;

/** What `get` takes as the object's state: any of the class's arguments. */
type StateOf<C extends KindClass> = Partial<Exclude<ConstructorParameters<C>[1], undefined>>;

/** The static side every kind's class inherits: its construction by the kind's `super` call, `get` and `isInstance`. */
export interface SvcResourceClass {
  new (type: string, name: string, props?: pulumi.Inputs, opts?: pulumi.CustomResourceOptions): SvcResource;
  /**
   * Reads an existing object of this kind into the program without managing it, as every Pulumi
   * provider's static `get` does: the engine reads it on each preview and `up` (shown as `(read)`),
   * its outputs are what the server holds, and it is never created, updated or deleted.
   *
   * @param name The resource's name in this program.
   * @param id The object's id: for an object at a path, its path (`keymgmt/key/signing`, the form
   *   on its reference page), from which the read takes the inputs that name it; for an object
   *   whose id the service assigns, that id (`nc-…`, a UUID).
   * @param state Optional arguments of the class: a `connection` to read through, or inputs that
   *   name the object (they must agree with the id). Only the id is needed.
   * @param opts Resource options (`parent`, `dependsOn`, `provider`-free options); `id` is set from `id`.
   *
   * @example
   * ```ts
   * const signing = svc.secrets.keymgmt.Key.get("signing", "keymgmt/key/signing");
   * export const version = signing.latestVersion;
   * ```
   */
  get<C extends KindClass>(this: C, name: string, id: pulumi.Input<pulumi.ID>, state?: StateOf<C>, opts?: pulumi.CustomResourceOptions): InstanceType<C>;
  /**
   * Whether `obj` is a resource of this class, also when it was made by another copy of the
   * package loaded in the same program (it compares the resource's type token).
   */
  isInstance<C extends KindClass>(this: C, obj: unknown): obj is InstanceType<C>;
  /** @internal The type token of this class's resources (`pulumi-nodejs:dynamic/secrets:KeymgmtKey`). */
  readonly __pulumiType: string;
}

/** Each kind's base → its definition. */
const kinds = new WeakMap<object, KindDefinition>();
type KindDefinition = Pick<ResourceDefinition, "kind" | "outputs" | "secrets" | "fields" | "unreadable">;

/**
 * The base a kind's class extends: `export class Key extends SvcResource(keyDefinition)`, whose
 * constructor is only `super(...registration(new.target, name, args, opts))`. It carries the kind's
 * definition, `get` and `isInstance` without being a class of its own: it is CustomResource bound
 * (a bound constructor is no frame of the stack), so that no frame of this package comes between
 * the SDK's and the user's. The SDK skips a fixed number of frames (Resource, CustomResource, the
 * concrete class) and records the next as the resource's source position, and V8 does not always
 * leave out the frame of a constructor a class inherits.
 */
export function SvcResource(def: KindDefinition): SvcResourceClass {
  const base = pulumi.CustomResource.bind(undefined);
  Object.defineProperty(base, "prototype", { value: pulumi.CustomResource.prototype });
  Object.setPrototypeOf(base, pulumi.CustomResource);
  const token = typeToken(def.kind);
  Object.defineProperties(base, {
    get: { value: function get(this: KindClass, name: string, id: pulumi.Input<pulumi.ID>, state?: object, opts?: pulumi.CustomResourceOptions) {
      return new this(name, state ?? {}, { ...opts, id });
    } },
    isInstance: { value: (obj: unknown) => typeof obj === "object" && obj !== null && (obj as { __pulumiType?: unknown }).__pulumiType === token },
    // The class's type token where every Pulumi resource class has it: CrossGuard's
    // validateResourceOfType reads it to skip resources of other types without calling the policy.
    __pulumiType: { value: token },
  });
  kinds.set(base, def);
  return base as unknown as SvcResourceClass;
}

/** The definition of the kind whose base `cls` (a kind's class, or a user's subclass of one) extends. */
function definitionOf(cls: object): KindDefinition {
  for (let c: object | null = cls; c !== null; c = Object.getPrototypeOf(c) as object | null) {
    const def = kinds.get(c);
    if (def) return def;
  }
  throw new Error(`${(cls as { name?: string }).name ?? "this class"} does not extend SvcResource(definition)`);
}

/**
 * The takers of one run of the program. The CLI runs each in a process of its own;
 * pulumi-svc/testing runs a file's stacks and operations in one process, each in the SDK's async
 * context of its own (its withLocalStorage, as the Automation API's inline programs), whose store
 * then keys them, so one stack's takers never refuse another's.
 */
const takersOfRun = new WeakMap<object, Map<string, string>>();
const takersOfProcess = new Map<string, string>();

function takersNow(): Map<string, string> {
  const state = require("@pulumi/pulumi/runtime/state") as { getLocalStore?: () => object | undefined };
  const run = typeof state.getLocalStore === "function" ? state.getLocalStore() : undefined;
  if (run === undefined) return takersOfProcess;
  let takers = takersOfRun.get(run);
  if (takers === undefined) takersOfRun.set(run, (takers = new Map()));
  return takers;
}

/**
 * One program, one taker per object: a second resource of the kind given the same `adoptId` fails
 * here, before either is registered (an id that comes as an Output, when it is known, before that
 * resource is). The provider process refuses takers the program cannot see (docs/adopting.md).
 */
function takenOnce(kind: string, name: string, adoptId: unknown): unknown {
  const takers = takersNow();
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
 * The arguments of a kind's `super` call (`cls` is `new.target`: the kind's class, whose base holds
 * its definition): its type token, its properties with the serialized provider, and the options
 * that mark its secret outputs secret. Every kind takes a `connection`
 * input (src/core/connection.ts): it is made secret as a whole, because it may hold a token that the
 * provider needs again to refresh and delete the object.
 */
export function registration(cls: object, name: string, args: object,
  opts?: pulumi.CustomResourceOptions): [string, string, pulumi.Inputs, pulumi.CustomResourceOptions] {
  const def = definitionOf(cls);
  const token = typeToken(def.kind);
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
  if (opts?.id !== undefined) {
    // A read resource (`get`, `id` in the options): the provider's read must know it is one.
    if (def.unreadable) throw new Error(`${def.kind} "${name}": cannot be read by its id: ${def.unreadable}`);
    props[READ_KEY] = true;
  }
  props[PROVIDER_KEY] = serializedProvider(def.kind);
  refuseCreateFirstTakeOver(def.kind, name, args, opts);
  const options: pulumi.CustomResourceOptions = {
    ...opts,
    additionalSecretOutputs: [...new Set([...(opts?.additionalSecretOutputs ?? []), ...secrets])],
    // A replacement the user asks for (`pulumi up --replace`, `--target-replace`, a tainted
    // resource) gets no Diff: its order comes from this option alone (pulumi/pulumi#9924). Every
    // object of these services is known by something its replacement keeps (a path, its values, a
    // name in a mount, a cluster's one mode), so a replacement made first would meet the old one.
    deleteBeforeReplace: opts?.deleteBeforeReplace ?? true,
  };
  return [token, name, props, options];
}

/**
 * `deleteBeforeReplace: false` with `adopt` or `adoptId`: a replacement on request creates first,
 * so it would take over the very object it replaces, and the engine would then delete it.
 */
function refuseCreateFirstTakeOver(kind: string, name: string, args: object, opts?: pulumi.CustomResourceOptions): void {
  const given = args as Record<string, unknown>;
  const taking = given.adopt === true ? "adopt: true" : given[ADOPT_ID] !== undefined && given[ADOPT_ID] !== null ? ADOPT_ID : undefined;
  if (opts?.deleteBeforeReplace !== false || taking === undefined) return;
  throw new Error(`${kind} "${name}": deleteBeforeReplace: false cannot go with ${taking}: a replacement made before the old object is ` +
    `deleted (pulumi up --replace) would take over that object and the engine would then delete it; drop one of the two`);
}
