/**
 * Objects of the secrets service that live at a path (`/{mount}/template/{name}`): written by an
 * idempotent POST, read by GET, removed by DELETE, listed by LIST. Their identity is the path, so
 * replacing one with the same path deletes first (see ResourceDefinition.identity).
 */
import { ConflictError, isAmbiguous } from "../http/errors";
import type { Context, Props, ResourceDefinition } from "../core/definition";
import { PartialFailure } from "../core/definition";
import { pathOf } from "../core/path";
import { routeParams } from "../http/route";
import { STOPPED_UP } from "../core/leftovers";
import { dataOf, keysOf } from "./envelope";
import type { Fields, FieldSet } from "../core/fields";
import type { FunctionDefinition } from "../core/fn";
import type { Schema } from "../core/validate";

/** A field set's members that are also ResourceDefinition members (the wire helpers stay out). */
function withoutBuilders(set: FieldSet): Omit<FieldSet, "body" | "decode" | "wire" | "inputs"> {
  const { body: _b, decode: _d, wire: _w, inputs: _i, ...rest } = set;
  return rest;
}

/** A path-keyed object's requests (a type, not an interface: it is also a definition's `routes` record). */
export type PathRoutes = {
  write: string;
  read: string;
  delete: string;
  list: string;
};

export interface PathObjectSpec<In extends Props, Out extends Props>
  extends Omit<ResourceDefinition<In, Out>, "create" | "read" | "update" | "delete" | "schema" | "outputs" | "fields" | "routes"> {
  routes: PathRoutes;
  /** The object's fields; schema, key lists, params, body and decoding derive from them by default. */
  fields?: FieldSet;
  schema?(): Schema;
  outputs?: ReadonlyArray<string>;
  /** Path parameters of one object; default: the fields named in the read route. */
  params?(p: In | Out): Record<string, string>;
  /** The request body of a write; default: every input field that is not a path parameter. */
  body?(inputs: In): Record<string, unknown>;
  /** Server `data` → outputs with the input property names; default: the fields' own decoding. */
  fromData?(data: Record<string, unknown>, p: In | Out): Out;
}

export { pathOf };

/** The `data` of a GET, or undefined when the object does not exist (404). */
export async function fetchData(ctx: Context, route: string, params: Record<string, string>): Promise<Record<string, unknown> | undefined> {
  // A missing object is an expected answer here, not an error to build and redact.
  const res = await ctx.client("secrets").request({ route, params, expect: [404] });
  return res.status === 404 ? undefined : dataOf(res.body);
}

/** An object read at its path and decoded; undefined when it does not exist (404). */
export async function readDecoded<T>(ctx: Context, route: string, params: Record<string, string>,
  decode: (data: Record<string, unknown>) => T): Promise<T | undefined> {
  const data = await fetchData(ctx, route, params);
  return data ? decode(data) : undefined;
}

/**
 * What a function reports of an object: its read at `route`, `data` decoded (an answer without
 * `data` decodes as `{}`, the fields' defaults). A missing object is the service's 404 error.
 */
export async function reportOf<T>(ctx: Context, route: string, params: Record<string, string>,
  decode: (data: Record<string, unknown>) => T): Promise<T> {
  const res = await ctx.client("secrets").request({ route, params });
  return decode((res.body as { data?: Record<string, unknown> } | undefined)?.data ?? {});
}

/**
 * Writes are upserts, so a create that found an object at its path would silently take over
 * something this stack does not own: it fails instead, unless `adopt` is set.
 */
export function alreadyExists(method: string, id: string, what = "object"): ConflictError {
  return new ConflictError({
    service: "secrets", method, path: `/${id}`,
    messages: [`${id} already exists. ${STOPPED_UP}. If you renamed this resource in your program, give it aliases: ` +
      `[{ name: "<its old name>" }] in its resource options instead, so Pulumi keeps the object as it is (with adopt, the old ` +
      `resource's delete would remove the ${what}). If this resource is being replaced with deleteBeforeReplace: false, remove ` +
      `that option: the replacement is made while the old ${what} is still there. Otherwise, to manage the existing ${what}, ` +
      `set adopt: true, or choose another name`],
  });
}

