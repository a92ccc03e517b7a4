/**
 * Derives the dynamic provider methods from a ResourceDefinition. This runs inside the provider
 * host (or the program process for tests), never on the program's side of serialization.
 */
import type { Context, Props, ResourceDefinition } from "./definition";
import { ADOPT_ID, PartialFailure, PROVIDER_KEY } from "./definition";
import { deepEqual, omit, plainJson } from "./json";
import { pathFromInputs } from "./path";
import { containsUnknown, isUnknown } from "./unknown";
import { validate, type CheckFailure } from "./validate";
import { ConflictError, isSvcError, NotFoundError } from "../http/errors";
import { ownedHere } from "./createOnce";
import { kindName, serviceOfKind } from "./token";
import { wouldDuplicate } from "./leftovers";

const PROVIDER_ONLY = [PROVIDER_KEY];

function withoutProvider(p: Props): Props {
  return omit(p, PROVIDER_ONLY);
}

function normaliseSet(value: unknown): unknown {
  if (!Array.isArray(value) || containsUnknown(value)) return value;
  return [...new Set(value.map((v) => (typeof v === "string" ? v : JSON.stringify(v))))].sort()
    .map((v) => value.find((x) => (typeof x === "string" ? x : JSON.stringify(x)) === v));
}

export function check(def: ResourceDefinition, news: Props): { inputs: Props; failures: CheckFailure[] } {
  const inputs: Props = { ...news };
  for (const [k, v] of Object.entries(def.defaults ?? {})) {
    if (inputs[k] === undefined || inputs[k] === null) inputs[k] = v;
  }
  // Validated before sets are sorted, so an index in a failure (`purpose[1]`) is the user's own.
  const failures = validate(def.schema(), withoutProvider(inputs));
  for (const k of def.sets ?? []) if (inputs[k] !== undefined) inputs[k] = normaliseSet(inputs[k]);
  const normal = failures.length === 0 && def.normalize ? { ...inputs, ...def.normalize(inputs) } : inputs;
  return { inputs: plainJson(normal), failures };
}

function inputKeys(def: ResourceDefinition, olds: Props, news: Props): string[] {
  const local = new Set<string>(def.local ?? []);
  const outputOnly = new Set(def.outputs);
  const keys = new Set([...Object.keys(withoutProvider(news)), ...Object.keys(withoutProvider(olds))]);
  return [...keys].filter((k) => !local.has(k) && !outputOnly.has(k));
}

function same(def: ResourceDefinition, key: string, a: unknown, b: unknown): boolean {
  const empty = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.length === 0);
  if (empty(a) && empty(b)) return true;
  if ((def.sets as string[] | undefined)?.includes(key)) return deepEqual(normaliseSet(a), normaliseSet(b));
  return deepEqual(a, b);
}

/** Whether input `key` kept its value from `olds` to `news`, compared as diff compares it. */
export function kept(def: ResourceDefinition, olds: Props, news: Props, key: string): boolean {
  if (def.normalize) olds = { ...olds, ...def.normalize(olds) };
  return !isUnknown(news[key]) && same(def, key, olds[key], news[key]);
}

/** The inputs whose values differ from `olds` to `news`, compared as diff compares them. */
function changedKeys(def: ResourceDefinition, olds: Props, news: Props): string[] {
  return inputKeys(def, olds, news).filter((k) => isUnknown(news[k]) || !same(def, k, olds[k], news[k]));
}

