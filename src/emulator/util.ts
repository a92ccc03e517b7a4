import { randomBytes } from "node:crypto";

const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** `prefix-` followed by `length` random alphanumerics; ids must not be guessable from order. */
export function randomId(prefix: string, length = 16): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length)) {
      // 248 = 4 * 62: rejecting higher bytes keeps the distribution uniform.
      if (byte < 248 && out.length < length) out += ALNUM[byte % 62];
    }
  }
  return `${prefix}-${out}`;
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString("hex");
}

/** ISO 8601 with milliseconds, as the run service specifies for every timestamp. */
export function now(): string {
  return new Date().toISOString();
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function hasOwn(value: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(value, key);
}

/**
 * A dictionary keyed by user-chosen names. Without a prototype, `__proto__`, `constructor` or
 * `toString` are ordinary keys: reads of absent names give undefined and writes create own keys.
 */
export function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/**
 * Every plain object inside `value` (the stored data) rebuilt without a prototype, so maps that
 * come from a state file or from the initial state are as safe as ones made with dict().
 */
export function nullProto<T>(value: T): T {
  if (Array.isArray(value)) return value.map(nullProto) as T;
  if (typeof value !== "object" || value === null) return value;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out = dict<unknown>();
  for (const key of Object.keys(value)) out[key] = nullProto((value as Record<string, unknown>)[key]);
  return out as T;
}