/** Reads back an object just written. It exists now, so a failure keeps it in state (PartialFailure). */
export async function readBack<T>(id: string, inputs: Props, read: () => Promise<T | undefined>): Promise<T> {
  try {
    const out = await read();
    if (out === undefined) throw new Error(`${id} was written but reads back as missing`);
    return out;
  } catch (e) {
    throw new PartialFailure(id, inputs, e as Error);
  }
}

/**
 * The creating write of an object whose path was free a moment ago. When its outcome is unknown
 * (the client's retries ran out on a lost response, a 5xx or a 429) the path is read: an object
 * there now is the one this write made, so the create goes on with it (its values are read back).
 * Otherwise the next up would find an object it cannot tell from someone else's.
 */
export async function writeNew(ctx: Context, write: () => Promise<unknown>, readRoute: string, params: Record<string, string>): Promise<void> {
  try {
    await write();
  } catch (e) {
    if (!isAmbiguous(e)) throw e;
    let there: Record<string, unknown> | undefined;
    try {
      there = await fetchData(ctx, readRoute, params);
    } catch {
      throw e;
    }
    if (!there) throw e;
    ctx.log(`${pathOf(readRoute, params)}: the create's response was lost (${(e as Error).message}), but the object is there: keeping it`);
  }
}

/**
 * Rotates a versioned key once. A rotation whose outcome is unknown (lost response, 5xx, 429) is
 * read back: it counts as done only when `latest_version` moved, so a lost response never leads to
 * a second rotation on the next up, and a rotation that did not happen is not recorded.
 */
export async function rotateOnce(ctx: Context, routes: { read: string; rotate: string }, params: Record<string, string>, what: string): Promise<void> {
  const before = await fetchData(ctx, routes.read, params);
  try {
    await ctx.client("secrets").request({ route: routes.rotate, params });
  } catch (e) {
    if (!isAmbiguous(e)) throw e;
    let after: Record<string, unknown> | undefined;
    try {
      after = await fetchData(ctx, routes.read, params);
    } catch (readError) {
      (e as Error).message += ` (whether ${what} was rotated is unknown: reading it back failed too: ${(readError as Error).message}; ` +
        `compare its latest_version before running pulumi up again, which would rotate it)`;
      throw e;
    }
    if (Number(after?.latest_version ?? 0) > Number(before?.latest_version ?? 0)) {
      ctx.log(`${what}: the rotate response was lost (${(e as Error).message}), but it is at version ${String(after?.latest_version)}: rotated`);
      return;
    }
    throw e;
  }
}

/** How an object written by an upsert at its path is written and read (see upserted). */
export interface Upsert<S extends Props> {
  /** The route that reads it; its path is the object's id. */
  read: string;
  /** The request method of its write, as a refusal names it. */
  method: string;
  /** What it is, as a refusal names it (`KMS provider`). */
  what?: string;
  params(p: S): Record<string, string>;
  write(ctx: Context, p: S): Promise<unknown>;
  readBack(ctx: Context, p: S): Promise<S | undefined>;
  /** The object at the path, when the read route does not tell alone (a built-in plugin is none). */
  existing?(ctx: Context, p: S): Promise<Record<string, unknown> | undefined>;
  /** Why the object found at the path cannot be taken over with these inputs (`adopt` with another type). */
  refuse?(existing: Record<string, unknown>, p: S, id: string): Error | undefined;
}

/**
 * The create and update of an object written by an upsert at its path. A create refuses an object
 * already there unless `adopt` is set (and `refuse` has no objection), writes it (a lost response
 * is read back: writeNew) and reads it back; an update writes and reads back. A failure after the
 * write keeps the object in state (readBack).
 */