export function diff(def: ResourceDefinition, olds: Props, news: Props): {
  changes: boolean; replaces: string[]; deleteBeforeReplace: boolean;
} {
  // State written before a spelling rule existed compares in the same canonical spelling.
  if (def.normalize) olds = { ...olds, ...def.normalize(olds) };
  const changed = changedKeys(def, olds, news);
  const immutable = new Set<string>(def.immutable ?? []);
  // A value naming other objects (`refers`) unknown as a whole is what the engine asks about when
  // one of those objects is replaced delete-first (its dependent replacements): the service will not
  // delete an object another names (a tokenization transformation a role lists), so this object
  // goes first and comes back after it. Once known, the value is compared as any other.
  const naming = (k: string) => isUnknown(news[k]) && (def.fields?.[k]?.refers?.length ?? 0) > 0;
  const replaces = changed.filter((k) => immutable.has(k) || naming(k));
  const kept = (k: string) => !isUnknown(news[k]) && same(def, k, olds[k], news[k]);
  const identity = def.identity ?? [];
  const identityKept = identity.length > 0 && identity.every(kept);
  const ex = def.exclusive;
  const claimKept = ex !== undefined && ex.scope.every(kept) && ex.keys.some((k) => !containsUnknown(news[k]) && shareAValue(olds[k], news[k]));
  return { changes: changed.length > 0, replaces, deleteBeforeReplace: replaces.length > 0 && (identityKept || claimKept) };
}

/** Whether two values (or two lists, as sets) have a value in common; blanks have none. */
function shareAValue(a: unknown, b: unknown): boolean {
  const values = (v: unknown) => (Array.isArray(v) ? v : v === undefined || v === null || v === "" ? [] : [v]);
  const bs = values(b);
  return values(a).some((x) => bs.some((y) => deepEqual(x, y)));
}

/** Write-only inputs are never read back: keep what the user gave us. */
function carryWriteOnly(def: ResourceDefinition, from: Props, outs: Props): Props {
  return carryInto(def, from, { ...outs });
}

function carryInto(def: ResourceDefinition, from: Props, result: Props): Props {
  for (const k of def.writeOnly ?? []) if (from[k] !== undefined) result[k] = plainJson(from[k]);
  for (const k of def.local ?? []) if (from[k] !== undefined) result[k] = plainJson(from[k]);
  return result;
}

/** What state records of an operation's outputs: plain JSON, with the write-only and local inputs. */
function recorded(def: ResourceDefinition, from: Props, outs: Props): Props {
  return carryInto(def, from, plainJson(outs));
}

/**
 * A PartialFailure (the server acted, a later step failed) leaves with the properties the engine
 * will record as outputs. Those are what the server holds, read back now, not what the program
 * asked for: a write that failed must show as a difference on the next up. Only when the read
 * fails too are the failure's own properties kept. The host adds no __provider to them, so we do:
 * without it a later operation on the object could not load its provider.
 */
async function asPartial(def: ResourceDefinition, ctx: Context, inputs: Props, provider: unknown, e: unknown): Promise<unknown> {
  if (!(e instanceof PartialFailure)) return e;
  let held: Props = e.properties;
  try {
    held = (await def.read(ctx, e.id, e.properties)) ?? held;
  } catch {
    // The failure itself is what the user needs to see; the properties stay as the step left them.
  }
  // Write-only inputs: the failing step knows which ones reached the server; the program's fill the rest.
  held = carryWriteOnly(def, e.properties, carryWriteOnly(def, inputs, held));
  const properties = { ...held, [PROVIDER_KEY]: provider };
  return Object.assign(e, { properties: plainJson(properties) });
}

// create, read, update and remove take properties without the engine's and the connection's keys
// (the connection layer strips them once); create and update get the serialized provider apart,
// for the properties of a partial failure.

/** Whether resources of `def` can take over an existing object by its id. */
export function takesOverById(def: ResourceDefinition): boolean {
  return (def.local as string[] | undefined)?.includes(ADOPT_ID) === true;
}

/** The object `adoptId` names as the server holds it, or undefined when there is none. */
async function foundById(def: ResourceDefinition, ctx: Context, id: string, inputs: Props): Promise<Props | undefined> {
  try {
    return await def.read(ctx, id, inputs);
  } catch (e) {
    if (!isSvcError(e, "not_found")) throw e;
    return undefined;
  }
}

