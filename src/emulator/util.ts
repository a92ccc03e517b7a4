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
