/**
 * What a create cancelled mid-flight may have left on the server (a CI job killed while `pulumi up`
 * waited for a response; docs/behaviour.md, "When a deploy is cancelled"). The engine records each
 * create as a pending operation, with the inputs check returned, before it calls the provider, and a
 * killed CLI leaves it there; the next `up` calls create again with nothing else to go on. So:
 *
 * - check records, in a hidden input of a create, the objects the create could be confused with as
 *   they are before it (`__before`): the pending operation keeps that record;
 * - a create refuses to duplicate such an object (a path-keyed one cannot be duplicated at all),
 *   naming `pulumi-svc-recover`;
 * - pulumi-svc-recover takes, for each pending create, the one object that was not there before it
 *   and that no resource of the stack holds (src/recover).
 */
import { ConflictError, isSvcError } from "../http/errors";
import type { Context, Props, ResourceDefinition } from "./definition";
import { pathFromInputs } from "./path";
import { kindName, serviceOfKind } from "./token";
import { containsUnknown } from "./unknown";

/** The hidden input that holds what check found before a create. */
export const BEFORE_KEY = "__before";

/** What check found before a create: the ids of the objects the create could be confused with. */
export interface Before {
  ids: string[];
}

/** The command that records what cancelled creates left, as every message names it. */
export const RECOVER = "npx pulumi-svc-recover";

/**
 * The way on when a stopped `up` made the object, whichever way the user then took of the two
 * Pulumi offers: the pending create kept (a plain refresh keeps it) or cleared.
 */
export const STOPPED_UP = `If a pulumi up that was stopped (a cancelled CI job) made it, run \`${RECOVER}\` in this project ` +
  "(with --cleared if its pending creates were cleared since, by pulumi refresh --clear-pending-creates): it records it in the " +
  "stack, and the next pulumi up carries on";

/** Whether an interrupted create of the kind can leave an object that a later create would meet. */
export function canLeave(def: ResourceDefinition): boolean {
  return def.leftovers !== undefined || def.path !== undefined;
}

/** The ids of the objects a create with these inputs may have made: the object at the path, or the kind's own search. */
export async function leftoversOf(def: ResourceDefinition, ctx: Context, inputs: Props): Promise<string[]> {
  if (def.leftovers) return def.leftovers.find(ctx, inputs);
  const id = pathFromInputs(def, inputs);
  if (id === undefined) return [];
  try {
    return (await def.read(ctx, id, inputs)) === undefined ? [] : [id];
  } catch (e) {
    if (isSvcError(e, "not_found")) return [];
    throw e;
  }
}

/**
 * The record check keeps for a create: undefined where nothing can be told (inputs not known yet in
 * a preview, a kind whose search reads the whole server, a read that failed: check never fails for
 * it). `replaced` is the id of the object a replacement replaces, which is not a leftover.
 */
export async function beforeCreate(def: ResourceDefinition, ctx: Context, inputs: Props, replaced?: string): Promise<Before | undefined> {
  if (!canLeave(def) || def.leftovers?.costly || containsUnknown(inputs)) return undefined;
  try {
    return { ids: (await leftoversOf(def, ctx, inputs)).filter((id) => id !== replaced) };
  } catch {
    return undefined;
  }
}

/** The refusal of a create that would duplicate `ids`: what made them is unknown to it, so it says every way on. */
export function wouldDuplicate(def: ResourceDefinition, ids: readonly string[]): ConflictError {
  const what = kindName(def.kind);
  const them = ids.length === 1 ? ids[0] : ids.join(", ");
  return new ConflictError({
    service: serviceOfKind(def.kind),
    messages: [`a ${what} with every value this resource sets exists already (${them}): creating another would duplicate it. ` +
      `${STOPPED_UP}. If this resource is being replaced with deleteBeforeReplace: false, remove that option: the replacement ` +
      `is made while the old one still exists. ${capital(def.leftovers?.otherwise ?? "to take it over, set adopt: true")}. Nothing was created`],
  });
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
