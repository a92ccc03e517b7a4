/**
 * Which resource of the stack holds which object, as far as this provider process has seen: every
 * diff, read, update and create names an object's id with its resource's URN. One process serves a
 * whole deployment, so a take-over by id (`adoptId`) can refuse an object that another resource of
 * the same stack holds, and a delete can refuse to remove an object another resource took over.
 * What the process has not seen (a holder the program registers later) it cannot refuse; the
 * holder's own diff then fails, saying which resource took its object.
 */
import { ConflictError } from "../http/errors";
import { shortToken } from "./token";
import { urnName, urnType } from "./urn";

const held = new Map<string, string>();

/** Forgets every holder: the next deployment this process serves is another stack's. */
export function forgetHolders(): void {
  held.clear();
}

const keyOf = (kind: string, server: unknown, id: string) => `${kind}\n${typeof server === "string" ? server : ""}\n${id}`;

/** `name` (type) of a URN, as the CLI names resources. */
export function resourceName(urn: string): string {
  return `${urnName(urn)} (${shortToken(urnType(urn))})`;
}

/**
 * Records that `urn` holds object `id`. Throws when another resource was recorded for it first:
 * two resources would manage one object.
 */
export function hold(kind: string, server: unknown, id: unknown, urn: unknown): void {
  if (typeof id !== "string" || id === "" || typeof urn !== "string") return;
  const key = keyOf(kind, server, id);
  const other = held.get(key);
  if (other !== undefined && other !== urn) {
    throw new ConflictError({ messages: [`${id} is held by resource ${resourceName(other)}, which took it over by adoptId in this update; ` +
      `one object can belong to one resource: remove adoptId from ${resourceName(other)}, or remove ${resourceName(urn)} from the stack ` +
      `without deleting the object (retainOnDelete, or pulumi state delete)`] });
  }
  held.set(key, urn);
}

/**
 * Before a take-over of `id` by `urn`: "replacement" when `urn` itself holds it (the engine is
 * replacing that resource, so the create must make a new object), otherwise nothing, after
 * refusing an object another resource holds and claiming it for `urn`.
 */
export function claim(kind: string, server: unknown, id: string, urn: unknown): "replacement" | undefined {
  if (typeof urn !== "string") return undefined;
  const other = held.get(keyOf(kind, server, id));
  if (other === urn) return "replacement";
  if (other !== undefined) {
    throw new ConflictError({ messages: [`adoptId ${id}: the object is held by resource ${resourceName(other)} of this stack; ` +
      `one object can belong to one resource: take it over once (to move it between resources, use aliases on the resource that holds it)`] });
  }
  hold(kind, server, id, urn);
  return undefined;
}

/** Throws when a resource other than `urn` took object `id` over: deleting it would remove that resource's object. */
export function refuseDeleteOfTaken(kind: string, server: unknown, id: string, urn: unknown): void {
  const other = held.get(keyOf(kind, server, id));
  if (other === undefined || typeof urn !== "string" || other === urn) return;
  throw new ConflictError({ messages: [`${id} was taken over by resource ${resourceName(other)} (adoptId) in this update; deleting ${resourceName(urn)} ` +
    `would remove that resource's object: drop ${resourceName(urn)} from the stack without deleting the object (pulumi state delete), ` +
    `or give ${resourceName(other)} aliases instead of adoptId`] });
}
