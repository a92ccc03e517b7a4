/**
 * How a review tells a secret property apart and whether it changed, without ever holding a
 * secret's text in anything it prints.
 *
 * A property is secret when either side of it contains the engine's mask (`"[secret]"`), an
 * engine secret envelope (an object with the secret signature key), or when its name is in the
 * state's `additionalSecretOutputs`. The review then says only one of: changed, unchanged, added,
 * removed, or "unknown" when that cannot be told. Whether it changed comes first from the secret's
 * version: for a top-level secret input `X`, the provider keeps a plain number `XVersion` beside it
 * (1 on create, one more each time the secret's value changes), so old and new inputs tell it
 * without the plaintext. Without versions on both sides (state from before them, other providers),
 * equal ciphertexts or, under --show-secrets, equal plaintexts say "unchanged"; a masked side
 * leaves it unknown. No length, digest or prefix of a value is computed. Every string found inside a secret property is also collected,
 * so the final text can be scrubbed of it wherever else it might turn up (with --show-secrets the
 * CLI may print an input that came from a secret config value in plain text beside its marker).
 */

/** The engine's signature key of a secret value in state and in JSON. */
export const SECRET_SIG = "4dabf18193072939515e22adb298388d";
/** What the CLI prints in place of a secret it does not show. */
export const SECRET_MASK = "[secret]";

export type SecretStatus = "changed" | "unchanged" | "added" | "removed" | "unknown";

/** The plain sibling input that counts the changes of a top-level secret input. */
export const versionKey = (name: string) => `${name}Version`;

/** A version number of a secret, when the side has one (not unknown, not absent). */
export function versionOf(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** True when `v` is or holds a masked value or a secret envelope. */
export function holdsSecret(v: unknown): boolean {
  if (v === SECRET_MASK) return true;
  if (Array.isArray(v)) return v.some(holdsSecret);
  if (v && typeof v === "object") {
    if (SECRET_SIG in v) return true;
    return Object.values(v).some(holdsSecret);
  }
  return false;
}

/** True when `v` holds a mask or an envelope without its plaintext: nothing to compare. */
function opaque(v: unknown): boolean {
  if (v === SECRET_MASK) return true;
  if (Array.isArray(v)) return v.some(opaque);
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (SECRET_SIG in o) return !("plaintext" in o) && !("value" in o);
    return Object.values(o).some(opaque);
  }
  return false;
}

function holdsMask(v: unknown): boolean {
  if (v === SECRET_MASK) return true;
  if (Array.isArray(v)) return v.some(holdsMask);
  return !!v && typeof v === "object" && Object.values(v).some(holdsMask);
}

/** The value with every envelope opened (plaintext JSON parsed), for comparison only. */
function open(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(open);
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (SECRET_SIG in o) {
      if ("value" in o) return open(o.value);
      if (typeof o.plaintext === "string") {
        try {
          return open(JSON.parse(o.plaintext));
        } catch {
          return o.plaintext;
        }
      }
      return o;
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, open(x)]));
  }
  return v;
}

/** Deep equality of two JSON values (object key order ignored). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => sameValue(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  return keys.length === Object.keys(bo).length && keys.every((k) => k in bo && sameValue(ao[k], bo[k]));
}

/**
 * What a review may say about a secret property (`undefined` side = absent), given its versions on
 * each side when the provider keeps them.
 */
export function secretStatus(old: unknown, next: unknown, versions: { old?: number; new?: number } = {}): SecretStatus {
  if (old === undefined) return "added";
  if (next === undefined) return "removed";
  if (versions.old !== undefined && versions.new !== undefined) return versions.old === versions.new ? "unchanged" : "changed";
  if (!opaque(old) && !opaque(next)) return sameValue(open(old), open(next)) ? "unchanged" : "changed";
  // Two envelopes with the same ciphertext hold the same secret; a mask hides whether it changed.
  if (!holdsMask(old) && !holdsMask(next) && sameValue(old, next)) return "unchanged";
  return "unknown";
}

/** Every string inside `v` of at least `min` characters (envelope plaintexts opened), to scrub. */
export function secretTexts(v: unknown, into: Set<string>, min = 6): void {
  const x = open(v);
  const walk = (y: unknown): void => {
    if (typeof y === "string") {
      if (y.length >= min && y !== SECRET_MASK) into.add(y);
    } else if (Array.isArray(y)) y.forEach(walk);
    else if (y && typeof y === "object") Object.values(y).forEach(walk);
  };
  walk(x);
}

/** `text` with every occurrence of each secret (raw or JSON-escaped) replaced by the mask. */
export function scrub(text: string, secrets: Iterable<string>): string {
  let out = text;
  const all = [...secrets].flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]).sort((a, b) => b.length - a.length);
  for (const s of all) if (s.length > 0) out = out.split(s).join(SECRET_MASK);
  return out;
}
