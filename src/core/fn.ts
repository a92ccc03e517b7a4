import * as pulumi from "@pulumi/pulumi";
import { baseUrlProblem, missingSettings, unknownSettings, type ConfigSource } from "./config";
import { InvalidInputError, type Service } from "../http";
import { connectionSource, limitProblem, unknownMember } from "./connected";
import type { Connection, ServiceName } from "./connection";
import { makeContext } from "./context";
import type { Context, Props } from "./definition";
import { fieldSet, registerSecrets, type Fields } from "./fields";
import { validate, type Schema } from "./validate";
import { planned } from "./planned";

/**
 * A function of a service: its arguments `A`, its result `R`, and the service `S` whose connection
 * its options take (the secrets service unless it declares `service`). Its two forms, with their
 * signatures, derive from it (src/core/forms.ts).
 */
export interface FunctionDefinition<A, R, S extends Service = "secrets"> {
  /** The function's name as users call it, for messages. */
  name: string;
  /** The arguments' schema; without one, the schema `fieldSet(fields)` derives from the record. */
  schema?(): Schema;
  /** The argument fields, when declared as a record: their secret values are registered for redaction. */
  fields?: Fields;
  /** A side-effecting function makes no request during preview and yields an unknown Output. */
  sideEffects: boolean;
  /**
   * The service it talks to; a connection given to the call applies to it (default: any it uses).
   * Undeclared means the secrets service, whose settings a side-effecting function then checks
   * during preview: every run-service function declares `service: "runs"`.
   */
  service?: S;
  /** Calls only endpoints that need no token (replication status): no token is required, none is sent when unset. */
  tokenless?: boolean;
  run(ctx: Context, args: A): Promise<R>;
}

/**
 * Options of every Promise form, shaped like `pulumi.InvokeOptions`. The functions call the service
 * directly from the program, so `parent`, `provider`, `version` and `pluginDownloadURL` are accepted
 * for compatibility and have no effect.
 *
 * @remarks
 * Each function has a Promise form and an Output form (`fooOutput(args)`, which accepts Inputs).
 * Arguments are validated before any request, with the property named in the error; every error of
 * a function starts with its name (`getKey: GET /keymgmt/key/app: 404 ...`). Functions with side
 * effects make no request during preview: the Output form is unknown and the Promise form resolves
 * to `undefined`; they still validate their arguments and fail the preview, naming the config key
 * and the variable, when their service's URL or token is not configured (neither by stack config,
 * environment nor the call's `connection`); test/unit/invoke-options.test.ts finds every one of them
 * through the public surface. Read-only functions also run during preview. A listing the service
 * answers with 404 (its way of saying "no entries") is an empty list.
 */
export interface SvcInvokeOptions<S extends ServiceName = ServiceName> extends pulumi.InvokeOptions {
  /** The server to call (default: the stack config, then the environment). */
  connection?: Connection<S>;
}

/**
 * Options of every Output form, shaped like `pulumi.InvokeOutputOptions`.
 *
 * @remarks
 * `dependsOn` makes the Output form wait for resources; so do the resources whose outputs feed its
 * arguments. While one of them is not created yet (a first preview), the result is unknown and no
 * request is made, so `getKeyOutput({ name: key.name })` previews cleanly before the key exists.
 */
export interface SvcInvokeOutputOptions<S extends ServiceName = ServiceName> extends SvcInvokeOptions<S> {
  /**
   * Resources to wait for. While one of them (or one whose output feeds the arguments) is not
   * created yet, as in a first preview, the result is unknown and no request is made.
   */
  dependsOn?: pulumi.Input<pulumi.Input<pulumi.Resource>[]> | pulumi.Input<pulumi.Resource>;
}

/** Stack config of the running program (`svc:*`), read at call time; environment variables follow. */
const programConfig: ConfigSource = (key) => {
  try {
    return pulumi.runtime.getConfig(key);
  } catch {
    return undefined;
  }
};
programConfig.keys = () => {
  try {
    return Object.keys(pulumi.runtime.allConfig());
  } catch {
    return [];
  }
};

