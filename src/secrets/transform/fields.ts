/** Field rules shared by the transform engine's objects. */
import { z } from "../../core/zod";
import type { Context, Props, ResourceDefinition } from "../../core/definition";
import { ConflictError } from "../../http/errors";
import { name } from "../fields";

// Durations are the secrets service's, shared with the other engines.
export { duration } from "../duration";
import { fetchData, listNames, pathOf } from "../pathObject";
import type { User } from "../../core/relations";

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
async function namesUsing(ctx: Context, mount: string, list: string, read: string, uses: (data: Record<string, unknown>) => boolean): Promise<string[]> {
  const out: string[] = [];
  for (const n of await listNames(ctx, list, { mount })) {
    const data = await fetchData(ctx, read, { mount, name: n });
    if (data && uses(data)) out.push(n);
  }
  return out;
}

/** The users of a kind by where they are found: users listed and read at the same routes (transformations of every type) are read once. */
function byRoutes(users: readonly User[]): Array<{ list: string; read: string; members: string[] }> {
  const out: Array<{ list: string; read: string; members: string[] }> = [];
  for (const u of users) {
    const at = out.find((o) => o.list === u.list && o.read === u.read);
    if (!at) out.push({ list: u.list, read: u.read, members: [u.member] });
    else if (!at.members.includes(u.member)) at.members.push(u.member);
  }
  return out;
}

/**
 * `base` with a delete that refuses, naming each user and what to do (`why`), while an object of
 * another kind names the one deleted: the service refuses that delete too, and saying so before any
 * request lets the message name the user and the fix (docs/transform.md). Who
 * may name it is every field of another kind that refers to this one (src/core/relations.ts, as
 * `npm run docs` wrote them into src/kindUsers.ts), so a new kind is covered by its own field.
 */
export function deletedOnlyUnused<P extends Props & { mount: string; name: string }>(base: ResourceDefinition<P, P>,
  why: (name: string, user: string) => string): ResourceDefinition<P, P> {
  return {
    ...base,
    async delete(ctx, id, props) {
      // Loaded by a delete only: a host's first Check loads nothing it does not use (docs/performance.md).
      const { USERS } = await import("../../kindUsers");
      const names = (v: unknown) => v === props.name || (Array.isArray(v) && v.includes(props.name));
      const users: string[] = [];
      for (const at of byRoutes(USERS[base.kind] ?? [])) {
        users.push(...await namesUsing(ctx, props.mount, at.list, at.read, (d) => at.members.some((m) => names(d[m]))));
      }
      if (users.length > 0) throw inUse("DELETE", base.routes!.delete!, { mount: props.mount, name: props.name }, users.map((u) => why(props.name, u)));
      await base.delete(ctx, id, props);
    },
  };
}
