// Property values as they travel between the program, the engine double and its state.
//
// We keep the Pulumi wire encoding in memory: plain JSON where a secret is the object
// { [SIG_KEY]: SECRET_SIG, value } and an unknown (preview) is the UNKNOWN string. That is
// exactly what the SDK sends in a RegisterResourceRequest and what it decodes from the
// response, so values flow through without a second representation.

/** The engine's "value not known yet" sentinel (sent during preview, even for numbers). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/** Key that marks a special value on the wire. */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
/** Signature of a secret value. */
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
/** Signature of a resource reference. */
const RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type PropertyMap = Record<string, Json>;

export function isSecret(v: unknown): v is { value: Json } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && (v as PropertyMap)[SIG_KEY] === SECRET_SIG;
}

export function secret(v: Json): Json {
  return isSecret(v) ? v : { [SIG_KEY]: SECRET_SIG, value: v };
}

/** True when a secret appears anywhere inside v. */
export function containsSecret(v: unknown): boolean {
  if (isSecret(v)) return true;
  if (Array.isArray(v)) return v.some(containsSecret);
  if (typeof v === "object" && v !== null) return Object.values(v).some(containsSecret);
  return false;
}

/**
 * Deeply removes secret wrappers, and turns resource references into their id (or urn),
 * as the engine does for a provider that reports acceptSecrets/acceptResources false.
 */
export function plain(v: unknown): Json {
  if (isSecret(v)) return plain(v.value);
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    if (o[SIG_KEY] === RESOURCE_SIG) return plain(o.id !== undefined && o.id !== "" ? o.id : o.urn);
    const out: PropertyMap = {};
    for (const [k, x] of Object.entries(o)) if (x !== undefined) out[k] = plain(x);
    return out;
  }
  if (v === undefined) return null;
  return v as Json;
}

export function plainMap(v: unknown): PropertyMap {
  const p = plain(v ?? {});
  return typeof p === "object" && p !== null && !Array.isArray(p) ? p : {};
}

function isObject(v: unknown): v is PropertyMap {
  return typeof v === "object" && v !== null && !Array.isArray(v) && (v as PropertyMap)[SIG_KEY] === undefined;
}

/**
 * The engine's rule for providers that cannot take secrets: a value coming back from the
 * provider becomes secret when the value it sent under the same key held one. Objects on both
 * sides are followed key by key, so one secret field does not taint a whole structure.
 */
export function annotateSecrets(outs: PropertyMap, ins: PropertyMap): PropertyMap {
  const res: PropertyMap = { ...outs };
  for (const [k, inValue] of Object.entries(ins)) {
    if (!(k in res)) continue;
    const outValue = res[k]!;
    if (isObject(outValue) && isObject(inValue)) res[k] = annotateSecrets(outValue, inValue);
    else if (!isSecret(outValue) && containsSecret(inValue)) res[k] = secret(outValue);
  }
  return res;
}

/** Replaces secrets (at any depth) with "[secret]", for display. */
export function redact(v: Json): Json {
  if (isSecret(v)) return "[secret]";
  if (Array.isArray(v)) return v.map(redact);
  if (typeof v === "object" && v !== null) {
    const out: PropertyMap = {};
    for (const [k, x] of Object.entries(v)) out[k] = redact(x);
    return out;
  }
  return v;
}

/** Structural equality of JSON values (key order does not matter). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as PropertyMap)[k], (b as PropertyMap)[k]));
}

/** Top-level keys whose (unwrapped) values differ; `__provider` is not a user-visible change. */
export function changedKeys(olds: PropertyMap, news: PropertyMap): string[] {
  const keys = new Set([...Object.keys(olds), ...Object.keys(news)]);
  keys.delete("__provider");
  return [...keys].filter((k) => !deepEqual(plain(olds[k]), plain(news[k]))).sort();
}

/** JSON round trip: drops `undefined`, which protobuf Structs cannot carry. */
export function toJson(v: unknown): Json {
  return v === undefined ? null : (JSON.parse(JSON.stringify(v)) as Json);
}
