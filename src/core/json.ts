/**
 * Outputs must be plain JSON: the host's Struct conversion rejects undefined, BigInt, Buffer, Date
 * and Map. Undefined members are dropped; everything else that is not JSON is an error in our code.
 */
export function plainJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_k, v) => {
    if (typeof v === "bigint") throw new TypeError("BigInt in provider output");
    return v;
  })) as T;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
    const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
    return ka.length === kb.length &&
      ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}
