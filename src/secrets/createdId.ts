/**
 * Lost-create lookups of secrets objects whose id the server assigns (entity aliases, MFA methods).
 * Apart from pathObject.ts, so a path-keyed object, whose id is its path, does not load createOnce.
 */
import type { Context } from "../core/definition";
import { firstNew } from "../core/createOnce";
import { fetchData, listNames } from "./pathObject";

/**
 * The id of the object a lost create made, for an object whose id the server assigns: among the ids
 * listed at `routes.list` now, the first new one (see firstNew) whose read at `routes.read` `matches`.
 */
export async function createdId(ctx: Context, routes: { list: string; read: string }, before: ReadonlySet<string>,
  owned: (id: string) => boolean, matches: (data: Record<string, unknown>) => boolean): Promise<string | undefined> {
  return firstNew(await listNames(ctx, routes.list, {}), (id) => id, before, owned, async (id) => {
    const data = await fetchData(ctx, routes.read, { id });
    return data !== undefined && matches(data);
  });
}

/** Every object listed at `routes.list` whose read `matches`: the lookalikes a create would duplicate. */
export async function matchingIds(ctx: Context, routes: { list: string; read: string }, matches: (data: Record<string, unknown>) => boolean): Promise<string[]> {
  const ids = await listNames(ctx, routes.list, {});
  // All at once: the client holds requests in flight to one server to its limit.
  const same = await Promise.all(ids.map(async (id) => {
    const data = await fetchData(ctx, routes.read, { id });
    return data !== undefined && matches(data);
  }));
  return ids.filter((_, i) => same[i]);
}
