/** Field rules shared by the transform engine's objects. */
import { z } from "zod";
import type { Context, Props, ResourceDefinition } from "../../core/definition";
import { ConflictError } from "../../http/errors";
import { name } from "../fields";

// Durations are the secrets service's, shared with the other engines.
export { duration } from "../duration";
import { fetchData, listNames, pathOf } from "../pathObject";

export const DEFAULT_TRANSFORM_MOUNT = "transform";

/** An object name; names starting with `builtin/` belong to the service. @internal */
export const transformName = () =>
  z.string().refine((n) => !n.startsWith("builtin/"), 'names starting with "builtin/" are reserved for the built-in objects').pipe(name());

/** A reference to another object: may be a built-in (`builtin/numeric`). @internal */
export const reference = () => z.string().min(1, "must not be empty");

/** A list of names compared as a set. @internal */
export const names = () => z.array(reference(), { error: "must be a list of names" });

/** A sorted copy, so lists the service may reorder compare equal. */
export const sorted = (v: unknown): string[] => (Array.isArray(v) ? v.map(String).sort() : []);

/** Refuses a delete the service would refuse, naming who still uses the object and what to do. */
export function inUse(method: string, route: string, params: Record<string, string>, messages: string[]): ConflictError {
  return new ConflictError({ service: "secrets", method, path: `/${pathOf(route, params)}`, messages });
}

/** Names under `list` whose object (read with `read`) satisfies `uses`. */
export async function usersOf(ctx: Context, mount: string, list: string, read: string, uses: (data: Record<string, unknown>) => boolean): Promise<string[]> {
  const out: string[] = [];
  for (const n of await listNames(ctx, list, { mount })) {
    const data = await fetchData(ctx, read, { mount, name: n });
    if (data && uses(data)) out.push(n);
  }
  return out;
}

/** The engine's objects that may use another: those under `list`, read with `read`, whose `member` names it (or lists it). */
export interface UsedIn {
  list: string;
  read: string;
  member: string;
}

/**
 * `base` with a delete that refuses, naming each user and what to do (`why`), while an object of
 * the engine uses the one deleted: the service would delete it and strand what uses it.
 */
export function deletedOnlyUnused<P extends Props & { mount: string; name: string }>(base: ResourceDefinition<P, P>, deleteRoute: string, used: UsedIn,
  why: (name: string, user: string) => string): ResourceDefinition<P, P> {
  return {
    ...base,
    async delete(ctx, id, props) {
      const names = (d: Record<string, unknown>) => {
        const v = d[used.member];
        return v === props.name || (Array.isArray(v) && v.includes(props.name));
      };
      const users = await usersOf(ctx, props.mount, used.list, used.read, names);
      if (users.length > 0) throw inUse("DELETE", deleteRoute, { mount: props.mount, name: props.name }, users.map((u) => why(props.name, u)));
      await base.delete(ctx, id, props);
    },
  };
}