/** Why `adoptId` cannot be taken over: it names nothing. */
function noSuchObject(def: ResourceDefinition, id: string): string {
  const what = kindName(def.kind);
  return `adoptId ${id}: there is no ${what} with this id on the server` +
    `${def.confirmGone ? " (or the token cannot see it: the run service answers 404 for both)" : ""}; nothing was created or changed. ` +
    `If it was deleted (by hand, or by a pulumi destroy that stopped part way), remove adoptId from this resource to create a new one ` +
    `(the service gives it a new id)`;
}

/**
 * What check says of a create's `adoptId`, so that a preview fails on an id that names nothing
 * rather than the up: undefined when the object is there (or the read failed otherwise: the create
 * says so). Its immutable inputs are the create's to compare: a replacement's check has no old
 * inputs and would refuse the object it replaces.
 */
export async function adoptIdProblem(def: ResourceDefinition, ctx: Context, id: string, inputs: Props): Promise<string | undefined> {
  try {
    return (await foundById(def, ctx, id, inputs)) === undefined ? noSuchObject(def, id) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The create of a resource with `adoptId`: reads that object, refuses one that does not exist or
 * whose immutable inputs (its workspace, its destination type) differ from the program's, and
 * writes it only when something differs (every write-only input given counts: it cannot be read).
 */
async function takeOver(def: ResourceDefinition, ctx: Context, id: string, inputs: Props): Promise<{ id: string; outs: Props }> {
  const what = kindName(def.kind);
  const found = await foundById(def, ctx, id, inputs);
  if (found === undefined) throw new NotFoundError({ service: serviceOfKind(def.kind), messages: [noSuchObject(def, id)] });
  const olds = def.normalize ? { ...found, ...def.normalize(found) } : found;
  const fixed = (def.immutable ?? []).filter((k) => !same(def, k, olds[k], inputs[k]));
  if (fixed.length > 0) {
    const said = fixed.map((k) => `${k} is ${JSON.stringify(olds[k])} there, ${JSON.stringify(inputs[k])} in the program`).join("; ");
    throw new ConflictError({ messages: [`adoptId ${id}: the ${what} cannot be taken over: ${said}, and ${fixed.length > 1 ? "these" : "it"} cannot change in place; nothing was changed`] });
  }
  const differing = toWrite(def, olds, inputs);
  if (differing.length === 0) {
    ctx.log(`${what} ${id}: taken over as it is`);
    return { id, outs: found };
  }
  ctx.log(`${what} ${id}: taken over; writing ${differing.join(", ")}`);
  try {
    return { id, outs: await def.update(ctx, id, found, inputs) };
  } catch (e) {
    // Taken over all the same: the stack holds it with what the server has, and the next up writes again.
    throw new PartialFailure(id, found, e as Error, "taken over");
  }
}

/** What a write over `found` must set: the inputs that differ from it, and every write-only one given (no read can compare it). */
function toWrite(def: ResourceDefinition, found: Props, inputs: Props): string[] {
  const olds = def.normalize ? { ...found, ...def.normalize(found) } : found;
  const given = (def.writeOnly ?? []).filter((k) => inputs[k] !== undefined);
  return [...new Set([...changedKeys(def, olds, inputs), ...given])];
}

/**
 * The object a resource with `adopt: true` would take over: its path, and what the server holds
 * there (undefined: nothing, so the create makes it). Undefined for a resource without `adopt`.
 */
async function adoptable(def: ResourceDefinition, ctx: Context, inputs: Props): Promise<{ id: string; found?: Props } | undefined> {
  const id = inputs.adopt === true ? pathFromInputs(def, inputs) : undefined;
  if (id === undefined) return undefined;
  try {
    return { id, found: await def.read(ctx, id, inputs) };
  } catch (e) {
    if (!isSvcError(e, "not_found")) throw e;
    return { id };
  }
}

/**
 * Said on every take-over: the services record no owner of an object (no field of most kinds could
 * carry one), so nothing stops a second stack taking over the same object, and each stack's
 * destroy then deletes it for both while the other's plain preview (which reads nothing) still says
 * unchanged. Only a refresh sees it gone.
 */
function warnTakenOver(def: ResourceDefinition, ctx: Context, id: string, outs: Props): void {
  // Where a refresh cannot see the object (the service does not report it), it cannot show it gone either.
  const unseen = def.unseen?.(outs);
  const seen = unseen === undefined ? "pulumi preview --refresh shows it gone" : `and a refresh cannot show it gone: ${unseen}`;
  (ctx.warn ?? ctx.log)(`${id}: taken over from outside this stack. The service records no owner: if another stack ` +
    `takes it over too (the same import deployed to two stacks), either one's destroy deletes it for both, and the other's ` +
    `plain preview still says unchanged; ${seen} (docs/adopting.md, "One object, one stack")`);
}

/**
 * An object whose id the service assigns is never made twice: one with every value of the program
 * there already may be what a cancelled `up` made (src/core/leftovers.ts), so the create refuses
 * and says how to go on. One this process made (a program may declare two alike) is no obstacle.
 */
export async function refuseDuplicate(def: ResourceDefinition, ctx: Context, inputs: Props): Promise<void> {
  if (!def.leftovers || def.leftovers.serviceRefuses) return;
  const there = (await (def.leftovers.blocking ?? def.leftovers.find)(ctx, inputs)).filter((id) => !ownedHere(id));
  if (there.length > 0) throw wouldDuplicate(def, there);
}

export async function create(def: ResourceDefinition, ctx: Context, inputs: Props, provider: unknown): Promise<{ id: string; outs: Props }> {
  try {
    const adoptId = takesOverById(def) ? inputs[ADOPT_ID] : undefined;
    if (typeof adoptId !== "string") await refuseDuplicate(def, ctx, inputs);
    const adopting = typeof adoptId === "string" ? undefined : await adoptable(def, ctx, inputs);
    let made: { id: string; outs: Props };
    if (typeof adoptId === "string") {
      made = await takeOver(def, ctx, adoptId, inputs);
    } else if (adopting?.found && toWrite(def, adopting.found, inputs).length === 0) {
      // What the program declares is there already: taken over with no write.
      ctx.log(`${adopting.id}: adopted as it is (nothing to write)`);
      made = { id: adopting.id, outs: adopting.found };
    } else {
      made = await def.create(ctx, inputs);
    }
    if (typeof adoptId === "string" || adopting?.found) warnTakenOver(def, ctx, made.id, made.outs);
    return { id: made.id, outs: recorded(def, inputs, made.outs) };
  } catch (e) {
    throw await asPartial(def, ctx, inputs, provider, e);
  }
}

/**
 * A refresh's read (an empty id: gone), or with `confirm` false a read resource's, whose caller
 * says itself that a 404 may also mean "not authorized" (where the kind's `confirmGone` would look
 * for the object's container, which a read by id alone does not know).
 */
export async function read(def: ResourceDefinition, ctx: Context, id: string, props: Props, confirm = true): Promise<{ id: string; props: Props }> {
  try {
    const outs = await def.read(ctx, id, props);
    if (outs === undefined) return { id: "", props: {} };
    return { id, props: recorded(def, props, outs) };
  } catch (e) {
    // Deleted out of band: an empty id tells the engine to drop it from state on refresh.
    if (!isSvcError(e, "not_found")) throw e;
    if (confirm) await def.confirmGone?.(ctx, id, props, e as Error);
    return { id: "", props: {} };
  }
}

export async function update(def: ResourceDefinition, ctx: Context, id: string, olds: Props, inputs: Props, provider: unknown): Promise<{ outs: Props }> {
  try {
    const outs = await def.update(ctx, id, olds, inputs);
    return { outs: recorded(def, inputs, outs) };
  } catch (e) {
    throw await asPartial(def, ctx, inputs, provider, e);
  }
}

export async function remove(def: ResourceDefinition, ctx: Context, id: string, props: Props): Promise<void> {
  try {
    await def.delete(ctx, id, props);
  } catch (e) {
    if (!isSvcError(e, "not_found")) throw e;
    // Already gone is what delete wants, once we know the 404 is not an authorization failure.
    await def.confirmGone?.(ctx, id, props, e as Error);
  }
}
