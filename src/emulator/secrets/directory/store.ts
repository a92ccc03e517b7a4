import type { Mount } from "../../state";
import type { SecretsContext } from "../context";

/**
 * A bag of one object kind on a mount, keyed by user-chosen names. It has no prototype, so a name
 * such as `__proto__` or `toString` is stored and found like any other; a bag read back from a
 * state file (a plain object) is moved into a prototype-free one on first use.
 */
export function store<T>(mount: Mount, kind: string): Record<string, T> {
  const current = mount.objects[kind];
  if (current && Object.getPrototypeOf(current) === null) return current as Record<string, T>;
  const fresh: Record<string, T> = Object.create(null);
  if (current) for (const key of Object.keys(current)) fresh[key] = current[key] as T;
  mount.objects[kind] = fresh;
  return fresh;
}

/** The object stored under `name`, never one inherited from a prototype. */
export function own<T>(bag: Record<string, T>, name: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(bag, name) ? bag[name] : undefined;
}

export const bagOf = <T>(ctx: SecretsContext, kind: string) => store<T>(ctx.mount, kind);