function inPreview(): boolean {
  try {
    return pulumi.runtime.isDryRun();
  } catch {
    return false;
  }
}

/** The service whose settings a function needs (see FunctionDefinition.service). */
function serviceOf(def: FunctionDefinition<unknown, unknown, Service>): Service {
  return def.service ?? "secrets";
}

/** The schemas derived from field records, one per record. */
const derived = new WeakMap<Fields, () => Schema>();

/**
 * A definition's own schema, else the one `fieldSet(fields)` derives from its record (built on first
 * use; making the field set registers the record's secret field names for redaction at once).
 */
export function schemaOf(def: FunctionDefinition<unknown, unknown, Service>): () => Schema {
  if (def.schema) return def.schema;
  if (!def.fields) throw new Error(`${def.name}: a function definition needs a schema or a field record`);
  let schema = derived.get(def.fields);
  if (!schema) derived.set(def.fields, (schema = fieldSet(def.fields).schema));
  return schema;
}

/** Validates with the same rules as check: the error names the property. */
export function validated<A>(def: FunctionDefinition<A, unknown, Service>, args: A): A {
  if (def.fields) registerSecrets(def.fields, args as Props);
  const failures = validate(schemaOf(def as FunctionDefinition<unknown, unknown, Service>)(), args);
  if (failures.length > 0) throw new InvalidInputError(failures.map((f) => ({ path: f.property, message: f.reason })), { method: def.name });
  return args;
}

/** A Context for program-side forms that are neither Promise nor Output (async iterators). */
export function programContext(connection?: { url?: unknown; token?: unknown; service?: unknown }, service?: Service, tokenless = false): Context {
  checkConnectionUrl(connection);
  return makeContext(connectionSource(programConfig, service, connection), tokenless);
}

/** A connection's URL and limit are refused as `connection.<member>`, not under the config key they stand in for. */
function checkConnectionUrl(connection: { url?: unknown; maxConcurrentRequests?: unknown } | undefined): void {
  const problems: { path: string; message: string }[] = [];
  for (const k of Object.keys(connection ?? {})) {
    const unknown = unknownMember(k);
    if (unknown) problems.push({ path: `connection.${k}`, message: unknown });
  }
  const url = connection?.url;
  const problem = typeof url === "string" && url !== "" ? baseUrlProblem(url) : undefined;
  if (problem) problems.push({ path: "connection.url", message: problem });
  const badLimit = limitProblem(connection?.maxConcurrentRequests);
  if (badLimit) problems.push({ path: "connection.maxConcurrentRequests", message: badLimit });
  if (problems.length > 0) throw new InvalidInputError(problems);
}

/** Every error of a function names it, whatever layer it comes from. */
export function named(def: FunctionDefinition<unknown, unknown, Service>, e: unknown): unknown {
  if (e instanceof Error && !e.message.startsWith(`${def.name}:`) && !e.message.startsWith(`${def.name} `)) {
    e.message = `${def.name}: ${e.message}`;
  }
  return e;
}

/**
 * In preview a side-effecting function makes no request; it still rejects bad arguments and fails
 * when its service is not configured, naming the config key and the variable, so preview catches
 * what `up` would.
 */
function checkInPreview(def: FunctionDefinition<unknown, unknown, Service>, args: unknown, connection: unknown): void {
  validated(def, args);
  checkConnectionUrl(connection as { url?: unknown } | undefined);
  // The connection applies as it would when the function runs (see run below).
  const source = connectionSource(programConfig, def.service, connection as { url?: unknown } | undefined);
  const missing = [...missingSettings(serviceOf(def), source).filter((m) => !def.tokenless || !m.includes("token")), ...unknownSettings(source)];
  if (missing.length > 0) throw new Error(missing.join("; "));
  void pulumi.log.info(planned(def, args));
}

