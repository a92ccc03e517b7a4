/**
 * Who uses an object, read from the other kinds' fields and from nowhere else. A field that
 * `refers` to a kind makes its object a user of the objects it names, unless it says where its
 * own object lives (an identity input or a path parameter: a role's mount, the transformation
 * whose keys a key config sets). Two things follow from that one declaration:
 * - the delete guard: an object is not deleted while a user names it (every user counts);
 * - the review's "used by": an object whose risk holds only while it is used (Risk.whileUsed)
 *   counts as used when a user that depends on it (Field.dependent) names it in the preview.
 *
 * Core knows no kind: `npm run docs` writes every kind's users into src/kindUsers.ts with
 * `usersOf`, which the guard and the review read, so a provider host's delete loads no other kind.
 */
import { routeParams } from "../http/route";
import type { ResourceDefinition } from "./definition";
import { snake } from "./fields";
import { inputOf, keyInput } from "./path";

/** A kind's field that names objects of another kind: a user of them. */
export interface User {
  kind: string;
  field: string;
  /** What the user holds depends on the objects named (Field.dependent). */
  dependent?: true;
  /** How the delete guard finds the users on a mount: its list route, its read route, and the member a read names the objects in. */
  list: string;
  read: string;
  member: string;
}

/** Each kind's users, under the kind they name. */
export type Users = Readonly<Record<string, readonly User[]>>;

/** Whether the field says where the object lives rather than what it uses. */
function placesIt(def: ResourceDefinition, field: string): boolean {
  const params = def.path ? routeParams(def.path.route).map((p) => inputOf(def, p)) : [];
  return params.includes(field) || (def.identity ?? []).includes(field);
}

/**
 * The user a field makes of its object. The service will not delete an object another one names,
 * so the guard of the objects named must find the users: it lists the user kind on the mount and
 * reads each by name.
 */
function userOf(def: ResourceDefinition, field: string): User {
  const f = def.fields![field]!;
  const list = def.routes?.list;
  const read = def.path?.route;
  if (list === undefined || read === undefined || routeParams(list).join() !== "mount" || routeParams(read).join() !== "mount,name") {
    throw new Error(`${def.kind}.${field} names objects of ${f.refers!.join(", ")}, whose delete guard looks for such users by listing them on a mount ` +
      `and reading each by name: ${def.kind} needs routes.list "LIST /{mount}/…" and a read route "GET /{mount}/…/{name}" (it has ${list ?? "no list route"} and ${read ?? "no read route"})`);
  }
  return { kind: def.kind, field, ...(f.dependent ? { dependent: true as const } : {}), list, read, member: f.readAs ?? f.wire ?? snake(field) };
}

/** Every kind's users among `defs`, in the order of `defs` and of their fields. */
export function usersOf(defs: readonly ResourceDefinition[]): Users {
  const out: Record<string, User[]> = {};
  for (const def of defs) {
    for (const [field, f] of Object.entries(def.fields ?? {})) {
      for (const kind of f.refers ?? []) if (kind !== def.kind && !placesIt(def, field)) (out[kind] ??= []).push(userOf(def, field));
    }
  }
  return out;
}

/**
 * Who uses an object as the review counts it: a resource of one of `uses`' kinds whose input
 * `input` holds the object's `by` (its name); with `usedBy`, only one itself used so (a template
 * counts only while a transformation names it).
 */
export interface UsedBy {
  by: string;
  uses: ReadonlyArray<{ kind: string; input: string; usedBy?: UsedBy }>;
}

/** The dependent users of `def`'s objects, from `users`; `defOf` gives the definition of a user kind, to follow those in use only while used. */
export function usedByOf(def: ResourceDefinition, users: Users, defOf: (kind: string) => ResourceDefinition | undefined, seen: readonly string[] = []): UsedBy {
  const uses = (users[def.kind] ?? []).filter((u) => u.dependent && !seen.includes(u.kind)).map((u) => {
    const user = defOf(u.kind);
    const nested = user?.risk?.whileUsed ? usedByOf(user, users, defOf, [...seen, def.kind]) : undefined;
    return { kind: u.kind, input: u.field, ...(nested ? { usedBy: nested } : {}) };
  });
  return { by: keyInput(def) ?? "name", uses };
}
