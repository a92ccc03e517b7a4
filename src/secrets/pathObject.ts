/**
 * Objects of the secrets service that live at a path (`/{mount}/template/{name}`): written by an
 * idempotent POST, read by GET, removed by DELETE, listed by LIST. Their identity is the path, so
 * replacing one with the same path deletes first (see ResourceDefinition.identity).
 */
import { ConflictError, isSvcError } from "../http";
import type { Context, Props, ResourceDefinition } from "../core/definition";
import { PartialFailure } from "../core/definition";
import { dataOf, keysOf } from "./envelope";

export interface PathRoutes {
  write: string;
  read: string;
  delete: string;
  list: string;
}

export interface PathObjectSpec<In extends Props, Out extends Props>
  extends Omit<ResourceDefinition<In, Out>, "create" | "read" | "update" | "delete"> {
  routes: PathRoutes;
  /** Path parameters of one object, from its inputs or state. */
  params(p: In | Out): Record<string, string>;
  /** The request body of a write. */
  body(inputs: In): Record<string, unknown>;
  /** Server `data` → outputs with the input property names and normalised values. */
  fromData(data: Record<string, unknown>, p: In | Out): Out;
}

/** The path of an object (`transform/template/x`) from a route and its parameters; also its resource id. */
export function pathOf(route: string, params: Record<string, string>): string {
  return route.replace(/^\S+ \//, "").replace(/\{(\w+)\}/g, (_m, k: string) => params[k] ?? "");
}

/** The `data` of a GET, or undefined when the object does not exist (404). */
export async function fetchData(ctx: Context, route: string, params: Record<string, string>): Promise<Record<string, unknown> | undefined> {
  try {
    const res = await ctx.client("secrets").request({ route, params });
    return dataOf(res.body);
  } catch (e) {
    if (isSvcError(e, "not_found")) return undefined;
    throw e;
  }
}

export function pathObject<In extends Props & { adopt?: boolean }, Out extends Props>(
  spec: PathObjectSpec<In, Out>,
): ResourceDefinition<In, Out> {
  const write = async (ctx: Context, inputs: In) => {
    await ctx.client("secrets").request({ route: spec.routes.write, params: spec.params(inputs), body: spec.body(inputs), retry: "safe" });
  };
  const readBack = async (ctx: Context, id: string, inputs: In): Promise<Out> => {
    try {
      const data = await fetchData(ctx, spec.routes.read, spec.params(inputs));
      if (!data) throw new Error(`${id} was written but reads back as missing`);
      return spec.fromData(data, inputs);
    } catch (e) {
      throw new PartialFailure(id, inputs as Props, e as Error);
    }
  };
  return {
    ...spec,
    async create(ctx, inputs) {
      const params = spec.params(inputs);
      const id = pathOf(spec.routes.read, params);
      // Writing is an upsert: without this look, create would silently take over someone's object.
      if (!inputs.adopt && (await fetchData(ctx, spec.routes.read, params))) {
        throw new ConflictError({
          service: "secrets", method: "POST", path: `/${id}`,
          messages: [`${id} already exists; set adopt: true to manage the existing object, or choose another name`],
        });
      }
      await write(ctx, inputs);
      return { id, outs: await readBack(ctx, id, inputs) };
    },
    async read(_ctx, _id, props) {
      const data = await fetchData(_ctx, spec.routes.read, spec.params(props));
      return data ? spec.fromData(data, props) : undefined;
    },
    async update(ctx, id, _olds, news) {
      await write(ctx, news);
      return readBack(ctx, id, news);
    },
    async delete(ctx, _id, props) {
      await ctx.client("secrets").request({ route: spec.routes.delete, params: spec.params(props) });
    },
  };
}

/** Names under a list route; the service answers 404 for an empty list, which is an empty list. */
export async function listNames(ctx: Context, route: string, params: Record<string, string>): Promise<string[]> {
  try {
    const res = await ctx.client("secrets").request({ route, params });
    return keysOf(res.body);
  } catch (e) {
    if (isSvcError(e, "not_found")) return [];
    throw e;
  }
}