async function run<A, R>(def: FunctionDefinition<A, R, Service>, args: A, connection: unknown): Promise<R> {
  const ctx = programContext(connection as { url?: unknown }, def.service, def.tokenless);
  return def.run(ctx, validated(def, args));
}

/** The plain value of an Output (internal SDK API, present throughout 3.x), or the value itself. */
export async function settle<T>(value: pulumi.Input<T> | undefined): Promise<T | undefined> {
  const o = pulumi.output(value) as unknown as { promise?: () => Promise<T> };
  return typeof o.promise === "function" ? o.promise() : (value as T | undefined);
}

/**
 * The Promise form. During preview a side-effecting function makes no request and resolves to
 * undefined (after checking its arguments and settings); the Output form is the one to use where
 * the result feeds other resources.
 */
export function invoke<A, R>(def: FunctionDefinition<A, R, Service>, args: A, opts: SvcInvokeOptions = {}): Promise<R> {
  return Promise.resolve().then(async () => {
    const connection = await settle(opts.connection as pulumi.Input<Connection> | undefined);
    if (def.sideEffects && inPreview()) {
      checkInPreview(def as FunctionDefinition<unknown, unknown, Service>, args, connection);
      return undefined as R;
    }
    return run(def, args, connection);
  }).catch((e) => { throw named(def as FunctionDefinition<unknown, unknown, Service>, e); });
}

/** Resources given to dependsOn, flattened; Outputs and promises of resources are waited for. */
async function dependencies(dependsOn: SvcInvokeOutputOptions["dependsOn"]): Promise<pulumi.Resource[]> {
  if (dependsOn === undefined) return [];
  const value = await settle(dependsOn as pulumi.Input<unknown>);
  const list = Array.isArray(value) ? value : [value];
  const out: pulumi.Resource[] = [];
  for (const item of list) {
    const r = await settle(item as pulumi.Input<unknown>);
    if (r !== undefined && r !== null) out.push(r as pulumi.Resource);
  }
  return out;
}

/**
 * The Output form. It waits for its Input arguments, its connection and its dependencies: the
 * resources given in `dependsOn` and those whose outputs feed the arguments. A custom resource's id
 * is unknown until it is created, so while one of them is not created yet (a first preview) the
 * result is unknown and no request is made. A side-effecting function is unknown in every preview.
 */
export function invokeOutput<A, R>(def: FunctionDefinition<A, R, Service>, args: pulumi.Input<A> | pulumi.Inputs,
  opts: SvcInvokeOutputOptions = {}): pulumi.Output<R> {
  const argsOut = pulumi.output(args as pulumi.Input<A>);
  const ready = (async () => {
    const fed = await (argsOut as unknown as { allResources?: () => Promise<Set<pulumi.Resource>> }).allResources?.() ?? new Set();
    const deps = [...new Set([...fed, ...(await dependencies(opts.dependsOn))])];
    const ids = deps.filter((r) => pulumi.CustomResource.isInstance(r)).map((r) => (r as pulumi.CustomResource).id);
    // The token is secret, the result is not made of it: only secret arguments make a secret result.
    const connection = pulumi.unsecret(pulumi.output(opts.connection as pulumi.Input<Connection> | undefined));
    const all = pulumi.all([argsOut, connection, pulumi.all(ids)]);
    // Not known in this preview, the call below never runs: the preview still says it will be made.
    if (def.sideEffects && inPreview() && await (all as unknown as { isKnown?: Promise<boolean> }).isKnown === false) {
      void pulumi.log.info(`${planned(def, undefined)} (with arguments known only then)`);
    }
    return all;
  })();
  return pulumi.output(ready).apply(async ([plain, connection]) => {
    try {
      if (def.sideEffects && inPreview()) {
        checkInPreview(def as FunctionDefinition<unknown, unknown, Service>, plain, connection);
        return pulumi.unknown as unknown as R;
      }
      return await run(def, plain as A, connection);
    } catch (e) {
      throw named(def as FunctionDefinition<unknown, unknown, Service>, e);
    }
  }) as unknown as pulumi.Output<R>;
}