export function upserted<S extends Props & { adopt?: boolean }>(how: Upsert<S>): Pick<ResourceDefinition<S, S>, "create" | "update"> {
  return {
    async create(ctx, inputs) {
      const params = how.params(inputs);
      const id = pathOf(how.read, params);
      // Adopting, a plain upsert has nothing to check; one with its own reading or objections reads first.
      if (!inputs.adopt || how.refuse || how.existing) {
        const existing = how.existing ? await how.existing(ctx, inputs) : await fetchData(ctx, how.read, params);
        if (existing && !inputs.adopt) throw alreadyExists(how.method, id, how.what);
        const refused = existing ? how.refuse?.(existing, inputs, id) : undefined;
        if (refused) throw refused;
      }
      await writeNew(ctx, () => how.write(ctx, inputs), how.read, params);
      return { id, outs: await readBack(id, inputs, () => how.readBack(ctx, inputs)) };
    },
    async update(ctx, id, _olds, news) {
      await how.write(ctx, news);
      return readBack(id, news, () => how.readBack(ctx, news));
    },
  };
}

export function pathObject<In extends Props & { adopt?: boolean }, Out extends Props>(
  given: PathObjectSpec<In, Out>,
): ResourceDefinition<In, Out> {
  const set = given.fields;
  const names = routeParams(given.routes.read);
  const derived = {
    // Each request of an operation asks again: a loop, not entries built and read back.
    params: (p: In | Out) => {
      const out: Record<string, string> = {};
      for (const n of names) out[n] = String(p[n] ?? "");
      return out;
    },
    body: (p: In) => set!.body(p, names),
    fromData: (d: Record<string, unknown>, p: In | Out) => set!.decode(d, p) as Out,
  };
  const { fields: _fields, ...rest } = given;
  const spec = { ...(set ? { ...withoutBuilders(set), ...derived } : {}), ...rest } as Omit<PathObjectSpec<In, Out>, "fields"> &
    typeof derived & { schema(): Schema; outputs: string[]; fields?: Fields };
  const read = (ctx: Context, p: In | Out) => readDecoded(ctx, spec.routes.read, spec.params(p), (data) => spec.fromData(data, p));
  // In and Out are the same state for every path object (a create's outputs are its inputs read back).
  const writes = upserted<In>({
    read: spec.routes.read, method: "POST", params: spec.params,
    write: (ctx, inputs) => ctx.client("secrets").request({ route: spec.routes.write, params: spec.params(inputs), body: spec.body(inputs), retry: "safe" }),
    readBack: read as (ctx: Context, p: In) => Promise<In | undefined>,
  }) as unknown as Pick<ResourceDefinition<In, Out>, "create" | "update">;
  return {
    ...(spec as Omit<typeof spec, "params" | "body" | "fromData">),
    path: spec.path ?? { route: spec.routes.read },
    discover: spec.discover ?? { list: spec.routes.list },
    ...writes,
    read: (ctx, _id, props) => read(ctx, props),
    async delete(ctx, _id, props) {
      await ctx.client("secrets").request({ route: spec.routes.delete, params: spec.params(props) });
    },
  };
}

/** Names under a list route; the service answers 404 for an empty list, which is an empty list. */
export async function listNames(ctx: Context, route: string, params: Record<string, string>, query?: Record<string, string>): Promise<string[]> {
  const res = await ctx.client("secrets").request({ route, params, query, expect: [404] });
  return res.status === 404 ? [] : keysOf(res.body);
}

/** The path parameters named like the fields: each argument given, else its field's default. */
function paramsOf(fields: Fields, args: Props): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in fields) {
    const v = args[k] ?? fields[k]!.default;
    if (v !== undefined) out[k] = String(v);
  }
  return out;
}

/** What a list function answers. */
export interface NameList {
  /** The names (or ids) listed; empty when there are none. */
  keys: string[];
}

/**
 * A function listing the names under a list route (`listRoles`, `listKmsProviders`, ...), in the
 * service's order; it only reads. The route's parameters are the arguments, with their fields'
 * defaults (a mount), unless `params` says otherwise.
 */
export function namesFunction<A extends object>(def: Pick<FunctionDefinition<A, unknown>, "name" | "service"> & { fields: Fields }, route: string,
  params: (args: A) => Record<string, string> = (args) => paramsOf(def.fields, args as Props)): FunctionDefinition<A, NameList> {
  return { ...def, sideEffects: false, run: async (ctx, args) => ({ keys: await listNames(ctx, route, params(args)) }) };
}
