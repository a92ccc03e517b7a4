/**
 * A resource's URN, `urn:pulumi:<stack>::<project>::<qualified type>::<name>`, read in one place.
 * The qualified type is the types of the resource's parents, outermost first, and its own, joined
 * by `$` (`pulumi:pulumi:Stack$pulumi-nodejs:dynamic/secrets:KeymgmtKey`), and the name is all
 * that follows the third `::`, which a name may itself hold (the engine does not escape it). A
 * reader that took the last `::` part for the name, or the third part for the type, misread both.
 */

/** The parts of a URN. */
export interface Urn {
  stack: string;
  project: string;
  /** The parents' types and the resource's own, joined by `$`. */
  qualifiedType: string;
  /** The resource's own type: the last of the qualified type. */
  type: string;
  /** The types of the resource's parents, outermost first (none for a resource without a parent). */
  parentTypes: string[];
  name: string;
}

const PREFIX = "urn:pulumi:";

/** The parts of `urn`; undefined for text that is not a URN. */
export function parseUrn(urn: string): Urn | undefined {
  if (!urn.startsWith(PREFIX)) return undefined;
  const parts = urn.slice(PREFIX.length).split("::");
  if (parts.length < 4) return undefined;
  const types = parts[2]!.split("$");
  return { stack: parts[0]!, project: parts[1]!, qualifiedType: parts[2]!, type: types[types.length - 1]!, parentTypes: types.slice(0, -1), name: parts.slice(3).join("::") };
}

/** The resource's name in `urn`, or `urn` itself when it is not a URN (a message still names something). */
export function urnName(urn: string): string {
  return parseUrn(urn)?.name ?? urn;
}

/** The resource's own type in `urn` (not its parents'); "" when it is not a URN. */
export function urnType(urn: string): string {
  return parseUrn(urn)?.type ?? "";
}

/** Whether `urn` is the stack's own resource, which the engine makes for every program. */
export function isStackUrn(urn: string): boolean {
  return parseUrn(urn)?.qualifiedType === "pulumi:pulumi:Stack";
}

/** Whether `urn` is a provider's resource (its own type `pulumi:providers:<package>`), which the engine makes too. */
export function isProviderUrn(urn: string): boolean {
  return urnType(urn).startsWith("pulumi:providers:");
}
